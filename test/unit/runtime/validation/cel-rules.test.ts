// x-kubernetes-validations: messages, messageExpression, reason, fieldPath, transition rules,
// blocking errors, runtime errors, unsupported rules reported at load time, precompiled form.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCrdRequest } from '../../../../src/input/crd/check.js';
import {
  compileValidator,
  formatFieldError,
  lazyValidator,
  precompileSchema,
  RuleCompileError,
  SchemaError,
  type SchemaNode,
} from '../../../../src/runtime/validation/index.js';

function withRules(
  rules: unknown[],
  props: Record<string, unknown> = { a: { type: 'integer' }, b: { type: 'integer' } },
): SchemaNode {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: props as Record<string, SchemaNode>,
        'x-kubernetes-validations': rules as SchemaNode['x-kubernetes-validations'],
      },
    },
  };
}

const lines = (schema: unknown, obj: unknown, old?: unknown) =>
  compileValidator(schema).validate(obj, old).map(formatFieldError);

describe('CEL rules', () => {
  it('a failing rule reports its message at the node (an object or array value is omitted, as the apiserver does)', () => {
    const s = withRules([{ rule: 'self.a < self.b', message: 'a must be less than b' }]);
    assert.deepEqual(lines(s, { spec: { a: 1, b: 2 } }), []);
    assert.deepEqual(lines(s, { spec: { a: 3, b: 2 } }), ['spec: Invalid value: a must be less than b']);
  });

  it('without a message: "failed rule: <rule>"', () => {
    assert.deepEqual(lines(withRules([{ rule: 'self.a == 1' }]), { spec: { a: 2 } }), [
      'spec: Invalid value: failed rule: self.a == 1',
    ]);
  });

  it('messageExpression is evaluated; an empty or failing one falls back to message', () => {
    const s = withRules([
      { rule: 'self.a < 5', messageExpression: "'a is ' + string(self.a) + ', too big'", message: 'fallback' },
    ]);
    assert.deepEqual(lines(s, { spec: { a: 7 } }), ['spec: Invalid value: a is 7, too big']);
    const empty = withRules([{ rule: 'self.a < 5', messageExpression: "''", message: 'fallback' }]);
    assert.deepEqual(lines(empty, { spec: { a: 7 } }), ['spec: Invalid value: fallback']);
    const failing = withRules([{ rule: 'self.a < 5', messageExpression: 'string(self.a / 0)', message: 'fallback' }]);
    assert.deepEqual(lines(failing, { spec: { a: 7 } }), ['spec: Invalid value: fallback']);
  });

  it('reason and fieldPath shape the error', () => {
    const s = withRules([
      { rule: 'has(self.a)', reason: 'FieldValueRequired', fieldPath: '.a', message: 'a is required' },
      { rule: 'self.b != 0', reason: 'FieldValueForbidden', message: 'b must not be zero' },
      { rule: 'false', reason: 'FieldValueDuplicate' },
    ]);
    const errs = compileValidator(s).validate({ spec: { b: 0 } });
    assert.deepEqual(errs, [
      { reason: 'FieldValueRequired', field: 'spec.a', message: 'Required value: a is required' },
      { reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: b must not be zero' },
      { reason: 'FieldValueDuplicate', field: 'spec', message: 'Duplicate value' },
    ]);
    const bracket = withRules([{ rule: 'false', fieldPath: "['a']", message: 'm' }]);
    assert.deepEqual(lines(bracket, { spec: {} }), ['spec.a: Invalid value: m']);
  });

  it('rules on the root are reported at <nil>; on list items and map values at their index/key', () => {
    const root = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('ok')", message: 'bad name' }],
    };
    assert.deepEqual(lines(root, { metadata: { name: 'nope' } }), ['<nil>: Invalid value: bad name']);
    const items = {
      type: 'object',
      properties: {
        l: {
          type: 'array',
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'x'", message: 'no x' }] },
        },
        m: {
          type: 'object',
          additionalProperties: {
            type: 'integer',
            'x-kubernetes-validations': [{ rule: 'self > 0', message: 'positive' }],
          },
        },
      },
    };
    assert.deepEqual(lines(items, { l: ['a', 'x'], m: { k: 0 } }), [
      'l[1]: Invalid value: "x": no x',
      'm[k]: Invalid value: 0: positive',
    ]);
  });

  it('transition rules (oldSelf) run only on update, with the correlated old value', () => {
    const s = withRules([{ rule: 'self.a >= oldSelf.a', message: 'a may not decrease' }]);
    assert.deepEqual(lines(s, { spec: { a: 1 } }), [], 'create: not evaluated');
    assert.deepEqual(lines(s, { spec: { a: 1 } }, { spec: { a: 2 } }), ['spec: Invalid value: a may not decrease']);
    assert.deepEqual(lines(s, { spec: { a: 3 } }, { spec: { a: 2 } }), []);
    assert.deepEqual(lines(s, { spec: { a: 1 } }, {}), [], 'no old value for the node: not evaluated');
  });

  it('transition rules in list-type map items correlate by key; other lists do not correlate', () => {
    const item = {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 63 },
        v: {
          type: 'string',
          maxLength: 63,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
        },
      },
    };
    const s = {
      type: 'object',
      properties: {
        m: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: item,
        },
      },
    };
    const old = {
      m: [
        { name: 'x', v: '1' },
        { name: 'y', v: '2' },
      ],
    };
    assert.deepEqual(
      lines(
        s,
        {
          m: [
            { name: 'y', v: '2' },
            { name: 'x', v: '1' },
          ],
        },
        old,
      ),
      [],
      'reordered but unchanged',
    );
    assert.deepEqual(lines(s, { m: [{ name: 'x', v: 'changed' }] }, old), [
      'm[0].v: Invalid value: "changed": immutable',
    ]);
    assert.deepEqual(lines(s, { m: [{ name: 'new', v: 'z' }] }, old), [], 'new key: no old value');
    // in an atomic list old and new items do not correlate: the apiserver refuses the rule
    const atomic = { type: 'object', properties: { a: { type: 'array', maxItems: 10, items: item } } };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', plural: 'widgets' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: atomic } }],
      },
    };
    assert.deepEqual(
      checkCrdRequest(crd).causes.map((c) => `${c.error.field}: ${c.error.message}`),
      [
        'spec.validation.openAPIV3Schema.properties[a].items.properties[v].x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[a]',
      ],
    );
    const runtime = compileValidator(atomic, { eagerRules: false });
    assert.deepEqual(
      runtime.validate({ a: [{ name: 'x', v: 'changed' }] }, { a: [{ name: 'x', v: '1' }] }).map((e) => e.message),
      [],
      'no old value reaches items of an atomic list',
    );
  });

  it('list-type set and map lists compare without regard to order (self == oldSelf)', () => {
    const s = {
      type: 'object',
      properties: {
        set: {
          type: 'array',
          'x-kubernetes-list-type': 'set',
          items: { type: 'string' },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'set immutable' }],
        },
        map: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer' } } },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'map immutable' }],
        },
        atomic: {
          type: 'array',
          items: { type: 'string' },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'atomic immutable' }],
        },
      },
    };
    const old = {
      set: ['a', 'b'],
      map: [
        { k: 'x', v: 1 },
        { k: 'y', v: 2 },
      ],
      atomic: ['a', 'b'],
    };
    assert.deepEqual(
      lines(
        s,
        {
          set: ['b', 'a'],
          map: [
            { k: 'y', v: 2 },
            { k: 'x', v: 1 },
          ],
          atomic: ['b', 'a'],
        },
        old,
      ),
      ['atomic: Invalid value: atomic immutable'],
    );
    assert.deepEqual(
      lines(
        s,
        {
          set: ['a', 'c'],
          map: [
            { k: 'x', v: 1 },
            { k: 'y', v: 3 },
          ],
          atomic: ['a', 'b'],
        },
        old,
      ),
      ['set: Invalid value: set immutable', 'map: Invalid value: map immutable'],
    );
  });

  it('rules under allOf run on the node value, typed by the node', () => {
    const s = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      allOf: [
        { 'x-kubernetes-validations': [{ rule: 'self.a < self.b && type(self.a) == double', message: 'a < b' }] },
      ],
    };
    assert.deepEqual(lines(s, { a: 1, b: 2 }), []);
    assert.deepEqual(lines(s, { a: 3, b: 2 }), ['<nil>: Invalid value: a < b']);
    // the apiserver does not compile rules under allOf when it admits the CRD; it reports them on each object
    const bad = compileValidator({ ...s, allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.c == 1' }] }] });
    assert.match(
      bad.validate({ a: 1, b: 2 })[0].message,
      /rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'c'/,
    );
  });

  it('the immutable-field idiom of the corpus (self == oldSelf on a string)', () => {
    const s = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            controllerName: {
              type: 'string',
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }],
            },
          },
        },
      },
    };
    assert.deepEqual(lines(s, { spec: { controllerName: 'b' } }, { spec: { controllerName: 'a' } }), [
      'spec.controllerName: Invalid value: "b": Value is immutable',
    ]);
    assert.deepEqual(lines(s, { spec: { controllerName: 'a' } }, { spec: { controllerName: 'a' } }), []);
  });

  it('blocking schema errors skip CEL and say so; non-blocking ones do not', () => {
    const s = withRules([{ rule: 'self.a < 5', message: 'small' }], {
      a: { type: 'integer', maximum: 10 },
      b: { type: 'string', enum: ['x'] },
    });
    assert.deepEqual(lines(s, { spec: { a: 11 } }), [
      'spec.a: Invalid value: 11: spec.a in body should be less than or equal to 10',
      'spec: Invalid value: small',
    ]);
    assert.deepEqual(lines(s, { spec: { a: 7, b: 'y' } }), [
      'spec.b: Unsupported value: "y": supported values: "x"',
      '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('runtime errors are reported with the rule, in the apiserver wording', () => {
    assert.deepEqual(lines(withRules([{ rule: 'self.a == 1' }]), { spec: {} }), [
      'spec: Invalid value: "object": no such key: a evaluating rule: self.a == 1',
    ]);
    assert.deepEqual(lines(withRules([{ rule: 'self.a / self.b > 0', message: 'ratio' }]), { spec: { a: 1, b: 0 } }), [
      'spec: Invalid value: "object": division by zero evaluating rule: ratio',
    ]);
    // statically typed, `self.a + 'x'` is refused when compiled; through dyn it fails when evaluated
    const overload = lines(withRules([{ rule: "self.a == 1 && dyn(self.a) + 'x' == 'y'", message: 'm' }]), {
      spec: { a: 1 },
    });
    assert.equal(overload.length, 1);
    assert.match(
      overload[0],
      /^spec: Invalid value: "object": 'no such overload: .*': call arguments did not match a supported operator, function or macro signature for rule: m$/,
    );
  });

  it('a rule that cannot be compiled is reported once, at load time, with where and why', () => {
    const s = {
      type: 'object',
      properties: {
        spec: withRules([{ rule: 'self.a.frobnicate() && unknownFn(1)' }, { rule: 'self.a ==' }]).properties!.spec,
      },
    };
    assert.throws(
      () => compileValidator(s),
      (e: unknown) => {
        assert.ok(e instanceof RuleCompileError);
        assert.equal(e.problems.length, 2);
        assert.deepEqual(e.problems[0], {
          schemaPath: 'spec',
          field: 'openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
          segments: ['properties', 'spec', 'x-kubernetes-validations', 0, 'rule'],
          rule: 'self.a.frobnicate() && unknownFn(1)',
          message:
            "ERROR: <input>:1:18: undeclared reference to 'frobnicate' (in container '')\n | self.a.frobnicate() && unknownFn(1)\n | .................^\n" +
            "ERROR: <input>:1:33: undeclared reference to 'unknownFn' (in container '')\n | self.a.frobnicate() && unknownFn(1)\n | ................................^",
          detail:
            'Invalid value: {"Rule":"self.a.frobnicate() \\u0026\\u0026 unknownFn(1)","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ' +
            "ERROR: <input>:1:18: undeclared reference to 'frobnicate' (in container '')\n | self.a.frobnicate() && unknownFn(1)\n | .................^\n" +
            "ERROR: <input>:1:33: undeclared reference to 'unknownFn' (in container '')\n | self.a.frobnicate() && unknownFn(1)\n | ................................^",
        });
        assert.match(e.problems[1].message, /^ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting/);
        assert.match(e.message, /2 validation rules cannot be compiled/);
        return true;
      },
    );
  });

  it('a field the schema does not declare is a compile error, as in the apiserver; maps and unknown fields are dynamic', () => {
    assert.throws(() => compileValidator(withRules([{ rule: 'self.missing == 1' }])), /undefined field 'missing'/);
    assert.throws(
      () =>
        compileValidator(
          withRules([{ rule: 'self.l.all(x, x.nope == 1)' }], {
            l: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          }),
        ),
      /undefined field 'nope'/,
    );
    const root = (rule: string) => ({
      type: 'object',
      properties: { spec: { type: 'object' } },
      'x-kubernetes-validations': [{ rule }],
    });
    assert.doesNotThrow(() => compileValidator(root("self.metadata.name != '' && self.kind != '' && has(self.spec)")));
    assert.throws(
      () => compileValidator(root('has(self.metadata.labels)')),
      /undefined field 'labels'/,
      'only metadata.name/generateName are visible',
    );
    assert.doesNotThrow(() =>
      compileValidator(
        withRules([{ rule: "self.m.anything == 'x'" }], {
          m: { type: 'object', additionalProperties: { type: 'string' } },
        }),
      ),
    );
    // a preserve-unknown-fields object without properties is an object with no fields (as the apiserver types it)
    assert.throws(
      () =>
        compileValidator(
          withRules([{ rule: 'self.f.whatever == 1' }], {
            f: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          }),
        ),
      /undefined field 'whatever'/,
    );
    // int-or-string is dyn
    assert.doesNotThrow(() =>
      compileValidator(
        withRules([{ rule: "self.p == 1 || self.p == 'x'" }], { p: { 'x-kubernetes-int-or-string': true } }),
      ),
    );
  });

  it('properties with special characters are reached through their escaped names', () => {
    const s = withRules([{ rule: "self.foo__dash__bar == 'x' && self.__namespace__ == 'n'", message: 'm' }], {
      'foo-bar': { type: 'string' },
      namespace: { type: 'string' },
    });
    assert.deepEqual(lines(s, { spec: { 'foo-bar': 'x', namespace: 'n' } }), []);
    assert.deepEqual(lines(s, { spec: { 'foo-bar': 'y', namespace: 'n' } }), ['spec: Invalid value: m']);
    assert.throws(
      () => compileValidator(withRules([{ rule: "self.foo-bar == 'x'" }], { 'foo-bar': { type: 'string' } })),
      /undeclared reference to 'bar'/,
    );
  });

  it("with unsupportedRules: 'report', such rules fail validation instead of passing", () => {
    const v = compileValidator(withRules([{ rule: 'self.a.frobnicate()' }, { rule: 'self.a == 1', message: 'one' }]), {
      unsupportedRules: 'report',
    });
    assert.equal(v.problems.length, 1);
    assert.deepEqual(v.validate({ spec: { a: 1 } }).map(formatFieldError), [
      "spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:18: undeclared reference to 'frobnicate' (in container '')\n | self.a.frobnicate()\n | .................^",
    ]);
  });

  it('optional syntax and optionalOldSelf (oldSelf is an optional, the rule runs on create too)', () => {
    const opt = withRules([{ rule: 'self.?a.orValue(1) == 1', message: 'a is 1 or unset' }]);
    assert.deepEqual(lines(opt, { spec: {} }), []);
    assert.deepEqual(lines(opt, { spec: { a: 2 } }), ['spec: Invalid value: a is 1 or unset']);
    const ratchet = withRules([
      {
        rule: '!oldSelf.hasValue() || self.a >= oldSelf.value().a',
        optionalOldSelf: true,
        message: 'a may not decrease',
      },
    ]);
    assert.deepEqual(lines(ratchet, { spec: { a: 1 } }), [], 'create: oldSelf is optional.none()');
    assert.deepEqual(lines(ratchet, { spec: { a: 1 } }, { spec: { a: 2 } }), [
      'spec: Invalid value: a may not decrease',
    ]);
    assert.throws(
      () => compileValidator(withRules([{ rule: 'self.a > 0', optionalOldSelf: true }])),
      /may not be set if oldSelf is not used in rule/,
    );
  });

  it('the precompiled form is plain JSON and validates identically, compiling rules lazily', () => {
    const s = withRules([{ rule: 'self.a < self.b', message: 'a < b' }]);
    const pre = JSON.parse(JSON.stringify(precompileSchema({ ...s, description: 'dropped' })));
    assert.equal(pre.crdgenValidation, 1);
    assert.ok(!('description' in pre.schema));
    const v = compileValidator(pre);
    assert.deepEqual(v.validate({ spec: { a: 2, b: 1 } }).map(formatFieldError), ['spec: Invalid value: a < b']);
    assert.throws(
      () => precompileSchema(withRules([{ rule: 'nope(' }])),
      RuleCompileError,
      'generation refuses rules it cannot evaluate',
    );
    const broken = { crdgenValidation: 1 as const, schema: withRules([{ rule: 'nope(' }]) };
    const lazy = compileValidator(broken);
    assert.deepEqual(lazy.problems, [], 'precompiled: not compiled at load');
    assert.match(
      lazy.validate({ spec: {} }).map(formatFieldError)[0],
      /rule compile error: compilation failed: ERROR: <input>:1:6: Syntax error/,
    );
  });

  it('precompileSchema refuses a bad pattern whether or not the schema has rules, at the same path', () => {
    const badPattern = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string', pattern: '(' } } } },
      },
    };
    const expected = (e: unknown): boolean =>
      e instanceof SchemaError && e.path === 'properties.spec.properties.list.items.pattern';
    assert.throws(() => precompileSchema(badPattern), expected, 'without rules');
    const withARule = structuredClone(badPattern) as { properties: { spec: Record<string, unknown> } };
    withARule.properties.spec['x-kubernetes-validations'] = [{ rule: 'size(self.list) < 3' }];
    assert.throws(() => precompileSchema(withARule), expected, 'with rules');
    assert.doesNotThrow(() =>
      precompileSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^a+$' } } }),
    );
  });

  it('lazyValidator compiles on first use and then behaves as compileValidator', () => {
    const pre = precompileSchema(withRules([{ rule: 'self.a < 3', message: 'small' }]));
    const v = lazyValidator(pre);
    assert.deepEqual(v.validate({ spec: { a: 5 } }).map(formatFieldError), ['spec: Invalid value: small']);
    const obj = { spec: { a: 1, junk: true } };
    v.prune(obj);
    assert.deepEqual(obj, { spec: { a: 1 } });
    assert.deepEqual(v.problems, []);
  });

  it('values are typed by the schema: integer → int, number → double, int-or-string → either', () => {
    const s = {
      type: 'object',
      properties: {
        i: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'type(self) == int', message: 'int' }] },
        d: { type: 'number', 'x-kubernetes-validations': [{ rule: 'type(self) == double', message: 'double' }] },
        p: {
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-validations': [{ rule: "type(self) == int ? self > 0 : self.endsWith('%')", message: 'pct' }],
        },
      },
    };
    assert.deepEqual(lines(s, { i: 3, d: 3, p: 5 }), []);
    assert.deepEqual(lines(s, { p: '50%' }), []);
    assert.deepEqual(lines(s, { p: '50' }), ['p: Invalid value: "50": pct']);
  });

  it('strings with format duration, date-time and byte are durations, timestamps and bytes', () => {
    const s = {
      type: 'object',
      properties: {
        d: {
          type: 'string',
          format: 'duration',
          'x-kubernetes-validations': [{ rule: "self <= duration('1h')", message: 'at most an hour' }],
        },
        t: {
          type: 'string',
          format: 'date-time',
          'x-kubernetes-validations': [{ rule: "self > timestamp('2020-01-01T00:00:00Z')", message: 'after 2020' }],
        },
        b: {
          type: 'string',
          format: 'byte',
          'x-kubernetes-validations': [{ rule: 'size(self) == 5', message: 'five bytes' }],
        },
      },
    };
    assert.deepEqual(lines(s, { d: '30m', t: '2024-05-01T10:00:00Z', b: 'aGVsbG8=' }), []);
    assert.deepEqual(lines(s, { d: '2h', t: '2019-05-01T10:00:00Z', b: 'aGk=' }), [
      'd: Invalid value: "2h": at most an hour',
      't: Invalid value: "2019-05-01T10:00:00Z": after 2020',
      'b: Invalid value: "aGk=": five bytes',
    ]);
  });
});
