// Field management as the apiserver's structured-merge-diff does it: the field-set model
// (FieldsV1 with `.`, keys and values, iteration and ordering), the typed operations (field
// sets, merge order of sets and map lists, removal), and over HTTP: apply by list/map type,
// conflicts in the apiserver's words, updates, resets, before-first-apply, the update
// managers' cap, kubectl's last-applied upgrade, status and scale subresources, built-ins.
// The expected values were read from kube-apiserver v1.37.1 through test/fidelity.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { FieldSet, compareValues, field, keyElement, pathString } from '../../src/testing/fieldpath.js';
import { customResourceTypeSchema } from '../../src/testing/field-schema.js';
import { mergeTyped, removeItemsTyped, toFieldSet, validateTyped } from '../../src/testing/typed-value.js';
import { api } from './helpers.js';

const WIDGETS_CRD = fileURLToPath(new URL('../fidelity/widgets-crd.yaml', import.meta.url));
const W = '/apis/fidelity.crdgen.dev/v1/namespaces/default/widgets';
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

type Json = Record<string, any>;
const widget = (name: string, spec: Json = {}, metadata: Json = {}): Json => ({
  apiVersion: 'fidelity.crdgen.dev/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec: { color: 'red', ...spec },
});
/** Entries by manager (their order depends on the seconds they were written in). */
const byManager = (mf: Json[] | undefined): Record<string, Json> =>
  Object.fromEntries(
    (mf ?? []).map((e) => [`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`, e.fieldsV1]),
  );

describe('field sets (fieldpath)', () => {
  it('FieldsV1: `.` marks a node that is also a member; keys and values are JSON; round trip', () => {
    const fv1 = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:port': {} } },
        'f:tags': { 'v:"a"': {}, 'v:1': {} },
      },
    };
    const s = FieldSet.fromFieldsV1(fv1);
    assert.ok(s.has([field('metadata'), field('labels')]));
    assert.ok(!s.has([field('spec')]), 'a node with children and no `.` is not a member');
    assert.ok(
      s.has([
        field('spec'),
        field('ports'),
        keyElement([
          ['protocol', 'TCP'],
          ['name', 'http'],
        ]),
      ]),
      'key fields are sorted by name',
    );
    assert.deepEqual(s.toFieldsV1(), fv1);
    assert.deepEqual(
      Object.keys((s.toFieldsV1()['f:spec'] as Json)['f:tags']),
      ['v:1', 'v:"a"'],
      'numbers sort before strings',
    );
  });

  it('keys are written as Go writes JSON (HTML-safe) and printed as the apiserver prints paths', () => {
    const pe = keyElement([['name', '<a&b>']]);
    assert.deepEqual(FieldSet.of([field('spec'), pe]).toFieldsV1(), {
      'f:spec': { 'k:{"name":"\\u003ca\\u0026b\\u003e"}': {} },
    });
    assert.equal(
      pathString([field('spec'), field('ports'), keyElement([['name', 'http']]), field('port')]),
      '.spec.ports[name="http"].port',
    );
    assert.equal(pathString([field('spec'), field('tags'), { kind: 'value', value: 'a' }]), '.spec.tags[="a"]');
  });

  it('iterates a node’s members before its children’s paths (the order conflicts are listed in)', () => {
    const s = FieldSet.of(
      [field('spec'), field('z')],
      [field('spec'), field('b'), field('c')],
      [field('metadata'), field('labels'), field('l')],
    );
    assert.deepEqual(s.paths().map(pathString), ['.metadata.labels.l', '.spec.z', '.spec.b.c']);
  });

  it('difference removes exact paths, recursiveDifference whole subtrees', () => {
    const s = FieldSet.of([field('status')], [field('status'), field('replicas')], [field('spec'), field('x')]);
    const status = FieldSet.of([field('status')]);
    assert.deepEqual(s.difference(status).paths().map(pathString), ['.spec.x', '.status.replicas']);
    assert.deepEqual(s.recursiveDifference(status).paths().map(pathString), ['.spec.x']);
  });

  it('orders values as structured-merge-diff does: numbers, strings, booleans, lists, maps, null', () => {
    const sorted = [null, { a: 1 }, [1], true, 'a', 2, 1.5].sort(compareValues);
    assert.deepEqual(sorted, [1.5, 2, 'a', true, [1], { a: 1 }, null]);
  });
});

