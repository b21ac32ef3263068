// CEL rules metered at run time as kube-apiserver meters them: a rule whose evaluation passes the
// per-call limit (1,000,000) and an object whose rules together pass the per-object budget
// (10,000,000) are refused with the apiserver's messages — by crdgen's validator, by the test
// server, and by the real kube-apiserver v1.37 (the judge), alike; an object just under the budget
// is accepted by all three. The rules' costs are quadratic in a list's length: 5n² + 5n + 2 for
// `self.all(x, self.all(y, y >= 0))` over n integers (cel-go's runtime cost), so the objects sit
// well clear of the limits (per call: 5,005,002 at n = 1,000; per object: 12 rules of 884,102 at
// n = 420 pass the budget at the twelfth rule, 12 of 802,002 at n = 400 stay under it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/runtime/index.js';
import { compileValidator, formatFieldError } from '../../src/runtime/validation/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { BACKENDS } from '../support/backends.js';
import { raw } from '../support/raw.js';

const QUADRATIC = 'self.all(x, self.all(y, y >= 0))';
const BUDGET_RULES = 12;
const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        big: {
          type: 'array',
          maxItems: 1000,
          items: { type: 'integer' },
          'x-kubernetes-validations': [{ rule: QUADRATIC }],
        },
        many: {
          type: 'object',
          properties: { l: { type: 'array', maxItems: 420, items: { type: 'integer' } } },
          'x-kubernetes-validations': Array.from({ length: BUDGET_RULES }, (_, i) => ({
            rule: `size(self.l) >= ${i} && self.l.all(x, self.l.all(y, y >= 0))`,
            message: `rule ${i}`,
          })),
        },
      },
    },
  },
};
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'costs.metering.crdgen.dev' },
  spec: {
    group: 'metering.crdgen.dev',
    scope: 'Namespaced',
    names: { kind: 'Cost', plural: 'costs', singular: 'cost', listKind: 'CostList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
} as KubeObject;

const ints = (n: number) => Array.from({ length: n }, (_, i) => i);
const CASES: { name: string; spec: Record<string, unknown>; errors: string[] }[] = [
  {
    name: 'per-call',
    spec: { big: ints(1000) },
    errors: [
      `spec.big: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${QUADRATIC}`,
    ],
  },
  {
    name: 'budget',
    spec: { many: { l: ints(420) } },
    errors: [
      'spec.many: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ],
  },
  { name: 'under', spec: { many: { l: ints(400) } }, errors: [] },
];

const obj = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'metering.crdgen.dev/v1',
  kind: 'Cost',
  metadata: { name, namespace: 'default' },
  spec,
});

/** The apiserver's 422 message for `errors` on a Cost named `name`. */
const invalidMessage = (name: string, errors: string[]) =>
  `Cost.metering.crdgen.dev "${name}" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;

test("crdgen's validator meters rules as the apiserver does", () => {
  const v = compileValidator(schema);
  assert.deepEqual(v.problems, []);
  for (const c of CASES) assert.deepEqual(v.validate(obj(c.name, c.spec)).map(formatFieldError), c.errors, c.name);
});

const answers = new Map<string, { status: number; message?: string }[]>();
for (const backend of BACKENDS) {
  test(`rules metered on ${backend.name}: per-call limit, per-object budget`, { timeout: 300_000 }, async () => {
    let env: ApiServerHandle | undefined;
    const mine: { status: number; message?: string }[] = [];
    try {
      env = await backend.start({ crds: [CRD] });
      for (const c of CASES) {
        const r = await raw(env, 'POST', '/apis/metering.crdgen.dev/v1/namespaces/default/costs?dryRun=All', {
          body: obj(c.name, c.spec),
          timeoutMs: 120_000,
        });
        mine.push({ status: r.status, ...(r.status >= 400 ? { message: r.body?.message as string } : {}) });
        if (c.errors.length === 0) assert.equal(r.status, 201, `${c.name}: ${r.text.slice(0, 400)}`);
        else {
          assert.equal(r.status, 422, `${c.name}: ${r.text.slice(0, 400)}`);
          assert.equal(r.body.message, invalidMessage(c.name, c.errors), c.name);
        }
      }
    } finally {
      await env?.stop();
    }
    answers.set(backend.name, mine);
  });
}

test('the test server answers as kube-apiserver', () => {
  assert.ok(answers.has('testenv') && answers.has('real'), 'both backends ran');
  assert.deepEqual(answers.get('testenv'), answers.get('real'));
});
