// x-kubernetes-list-type set/map uniqueness, defaulting and pruning, as the apiserver does them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileValidator, formatFieldError } from '../../../../src/runtime/validation/index.js';

const listSchema = {
  type: 'object',
  properties: {
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        properties: { port: { type: 'integer' }, protocol: { type: 'string' }, name: { type: 'string' } },
      },
    },
    listeners: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' } } },
    },
    objs: {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

describe('x-kubernetes-list-type', () => {
  const v = compileValidator(listSchema);
  const lines = (obj: unknown) => v.validate(obj).map(formatFieldError);

  it('set: the second occurrence of each duplicate, once', () => {
    assert.deepEqual(lines({ tags: ['a', 'b', 'a', 'a', 'b'] }), [
      'tags[2]: Duplicate value: "a"',
      'tags[4]: Duplicate value: "b"',
    ]);
    assert.equal(v.validate({ tags: ['a'] }).length, 0);
    assert.equal(v.validate({ tags: ['a', 'a'] })[0].reason, 'FieldValueDuplicate');
  });

  it('set of objects compares by value', () => {
    assert.deepEqual(
      lines({
        objs: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      }),
      ['objs[1]: Duplicate value: {"a":1,"b":2}'],
    );
  });

  it('map with one key: the key is shown as JSON (apimachinery 1.37)', () => {
    assert.deepEqual(lines({ listeners: [{ name: 'same' }, { name: 'other' }, { name: 'same' }] }), [
      'listeners[2]: Duplicate value: {"name":"same"}',
    ]);
  });

  it('map with several keys: only the whole key tuple must be unique', () => {
    assert.equal(
      v.validate({
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 80, protocol: 'UDP' },
        ],
      }).length,
      0,
    );
    assert.deepEqual(
      lines({
        ports: [
          { port: 80, protocol: 'TCP', name: 'a' },
          { port: 80, protocol: 'TCP', name: 'b' },
        ],
      }),
      ['ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}'],
    );
  });

  it('map items must be objects', () => {
    const errs = compileValidator({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
      items: {},
    }).validate([{ k: 1 }, 'x']);
    assert.deepEqual(errs.map(formatFieldError), [
      '[1]: Invalid value: "x": must be an object for an array of list-type map',
    ]);
  });
});

const defaultsSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        strategy: {
          type: 'object',
          properties: { type: { type: 'string', default: 'Rolling' }, maxSurge: { type: 'integer', default: 25 } },
        },
        withDefault: { type: 'object', default: {}, properties: { inner: { type: 'string', default: 'x' } } },
        ports: {
          type: 'array',
          items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string', default: 'v' } },
        name: { type: 'string', default: 'n' },
        note: { type: 'string', nullable: true, default: 'd' },
        plain: { type: 'string' },
      },
    },
  },
};

describe('defaulting', () => {
  const v = compileValidator(defaultsSchema);

  it('defaults a missing property of an object that exists, not of one that does not', () => {
    const obj: Record<string, unknown> = { spec: {} };
    v.applyDefaults(obj);
    assert.deepEqual(obj.spec, { replicas: 1, withDefault: { inner: 'x' }, name: 'n', note: 'd' });
    const none: Record<string, unknown> = {};
    v.applyDefaults(none);
    assert.deepEqual(none, {}, 'spec is absent, so nothing inside it is defaulted');
  });

  it('defaults inside a defaulted value, inside existing nested objects and list items', () => {
    const obj = { spec: { strategy: {}, ports: [{}, { protocol: 'UDP' }], replicas: 3 } };
    v.applyDefaults(obj);
    assert.deepEqual(obj.spec.strategy, { type: 'Rolling', maxSurge: 25 });
    assert.deepEqual(obj.spec.ports, [{ protocol: 'TCP' }, { protocol: 'UDP' }]);
    assert.equal(obj.spec.replicas, 3, 'a set value is kept');
  });

  it('a null replaces by the default unless nullable; other non-nullable nulls are dropped', () => {
    const obj: { spec: Record<string, unknown> } = {
      spec: { name: null, note: null, plain: null, labels: { a: null } },
    };
    v.applyDefaults(obj);
    assert.equal(obj.spec.name, 'n');
    assert.equal(obj.spec.note, null, 'nullable: null is a value');
    assert.ok(!('plain' in obj.spec), 'non-nullable null without default is pruned');
    assert.deepEqual(obj.spec.labels, { a: 'v' }, 'additionalProperties default replaces null');
    const m: Record<string, unknown> = { m: { a: null, b: 'x' } };
    compileValidator({
      type: 'object',
      properties: { m: { type: 'object', additionalProperties: { type: 'string' } } },
    }).applyDefaults(m);
    assert.deepEqual(m, { m: { b: 'x' } }, 'a non-nullable map value without default is pruned too');
  });

  it('property names that exist on Object.prototype are defaulted like any other', () => {
    const obj: Record<string, unknown> = {};
    compileValidator({
      type: 'object',
      properties: { toString: { type: 'string', default: 'x' }, constructor: { type: 'integer', default: 1 } },
    }).applyDefaults(obj);
    assert.deepEqual(obj, { toString: 'x', constructor: 1 });
  });

  it('defaults are copies, never shared between objects', () => {
    const a: { spec: { withDefault?: { inner: string } } } = { spec: {} };
    const b: { spec: { withDefault?: { inner: string } } } = { spec: {} };
    v.applyDefaults(a);
    v.applyDefaults(b);
    a.spec.withDefault!.inner = 'changed';
    assert.equal(b.spec.withDefault!.inner, 'x');
  });
});

