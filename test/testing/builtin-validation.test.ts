// Validation of the built-in kinds as kube-apiserver v1.37.1 validates them: ConfigMap and
// Secret keys, immutability and Secret types; Deployments (selector, pod template, strategy);
// Leases; Namespace finalizers; the fields a Go struct always has.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { api } from './helpers.js';

const NS = '/api/v1/namespaces/default';
const CMS = `${NS}/configmaps`;
const SECRETS = `${NS}/secrets`;
const DEPS = '/apis/apps/v1/namespaces/default/deployments';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const causes = (body: { details?: { causes?: { field: string; message: string }[] } }): string[] =>
  (body.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`).sort();

describe('built-in validation', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer();
  });
  after(() => env.stop());

  it('ConfigMap: config keys, a key in both maps; immutable data, binaryData and immutable itself', async () => {
    const bad = await api(env.url, 'POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c1' },
      data: { 'bad key': 'x', '..x': '1', k: 'a' },
      binaryData: { k: 'AA==', 'b/c': 'AA==' },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(causes(bad.body), [
      `binaryData[b/c]: Invalid value: "b/c": ${KEY_MSG}`,
      'data[..x]: Invalid value: "..x": must not start with \'..\'',
      `data[bad key]: Invalid value: "bad key": ${KEY_MSG}`,
      'data[k]: Invalid value: "k": duplicate of key present in binaryData',
    ]);
    await api(env.url, 'POST', CMS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c2' },
      data: { a: '1' },
      binaryData: { b: 'AA==' },
      immutable: true,
    });
    const change = await api(env.url, 'PUT', `${CMS}/c2`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c2' },
      data: { a: 'changed' },
      immutable: true,
    });
    assert.equal(
      change.body.message,
      'ConfigMap "c2" is invalid: [data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]',
    );
    const unset = await api(env.url, 'PATCH', `${CMS}/c2`, { immutable: false }, MERGE);
    assert.equal(
      unset.body.message,
      'ConfigMap "c2" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    );
    const meta = await api(env.url, 'PATCH', `${CMS}/c2`, { metadata: { labels: { x: 'y' } } }, MERGE);
    assert.equal(meta.status, 200, 'metadata may change');
  });

  it('Secret: keys (stringData merged in first), the type rules, the type and immutable data fixed once set', async () => {
    const secret = (name: string, extra: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      ...extra,
    });
    const keys = await api(
      env.url,
      'POST',
      SECRETS,
      secret('s1', { data: { 'bad key': 'AA==' }, stringData: { 'x y': '1' } }),
    );
    assert.deepEqual(causes(keys.body), [
      `data[bad key]: Invalid value: "bad key": ${KEY_MSG}`,
      `data[x y]: Invalid value: "x y": ${KEY_MSG}`,
    ]);
    const types: [Record<string, unknown>, string[]][] = [
      [{ type: 'kubernetes.io/tls', data: {} }, ['data[tls.crt]: Required value', 'data[tls.key]: Required value']],
      [{ type: 'kubernetes.io/basic-auth' }, ['data[password]: Required value', 'data[username]: Required value']],
      [{ type: 'kubernetes.io/ssh-auth' }, ['data[ssh-privatekey]: Required value']],
      [{ type: 'kubernetes.io/dockercfg' }, ['data[.dockercfg]: Required value']],
      [
        { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{bad' } },
        [
          'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'b\' looking for beginning of object key string',
        ],
      ],
      [
        { type: 'kubernetes.io/service-account-token' },
        ['metadata.annotations[kubernetes.io/service-account.name]: Required value'],
      ],
    ];
    for (const [extra, want] of types) {
      const r = await api(env.url, 'POST', SECRETS, secret('t', extra));
      assert.equal(r.status, 422, String(extra.type));
      assert.deepEqual(causes(r.body), want);
    }
    assert.equal(
      (
        await api(
          env.url,
          'POST',
          SECRETS,
          secret('t', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":{}}' } }),
        )
      ).status,
      201,
    );
    await api(env.url, 'POST', SECRETS, secret('s9', { stringData: { a: 'x' }, immutable: true }));
    const upd = await api(
      env.url,
      'PUT',
      `${SECRETS}/s9`,
      secret('s9', { type: 'kubernetes.io/basic-auth', data: { a: 'eQ==', username: 'dQ==' } }),
    );
    assert.deepEqual(causes(upd.body), [
      'data: Forbidden: field is immutable when `immutable` is set',
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
    ]);
  });

  it('Deployment: the selector must select the template; container, port, strategy and limit errors; the selector is immutable', async () => {
    const dep = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec,
    });
    const noSel = await api(
      env.url,
      'POST',
      DEPS,
      dep('d0', {
        template: { metadata: { labels: { app: 'd2' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      }),
    );
    assert.deepEqual(causes(noSel.body), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"d2"}: `selector` does not match template `labels`',
    ]);
    const many = await api(
      env.url,
      'POST',
      DEPS,
      dep('d1', {
        replicas: -1,
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'y' } },
          spec: {
            containers: [{ name: 'Bad_Name' }, { image: 'i' }, { name: 'c', image: 'i' }, { name: 'c', image: 'j' }],
            restartPolicy: 'Never',
          },
        },
      }),
    );
    assert.deepEqual(causes(many.body), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: {"app":"y"}: `selector` does not match template `labels`',
      'spec.template.spec.containers[0].image: Required value',
      "spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.template.spec.containers[1].name: Required value',
      'spec.template.spec.containers[3].name: Duplicate value: "c"',
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
    const exprs = await api(
      env.url,
      'POST',
      DEPS,
      dep('d3', {
        selector: {
          matchExpressions: [
            { key: 'app', operator: 'In', values: ['x'] },
            { key: 'tier', operator: 'Exists' },
          ],
        },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'i',
                ports: [{ containerPort: 0 }],
                resources: { limits: { cpu: '500m' }, requests: { cpu: '1' } },
              },
            ],
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
      }),
    );
    assert.deepEqual(causes(exprs.body), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
      'spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`',
      'spec.template.spec.containers[0].ports[0].containerPort: Required value',
      'spec.template.spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
    ]);
    assert.equal(
      (
        await api(
          env.url,
          'POST',
          DEPS,
          dep('d7', {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          }),
        )
      ).status,
      201,
    );
    const imm = await api(
      env.url,
      'PATCH',
      `${DEPS}/d7`,
      { spec: { selector: { matchLabels: { app: 'z' } }, template: { metadata: { labels: { app: 'z' } } } } },
      MERGE,
    );
    assert.equal(
      imm.body.message,
      'Deployment.apps "d7" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"z"}}: field is immutable',
    );
  });

  it('Lease: durations checked, the gated strategy fields dropped, spec {} always; Namespace finalizers qualified', async () => {
    const l = await api(env.url, 'POST', LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l1' },
      spec: { leaseDurationSeconds: 0, leaseTransitions: -1 },
    });
    assert.equal(
      l.body.message,
      'Lease.coordination.k8s.io "l1" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
    const g = await api(env.url, 'POST', LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l2' },
      spec: { strategy: 'Bogus', preferredHolder: 'x' },
    });
    assert.deepEqual(g.body.spec, {});
    const e = await api(env.url, 'POST', LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l3' },
    });
    assert.deepEqual(e.body.spec, {});
    const ns = await api(env.url, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'nsf' },
      spec: { finalizers: ['bad', 'a/b'] },
    });
    assert.equal(
      ns.body.message,
      'Namespace "nsf" is invalid: spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
    );
  });
});
