// CRDs with CEL rules (x-kubernetes-validations): rules are compiled when the CRD is created,
// as the apiserver does (one 422 cause per rule that does not compile, at the rule's path);
// accepted rules are enforced on custom resources.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import type { KubeObject } from '../../src/runtime/index.js';
import { api } from './helpers.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function widgetCrd(plural: string, rules: { rule: string; message?: string }[]): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.rules.example.com` },
    spec: {
      group: 'rules.example.com',
      scope: 'Namespaced',
      names: {
        plural,
        singular: plural.slice(0, -1),
        kind: plural[0].toUpperCase() + plural.slice(1, -1),
        listKind: `${plural[0].toUpperCase()}${plural.slice(1, -1)}List`,
      },
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
                  properties: { min: { type: 'integer' }, max: { type: 'integer' } },
                  'x-kubernetes-validations': rules,
                },
              },
            },
          },
        },
      ],
    },
  } as KubeObject;
}

describe('CRDs with CEL rules', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({
      crds: [widgetCrd('ranges', [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }])],
    });
  });
  after(() => env.stop());

  it('enforces an accepted rule on custom resources', async () => {
    const base = '/apis/rules.example.com/v1/namespaces/default/ranges';
    const ok = await api(env.url, 'POST', base, {
      apiVersion: 'rules.example.com/v1',
      kind: 'Range',
      metadata: { name: 'ok' },
      spec: { min: 1, max: 2 },
    });
    assert.equal(ok.status, 201);
    const bad = await api(env.url, 'POST', base, {
      apiVersion: 'rules.example.com/v1',
      kind: 'Range',
      metadata: { name: 'bad' },
      spec: { min: 3, max: 2 },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'Range.rules.example.com "bad" is invalid: spec: Invalid value: min must not exceed max',
    );
    assert.deepEqual(bad.body.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: min must not exceed max', field: 'spec' },
    ]);
  });

  it('refuses a CRD whose rule does not compile: one cause per rule, at its path; nothing is served', async () => {
    const crd = widgetCrd('brokens', [
      { rule: 'self.min <= self.max' },
      { rule: 'self.min >' },
      { rule: 'self.nope == 1' },
    ]);
    const r = await api(env.url, 'POST', CRDS, crd);
    assert.equal(r.status, 422);
    const causes = r.body.details.causes as { reason: string; field: string; message: string }[];
    assert.deepEqual(
      causes.map((c) => c.field),
      [1, 2].map((i) => `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[${i}].rule`),
    );
    // the value is the rule as the apiserver prints it: its ValidationRule, JSON-encoded
    assert.match(
      causes[0].message,
      /^Invalid value: \{"Rule":"self\.min \\u003e","Message":"",.*\}: compilation failed: /,
    );
    assert.match(causes[1].message, /^Invalid value: \{"Rule":"self\.nope == 1",.*\}: compilation failed: .*nope/);
    assert.ok(causes.every((c) => c.reason === 'FieldValueInvalid'));
    assert.equal((await api(env.url, 'GET', `${CRDS}/brokens.rules.example.com`)).status, 404);
    assert.equal((await api(env.url, 'GET', '/apis/rules.example.com/v1/namespaces/default/brokens')).status, 404);
  });

  it('startTestApiServer rejects such a CRD with the apiserver message', async () => {
    await assert.rejects(startTestApiServer({ crds: [widgetCrd('brokens', [{ rule: 'self.min >' }])] }), (e: Error) =>
      /^cannot create CustomResourceDefinition brokens\.rules\.example\.com: CustomResourceDefinition\.apiextensions\.k8s\.io "brokens\.rules\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self\.min \\u003e".*\}: compilation failed: /.test(
        e.message,
      ),
    );
  });
});