describe('typed values', () => {
  const { schema, root } = customResourceTypeSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          env: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name', 'scope'],
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                scope: { type: 'string', default: 'pod' },
                value: { type: 'string' },
              },
            },
          },
          selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
        },
      },
    },
  });

  it('a field set names set items by value, map-list items by key (a missing key by its default), atomic structs whole', () => {
    const s = toFieldSet(schema, root, {
      spec: { tags: ['a'], env: [{ name: 'A', value: '1' }], selector: { app: 'x' }, labels: { l: '1' } },
    });
    assert.deepEqual(s.toFieldsV1(), {
      'f:spec': {
        'f:env': { 'k:{"name":"A","scope":"pod"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
        'f:labels': { 'f:l': {} },
        'f:selector': {},
        'f:tags': { 'v:"a"': {} },
      },
    });
  });

  it('merging a set keeps the live items and follows the configuration’s order for the ones it names', () => {
    // kube-apiserver: tags ["a","b"] applied over by ["c","a"] gives ["c","a","b"]
    const out = mergeTyped(schema, root, { spec: { tags: ['a', 'b'] } }, { spec: { tags: ['c', 'a'] } }) as Json;
    assert.deepEqual(out.spec.tags, ['c', 'a', 'b']);
    const env = mergeTyped(
      schema,
      root,
      { spec: { env: [{ name: 'A', value: '1' }] } },
      {
        spec: {
          env: [
            { name: 'A', value: '2' },
            { name: 'A', scope: 'node', value: '3' },
          ],
        },
      },
    ) as Json;
    assert.deepEqual(env.spec.env, [
      { name: 'A', value: '2' },
      { name: 'A', scope: 'node', value: '3' },
    ]);
    const atomic = mergeTyped(schema, root, { spec: { selector: { app: 'x' } } }, { spec: { selector: {} } }) as Json;
    assert.deepEqual(atomic.spec.selector, {}, 'an atomic struct is replaced');
  });

  it('removing items drops them, and a struct field named as a member goes whole', () => {
    const v = { spec: { tags: ['a', 'b'], labels: { l: '1', m: '2' } } };
    assert.deepEqual(
      removeItemsTyped(
        schema,
        root,
        v,
        FieldSet.of(
          [field('spec'), field('tags'), { kind: 'value', value: 'a' }],
          [field('spec'), field('labels'), field('m')],
        ),
      ),
      { spec: { tags: ['b'], labels: { l: '1' } } },
    );
    assert.deepEqual(removeItemsTyped(schema, root, v, FieldSet.of([field('spec'), field('labels')])), {
      spec: { tags: ['a', 'b'] },
    });
  });

  it('schema errors read as the apiserver’s', () => {
    assert.deepEqual(validateTyped(schema, root, { spec: { tags: ['a', 'a'], bogus: 1 } }, false), [
      { path: '.spec.tags', message: 'duplicate entries for key [="a"]' },
      { path: '.spec.bogus', message: 'field not declared in schema' },
    ]);
    assert.deepEqual(
      validateTyped(schema, root, { spec: { tags: ['a', 'a'] } }, true),
      [],
      'live objects may hold duplicates',
    );
    assert.deepEqual(validateTyped(schema, root, { spec: { ports: [{ port: 1 }], labels: { l: 1 } } }, false), [
      {
        path: '.spec.ports',
        message:
          'element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
      },
      { path: '.spec.labels.l', message: 'expected string, got &value.valueUnstructured{Value:1}' },
    ]);
  });
});