describe('pruning', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          free: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { known: { type: 'object', properties: { k: { type: 'string' } } } },
          },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
          },
          items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
        },
      },
    },
  };
  const v = compileValidator(schema);

  it('drops unknown fields and keeps apiVersion, kind and metadata at the root', () => {
    const obj = {
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'n', labels: { a: 'b' } },
      spec: { a: 'x', b: 'y' },
      extra: 1,
    };
    v.prune(obj);
    assert.deepEqual(obj, {
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'n', labels: { a: 'b' } },
      spec: { a: 'x' },
    });
  });

  it('keeps unknown fields under preserve-unknown-fields but prunes known properties below', () => {
    const obj = { spec: { free: { anything: { deep: 1 }, known: { k: 'v', junk: 2 } } } };
    v.prune(obj);
    assert.deepEqual(obj.spec.free, { anything: { deep: 1 }, known: { k: 'v' } });
  });

  it('keeps map entries, prunes inside list items and embedded resources (keeping their apiVersion/kind/metadata)', () => {
    const obj = {
      spec: {
        labels: { x: 'y' },
        items: [{ n: 'a', junk: 1 }],
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a', junk: 1 }, junk: 2 },
      },
    };
    v.prune(obj);
    assert.deepEqual(obj.spec, {
      labels: { x: 'y' },
      items: [{ n: 'a' }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'a' } },
    });
  });

  it('a non-root schema (isResourceRoot: false) prunes apiVersion/kind like any field', () => {
    const obj = { apiVersion: 'a', kind: 'b', a: 'x' };
    compileValidator({ type: 'object', properties: { a: { type: 'string' } } }, { isResourceRoot: false }).prune(obj);
    assert.deepEqual(obj, { a: 'x' });
  });
});

describe('embedded resources', () => {
  const v = compileValidator({
    type: 'object',
    properties: {
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
      list: {
        type: 'array',
        items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  });
  const lines = (obj: unknown) => v.validate(obj).map(formatFieldError);

  it('require apiVersion and kind, and check their form', () => {
    assert.deepEqual(lines({ template: { apiVersion: 'apps/v1', kind: 'Deployment' } }), []);
    assert.deepEqual(lines({ template: {} }), ['template.apiVersion: Required value', 'template.kind: Required value']);
    assert.deepEqual(lines({ list: [{ apiVersion: 'a/b/c', kind: 'Pod' }] }), [
      'list[0].apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    ]);
    const bad = lines({ template: { apiVersion: 'v1', kind: 'My_Kind' } });
    assert.equal(bad.length, 1);
    assert.match(
      bad[0],
      /^template\.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: a DNS-1035 label/,
    );
  });

  it('does not apply to the resource root', () => {
    assert.deepEqual(lines({}), []);
  });
});

describe('ratcheting on update', () => {
  const v = compileValidator({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', maximum: 10 },
          name: { type: 'string', pattern: '^[a-z]+$' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } },
            },
          },
          atomic: { type: 'array', items: { type: 'integer', maximum: 5 } },
        },
        'x-kubernetes-validations': [{ rule: 'self.replicas % 2 == 0', message: 'even' }],
      },
    },
  });
  const lines = (obj: unknown, old?: unknown) => v.validate(obj, old).map(formatFieldError);

  it('an invalid value that did not change is accepted; a changed one is not', () => {
    const old = { spec: { replicas: 12, name: 'OK' } };
    assert.equal(lines(old).length, 2, 'on create both are errors');
    assert.deepEqual(lines({ spec: { replicas: 12, name: 'OK' } }, old), []);
    assert.deepEqual(lines({ spec: { replicas: 12, name: 'STILL' } }, old), [
      'spec.name: Invalid value: "STILL": spec.name in body should match \'^[a-z]+$\'',
    ]);
    assert.deepEqual(lines({ spec: { replicas: 14, name: 'OK' } }, old), [
      'spec.replicas: Invalid value: 14: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  it('list-type map items ratchet by key; atomic lists only as a whole', () => {
    const old = { spec: { replicas: 2, ports: [{ name: 'a', port: 500 }], atomic: [9] } };
    assert.deepEqual(
      lines(
        {
          spec: {
            replicas: 2,
            ports: [
              { name: 'b', port: 1 },
              { name: 'a', port: 500 },
            ],
            atomic: [9],
          },
        },
        old,
      ),
      [],
    );
    assert.deepEqual(lines({ spec: { replicas: 2, ports: [{ name: 'a', port: 500 }], atomic: [9, 1] } }, old), [
      'spec.atomic[0]: Invalid value: 9: spec.atomic[0] in body should be less than or equal to 5',
    ]);
  });

  it('CEL rules ratchet too (except transition rules)', () => {
    const old = { spec: { replicas: 3 } };
    assert.deepEqual(lines({ spec: { replicas: 3 } }), ['spec: Invalid value: even']);
    assert.deepEqual(lines({ spec: { replicas: 3 } }, old), []);
    assert.deepEqual(lines({ spec: { replicas: 5 } }, old), ['spec: Invalid value: even']);
  });
});