describe('field management over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [WIDGETS_CRD] });
  });
  after(() => env.stop());

  it('apply by list and map type; a second applier merges; atomic fields conflict as a whole', async () => {
    const a = await api(
      env.url,
      'PATCH',
      `${W}/m?fieldManager=alice`,
      JSON.stringify(
        widget('m', {
          tags: ['a', 'b'],
          ports: [{ name: 'http', port: 80 }],
          matrix: ['m1'],
          selector: { app: 'a' },
          labels: { x: '1' },
        }),
      ),
      APPLY,
    );
    assert.equal(a.status, 201);
    assert.deepEqual(byManager(a.body.metadata.managedFields)['alice/Apply'], {
      'f:spec': {
        'f:color': {},
        'f:labels': { 'f:x': {} },
        'f:matrix': {},
        'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
        'f:selector': {},
        'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
      },
    });
    const b = await api(
      env.url,
      'PATCH',
      `${W}/m?fieldManager=bob`,
      JSON.stringify(widget('m', { tags: ['c', 'a'], ports: [{ name: 'https', port: 443 }], labels: { z: '3' } })),
      APPLY,
    );
    assert.equal(b.status, 200);
    assert.deepEqual(b.body.spec.tags, ['c', 'a', 'b']);
    assert.deepEqual(
      b.body.spec.ports.map((p: Json) => p.name),
      ['http', 'https'],
    );
    const c = await api(
      env.url,
      'PATCH',
      `${W}/m?fieldManager=carol`,
      JSON.stringify(widget('m', { matrix: ['m2'], selector: { app: 'b' }, labels: { x: '2', z: '4' } })),
      APPLY,
    );
    assert.equal(c.status, 409);
    assert.equal(
      c.body.message,
      'Apply failed with 4 conflicts: conflicts with "alice":\n- .spec.matrix\n- .spec.selector\n- .spec.labels.x\nconflicts with "bob":\n- .spec.labels.z',
    );
    assert.deepEqual(c.body.details.causes.map((x: Json) => `${x.reason} ${x.message} ${x.field}`).sort(), [
      'FieldManagerConflict conflict with "alice" .spec.labels.x',
      'FieldManagerConflict conflict with "alice" .spec.matrix',
      'FieldManagerConflict conflict with "alice" .spec.selector',
      'FieldManagerConflict conflict with "bob" .spec.labels.z',
    ]);
    const forced = await api(
      env.url,
      'PATCH',
      `${W}/m?fieldManager=carol&force=true`,
      JSON.stringify(widget('m', { matrix: ['m2'], selector: { app: 'b' }, labels: { x: '2', z: '4' } })),
      APPLY,
    );
    assert.equal(forced.status, 200);
    const mf = byManager(forced.body.metadata.managedFields);
    assert.equal(mf['alice/Apply']['f:spec']['f:matrix'], undefined, 'alice lost the atomic list');
    assert.deepEqual(mf['bob/Apply']['f:spec']['f:labels'], undefined, 'bob lost his only label');
    assert.deepEqual(mf['carol/Apply']['f:spec']['f:labels'], { 'f:x': {}, 'f:z': {} });
  });

  it('an applier’s dropped items go unless someone else owns them', async () => {
    await api(
      env.url,
      'PATCH',
      `${W}/d?fieldManager=alice`,
      JSON.stringify(widget('d', { tags: ['a', 'b'], labels: { x: '1', y: '2' } })),
      APPLY,
    );
    await api(env.url, 'PATCH', `${W}/d?fieldManager=bob`, JSON.stringify(widget('d', { tags: ['a'] })), APPLY);
    const r = await api(env.url, 'PATCH', `${W}/d?fieldManager=alice`, JSON.stringify(widget('d', {})), APPLY);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.spec.tags, ['a'], 'b went, a stays (bob applies it)');
    assert.equal(r.body.spec.labels, undefined, 'the map went with its last key');
  });

  it('Update: the writer owns what it added or changed (`.` for what it created); removed fields leave their owner', async () => {
    const c = await api(env.url, 'POST', `${W}?fieldManager=alice`, widget('u', { labels: { x: '1' } }));
    assert.deepEqual(c.body.metadata.managedFields, [
      {
        manager: 'alice',
        operation: 'Update',
        apiVersion: 'fidelity.crdgen.dev/v1',
        time: c.body.metadata.managedFields[0].time,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': { '.': {}, 'f:color': {}, 'f:labels': { '.': {}, 'f:x': {} }, 'f:replicas': {}, 'f:size': {} },
        },
      },
    ]);
    assert.match(c.body.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const r = await api(env.url, 'PATCH', `${W}/u?fieldManager=bob`, { spec: { labels: { x: null, y: '2' } } }, MERGE);
    const mf = byManager(r.body.metadata.managedFields);
    assert.deepEqual(
      mf['alice/Update']['f:spec']['f:labels'],
      {},
      'alice keeps the map she created, not the removed key',
    );
    assert.deepEqual(mf['bob/Update'], { 'f:spec': { 'f:labels': { 'f:y': {} } } });
    const same = await api(env.url, 'PATCH', `${W}/u?fieldManager=carol`, { spec: { color: 'red' } }, MERGE);
    assert.equal(
      same.body.metadata.resourceVersion,
      r.body.metadata.resourceVersion,
      'an update that changes nothing writes nothing',
    );
    assert.equal(byManager(same.body.metadata.managedFields)['carol/Update'], undefined);
  });

  it('more than ten update managers: the oldest are merged into ancient-changes', async () => {
    // oldest first by time in seconds, then by identity: names in writing order keep both orders the same
    await api(env.url, 'POST', `${W}?fieldManager=a-creator`, widget('cap'));
    for (let i = 0; i < 11; i++)
      await api(
        env.url,
        'PATCH',
        `${W}/cap?fieldManager=m${String(i).padStart(2, '0')}`,
        { spec: { labels: { [`k${i}`]: 'v' } } },
        MERGE,
      );
    const g = await api(env.url, 'GET', `${W}/cap`);
    const mf = byManager(g.body.metadata.managedFields);
    assert.deepEqual(Object.keys(mf).sort(), [
      'ancient-changes/Update',
      ...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => `m${String(i).padStart(2, '0')}/Update`),
    ]);
    assert.deepEqual(
      Object.keys(mf['ancient-changes/Update']['f:spec']['f:labels']).sort(),
      ['.', 'f:k0', 'f:k1'],
      'the creator and the two oldest updaters merged',
    );
  });

  it('kubectl takes over from client-side apply; last-applied is rewritten as Go encodes it', async () => {
    const obj = widget('k', { replicas: 1 });
    await api(env.url, 'POST', `${W}?fieldManager=kubectl-client-side-apply`, {
      ...obj,
      metadata: {
        name: 'k',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(obj)}\n` },
      },
    });
    const other = await api(
      env.url,
      'PATCH',
      `${W}/k?fieldManager=other`,
      JSON.stringify(widget('k', { replicas: 2 })),
      APPLY,
    );
    assert.equal(other.status, 409, 'only the manager kubectl gets the upgrade path');
    assert.equal(
      other.body.message,
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using fidelity.crdgen.dev/v1: .spec.replicas',
    );
    const k = await api(
      env.url,
      'PATCH',
      `${W}/k?fieldManager=kubectl`,
      JSON.stringify(widget('k', { replicas: 3 })),
      APPLY,
    );
    assert.equal(k.status, 200);
    assert.equal(k.body.spec.replicas, 3);
    assert.equal(
      k.body.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
      '{"apiVersion":"fidelity.crdgen.dev/v1","kind":"Widget","metadata":{"name":"k"},"spec":{"color":"red","replicas":3}}\n',
    );
  });

  it('status subresource: appliers own status with subresource status; spec and main-resource status are ignored', async () => {
    await api(env.url, 'PATCH', `${W}/s?fieldManager=alice`, JSON.stringify(widget('s')), APPLY);
    const s = await api(
      env.url,
      'PATCH',
      `${W}/s/status?fieldManager=ctrl`,
      JSON.stringify({
        ...widget('s', { color: 'blue' }),
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      }),
      APPLY,
    );
    assert.equal(s.status, 200);
    assert.equal(s.body.spec.color, 'red');
    assert.deepEqual(byManager(s.body.metadata.managedFields)['ctrl/Apply/status'], {
      'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
    });
    const c = await api(
      env.url,
      'PATCH',
      `${W}/s/status?fieldManager=other`,
      JSON.stringify({ ...widget('s'), status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      APPLY,
    );
    assert.equal(c.status, 409);
    assert.equal(
      c.body.message,
      'Apply failed with 1 conflict: conflict with "ctrl" with subresource "status": .status.conditions[type="Ready"].status',
    );
    const m = await api(
      env.url,
      'PATCH',
      `${W}/s?fieldManager=alice`,
      JSON.stringify({ ...widget('s'), status: { replicas: 9 } }),
      APPLY,
    );
    assert.equal(m.body.status.replicas, undefined);
    assert.equal(byManager(m.body.metadata.managedFields)['alice/Apply']['f:status'], undefined);
  });

  it('/scale: the replicas owner moves to a scale entry (no time, as the apiserver writes it)', async () => {
    await api(env.url, 'POST', W, widget('sc', { replicas: 2 }));
    const g = await api(env.url, 'GET', `${W}/sc/scale`);
    assert.equal((await api(env.url, 'PUT', `${W}/sc/scale`, { ...g.body, spec: { replicas: 4 } })).status, 200);
    const o = await api(env.url, 'GET', `${W}/sc`);
    assert.deepEqual(o.body.metadata.managedFields[0], {
      manager: 'unknown',
      operation: 'Update',
      apiVersion: 'fidelity.crdgen.dev/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    });
    assert.deepEqual(o.body.metadata.managedFields[1].fieldsV1, { 'f:spec': { '.': {}, 'f:color': {}, 'f:size': {} } });
  });

  it('managedFields reset with [{}]; updates then leave it untracked; the first apply meets before-first-apply', async () => {
    await api(env.url, 'PATCH', `${W}/r?fieldManager=alice`, JSON.stringify(widget('r', { replicas: 2 })), APPLY);
    const reset = await api(env.url, 'PATCH', `${W}/r`, { metadata: { managedFields: [{}] } }, MERGE);
    assert.equal(reset.body.metadata.managedFields, undefined);
    const upd = await api(env.url, 'PATCH', `${W}/r?fieldManager=bob`, { spec: { size: 9 } }, MERGE);
    assert.equal(upd.body.metadata.managedFields, undefined);
    const first = await api(
      env.url,
      'PATCH',
      `${W}/r?fieldManager=carol`,
      JSON.stringify(widget('r', { replicas: 6 })),
      APPLY,
    );
    assert.equal(
      first.body.message,
      'Apply failed with 1 conflict: conflict with "before-first-apply" using fidelity.crdgen.dev/v1: .spec.replicas',
    );
  });

  it('the apiserver’s apply errors: 500 for a configuration that does not fit the schema, 400 for another kind', async () => {
    const bogus = await api(
      env.url,
      'PATCH',
      `${W}/e?fieldManager=a`,
      JSON.stringify(widget('e', { bogus: 1 })),
      APPLY,
    );
    assert.deepEqual(
      [bogus.status, bogus.body.reason, bogus.body.message],
      [
        500,
        undefined,
        'failed to create typed patch object (/e; fidelity.crdgen.dev/v1, Kind=Widget): .spec.bogus: field not declared in schema',
      ],
    );
    const type = await api(env.url, 'PATCH', `${W}/e?fieldManager=a`, JSON.stringify(widget('e', { color: 5 })), APPLY);
    assert.equal(
      type.body.message,
      'failed to create typed patch object (/e; fidelity.crdgen.dev/v1, Kind=Widget): .spec.color: expected string, got &value.valueUnstructured{Value:5}',
    );
    const kind = await api(
      env.url,
      'PATCH',
      `${W}/e?fieldManager=a`,
      JSON.stringify({ ...widget('e'), kind: 'Gadget' }),
      APPLY,
    );
    assert.deepEqual(
      [kind.status, kind.body.message],
      [400, 'invalid object type: fidelity.crdgen.dev/v1, Kind=Gadget'],
    );
    const mf = await api(
      env.url,
      'PATCH',
      `${W}/e?fieldManager=a`,
      JSON.stringify(widget('e', {}, { managedFields: [] })),
      APPLY,
    );
    assert.deepEqual([mf.status, mf.body.message], [400, 'metadata.managedFields must be nil']);
    assert.equal((await api(env.url, 'GET', `${W}/e`)).status, 404);
  });

  it('a field the CRD now calls atomic: granular ownership of it becomes ownership of the whole', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'cogs.p.example.com' },
      spec: {
        group: 'p.example.com',
        names: { kind: 'Cog', plural: 'cogs' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      a: { type: 'string' },
                      labels: { type: 'object', additionalProperties: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    assert.equal(
      (await api(env.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
      201,
    );
    const COGS = '/apis/p.example.com/v1/namespaces/default/cogs';
    const cog = (spec: Json): string =>
      JSON.stringify({ apiVersion: 'p.example.com/v1', kind: 'Cog', metadata: { name: 's' }, spec });
    assert.equal(
      (await api(env.url, 'PATCH', `${COGS}/s?fieldManager=alice`, cog({ labels: { x: '1', y: '2' } }), APPLY)).status,
      201,
    );
    const atomic = [
      {
        op: 'add',
        path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/labels/x-kubernetes-map-type',
        value: 'atomic',
      },
    ];
    assert.equal(
      (
        await api(
          env.url,
          'PATCH',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cogs.p.example.com',
          atomic,
          { 'Content-Type': 'application/json-patch+json' },
        )
      ).status,
      200,
    );
    const b = await api(env.url, 'PATCH', `${COGS}/s?fieldManager=bob`, cog({ a: 'z' }), APPLY);
    assert.deepEqual(byManager(b.body.metadata.managedFields)['alice/Apply'], { 'f:spec': { 'f:labels': {} } });
    const c = await api(env.url, 'PATCH', `${COGS}/s?fieldManager=carol`, cog({ labels: { x: '1' } }), APPLY);
    assert.equal(c.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.labels');
  });

  it('property: after any sequence of applies and updates, an apply leaves every applied field in place, and the same apply again changes nothing', async () => {
    const spec = fc.record(
      {
        // (an empty set or map list is not owned: applying one after the applier's last item went
        // adds the empty list, as the apiserver does; and emptying a granular map or struct one owned
        // items of leaves null there, which testenv drops where the apiserver refuses it: see
        // docs/testing.md. So the property uses non-empty ones.)
        tags: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }),
        ports: fc.uniqueArray(
          fc.record({ name: fc.constantFrom('http', 'grpc', 'x'), port: fc.integer({ min: 1, max: 3 }) }),
          { selector: (p) => p.name, minLength: 1, maxLength: 2 },
        ),
        labels: fc.dictionary(fc.constantFrom('k1', 'k2', 'k3'), fc.constantFrom('1', '2'), { minKeys: 1 }),
        matrix: fc.array(fc.constantFrom('m1', 'm2'), { maxLength: 2 }),
        selector: fc.record({ app: fc.constantFrom('a', 'b') }, { requiredKeys: [] }),
        limits: fc.record(
          { cpu: fc.constantFrom('1', '2'), memory: fc.constantFrom('1', '2') },
          { requiredKeys: ['cpu'] },
        ),
        replicas: fc.integer({ min: 0, max: 3 }),
      },
      { requiredKeys: [] },
    );
    const step = fc.record({
      manager: fc.constantFrom('alice', 'bob', 'carol'),
      kind: fc.constantFrom('apply', 'apply', 'merge'),
      spec,
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const name = `p${n++}`;
        for (const s of steps) {
          if (s.kind === 'merge') {
            const r = await api(env.url, 'PATCH', `${W}/${name}?fieldManager=${s.manager}`, { spec: s.spec }, MERGE);
            assert.ok(r.status === 200 || r.status === 404, JSON.stringify(r.body));
            continue;
          }
          const body = JSON.stringify(widget(name, s.spec));
          const r = await api(env.url, 'PATCH', `${W}/${name}?fieldManager=${s.manager}&force=true`, body, APPLY);
          assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
          for (const [k, v] of Object.entries(JSON.parse(JSON.stringify(s.spec)) as Json)) {
            const got = r.body.spec[k];
            if (Array.isArray(v) && k !== 'matrix')
              for (const item of v)
                assert.ok(
                  got.some((g: unknown) => JSON.stringify(g) === JSON.stringify(item)),
                  `${k} keeps ${JSON.stringify(item)}`,
                );
            else if (v && typeof v === 'object' && !Array.isArray(v) && k !== 'selector')
              for (const [kk, vv] of Object.entries(v)) assert.equal(got[kk], vv);
            else assert.deepEqual(got, v, k);
          }
          const again = await api(env.url, 'PATCH', `${W}/${name}?fieldManager=${s.manager}&force=true`, body, APPLY);
          assert.equal(
            again.body.metadata.resourceVersion,
            r.body.metadata.resourceVersion,
            'the same apply again is a no-op',
          );
        }
      }),
      { numRuns: 40, seed: 20261201 },
    );
  });

  it('a stored object is read as the apiserver decodes it: unknown fields of a built-in and of metadata do not break apply', async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    assert.equal(
      (
        await api(env.url, 'POST', `${CMS}?fieldValidation=Ignore`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'odd' },
          bogus: true,
          data: { a: '1' },
        })
      ).status,
      201,
    );
    const r = await api(
      env.url,
      'PATCH',
      `${CMS}/odd?fieldManager=alice`,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'odd' }, data: { b: '2' } }),
      APPLY,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(byManager(r.body.metadata.managedFields)['alice/Apply'], { 'f:data': { 'f:b': {} } });
    const m = await api(env.url, 'PATCH', `${W}/m`, { metadata: 'strin' }, MERGE);
    assert.equal(m.status, 422);
    assert.match(
      m.body.message,
      /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal string into Go value of type v1\.ObjectMeta$/,
    );
  });

  it('built-ins follow their Kubernetes schema: a Deployment’s containers by name, ports by containerPort+protocol, selector atomic', async () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
        },
      },
    };
    const c = await api(env.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', d);
    assert.equal(c.status, 201);
    const spec = c.body.metadata.managedFields[0].fieldsV1['f:spec'];
    assert.equal(spec['.'], undefined, 'the empty Deployment already has a spec');
    assert.deepEqual(spec['f:selector'], {});
    assert.deepEqual(spec['f:template']['f:spec']['f:containers']['k:{"name":"c"}']['f:ports'], {
      '.': {},
      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
    });
    const b = await api(
      env.url,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=bob',
      JSON.stringify({
        ...d,
        spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } },
      }),
      APPLY,
    );
    assert.equal(b.status, 409);
    assert.equal(
      b.body.message,
      'Apply failed with 1 conflict: conflict with "unknown" using apps/v1: .spec.template.spec.containers[name="c"].image',
    );
  });
});
