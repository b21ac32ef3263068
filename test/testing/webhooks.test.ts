// Admission and conversion webhooks called by the server, on testenv and on the real
// kube-apiserver (the judge): the configurations installed by the `webhooks` option (a CA and
// serving certificate generated into a folder, Service references rewritten to the webhook
// host), the runtime's webhook server as the webhook (defaultingHandler, validatingHandler,
// hub-and-spoke ConversionReview), a two-version CRD (v1alpha1 dbtype, v1 engine + version,
// storage v1). Every answer is recorded; the last test requires testenv's to equal the real
// apiserver's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import YAML from 'yaml';
import { execFile } from 'node:child_process';
import { BACKENDS } from '../support/backends.js';
import { kubectlReal } from '../support/assets.js';
import { raw, rawWatch, type RawResponse } from '../support/raw.js';
import { type ApiServerHandle, generateCertificateSet } from '../../src/testing/index.js';
import {
  defaultingHandler,
  startWebhookServer,
  validatingHandler,
  type HubAndSpoke,
  type WebhookServer,
  type KubeObject,
} from '../../src/runtime/index.js';
import { forbidden } from '../../src/runtime/validation/field-error.js';

type Obj = KubeObject & { spec?: Record<string, unknown> };

const schema = (spec: Record<string, unknown>) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: spec },
      status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
    },
  },
});
const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'databasemanagers.coolops.cn',
    annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' },
  },
  spec: {
    group: 'coolops.cn',
    scope: 'Namespaced',
    names: {
      kind: 'DatabaseManager',
      plural: 'databasemanagers',
      singular: 'databasemanager',
      listKind: 'DatabaseManagerList',
    },
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/convert' } },
      },
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: false,
        subresources: { status: {} },
        schema: schema({
          deploymentName: { type: 'string' },
          replicas: { type: 'integer', minimum: 1, maximum: 10 },
          dbtype: { type: 'string' },
        }),
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: schema({
          deploymentName: { type: 'string' },
          replicas: { type: 'integer', minimum: 1, maximum: 10 },
          engine: { type: 'string' },
          version: { type: 'string' },
        }),
      },
    ],
  },
} as KubeObject;

const svcRef = (path: string) => ({ service: { namespace: 'system', name: 'webhook-service', path } });
const DM_RULES = [
  { operations: ['CREATE', 'UPDATE'], apiGroups: ['coolops.cn'], apiVersions: ['v1'], resources: ['databasemanagers'] },
];
const CM_RULES = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
// what a generated config/webhook/ and certmanager/ hold: the Service and cert-manager objects are not installed
const WEBHOOKS_YAML = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'webhook-service', namespace: 'system' },
    spec: { ports: [{ port: 443, targetPort: 9443 }] },
  },
  {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: 'serving-cert', namespace: 'system' },
    spec: { secretName: 'webhook-server-cert' },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: {
      name: 'databasemanager-mutating',
      annotations: { 'cert-manager.io/inject-ca-from': 'system/serving-cert' },
    },
    webhooks: [
      {
        name: 'mdatabasemanager.coolops.cn',
        clientConfig: svcRef('/mutate-coolops-cn-v1-databasemanager'),
        rules: DM_RULES,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'databasemanager-validating' },
    webhooks: [
      {
        name: 'vdatabasemanager.coolops.cn',
        clientConfig: svcRef('/validate-coolops-cn-v1-databasemanager'),
        rules: DM_RULES,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
      },
      {
        name: 'cm-fail.crdgen.dev',
        clientConfig: svcRef('/validate-configmap'),
        rules: CM_RULES,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
        objectSelector: { matchLabels: { policy: 'fail' } },
      },
      {
        name: 'cm-ignore.crdgen.dev',
        clientConfig: svcRef('/validate-configmap'),
        rules: CM_RULES,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Ignore',
        timeoutSeconds: 5,
        objectSelector: { matchLabels: { policy: 'ignore' } },
      },
    ],
  },
];

const DEFAULT_VERSION: Record<string, string> = { mysql: '8.0', postgres: '16' };

const CONVERSIONS: HubAndSpoke[] = [
  {
    group: 'coolops.cn',
    kind: 'DatabaseManager',
    hub: 'v1',
    spokes: {
      v1alpha1: {
        toHub: (o) => {
          const { dbtype, ...spec } = (o as Obj).spec ?? {};
          return { ...o, spec: { ...spec, ...(dbtype !== undefined ? { engine: dbtype } : {}) } } as KubeObject;
        },
        fromHub: (o) => {
          const { engine, version: _version, ...spec } = (o as Obj).spec ?? {};
          return { ...o, spec: { ...spec, ...(engine !== undefined ? { dbtype: engine } : {}) } } as KubeObject;
        },
      },
    },
  },
];

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

async function startHooks(port: number, certDir: string): Promise<WebhookServer> {
  const server = await startWebhookServer({ bindAddress: `127.0.0.1:${port}`, certDir, certPollIntervalMs: 200 });
  server.admission(
    '/mutate-coolops-cn-v1-databasemanager',
    defaultingHandler<Obj>((obj) => {
      const spec = (obj.spec ??= {});
      if (spec.version === undefined && typeof spec.engine === 'string')
        spec.version = DEFAULT_VERSION[spec.engine] ?? 'latest';
    }),
  );
  server.admission(
    '/validate-coolops-cn-v1-databasemanager',
    validatingHandler<Obj>(
      (obj, old, operation) => {
        if (operation === 'UPDATE' && old?.spec?.engine !== obj.spec?.engine) {
          return [forbidden('spec.engine', 'a database cannot change engine in place; create a new DatabaseManager')];
        }
        if (obj.spec?.engine === 'oracle') return { denied: 'engine "oracle" is not supported' };
        return undefined;
      },
      { kind: { group: 'coolops.cn', kind: 'DatabaseManager' } },
    ),
  );
  server.admission(
    '/validate-configmap',
    validatingHandler(() => undefined, { kind: { group: '', kind: 'ConfigMap' } }),
  );
  server.conversion('/convert', CONVERSIONS);
  return server;
}

/** The serving certificate's fingerprint the webhook server presents now. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? '';
      s.end();
      resolve(fp);
    });
    s.once('error', reject);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last ? ` (${last instanceof Error ? last.message : inspect(last)})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

const DMS = (version: string, name?: string) =>
  `/apis/coolops.cn/${version}/namespaces/default/databasemanagers${name ? `/${name}` : ''}`;
const dmV1 = (name: string, spec: Record<string, unknown>): Obj => ({
  apiVersion: 'coolops.cn/v1',
  kind: 'DatabaseManager',
  metadata: { name },
  spec: { deploymentName: name, replicas: 1, ...spec },
});
const dmV1alpha1 = (name: string, spec: Record<string, unknown>): Obj => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name },
  spec: { deploymentName: name, replicas: 1, ...spec },
});

/** What is compared between the backends: code and message of refusals (the port made neutral). */
type Answer = { code: number; message?: string };
const answers = new Map<string, Record<string, Answer>>();

for (const backend of BACKENDS) {
  test(`webhooks on ${backend.name}: installed, defaulting, validation, conversion on get/list/watch, rotation, failure policies`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-test-'));
    const certDir = join(dir, 'certs');
    const file = join(dir, 'webhooks.yaml');
    writeFileSync(file, WEBHOOKS_YAML.map((d) => YAML.stringify(d)).join('---\n'));
    const port = await freePort();
    const host = `127.0.0.1:${port}`;
    const mine: Record<string, Answer> = {};
    const record = (step: string, r: RawResponse): RawResponse => {
      mine[step] = {
        code: r.status,
        ...(r.status >= 400
          ? {
              message: String(r.body?.message ?? r.text)
                .split(String(port))
                .join('PORT'),
            }
          : {}),
      };
      return r;
    };
    let env: ApiServerHandle | undefined;
    let hooks: WebhookServer | undefined;
    try {
      env = await backend.start({ crds: [CRD], webhooks: { configurations: [file], host, certDir } });
      const e = env;
      assert.ok(e.webhooks, 'the handle says what was installed');
      hooks = await startHooks(port, certDir);
      // the real apiserver's configuration informer takes a moment: wait until the validating webhook refuses
      await until('the validating webhook to be in effect', async () => {
        const r = await raw(e, 'POST', `${DMS('v1')}?dryRun=All`, { body: dmV1('probe', { engine: 'oracle' }) });
        return r.status === 403 ? r : undefined;
      });

      await t.test(
        'the configurations are installed rewritten: url to the host, the CA as caBundle, v1 defaults',
        async () => {
          const v = (
            await raw(
              e,
              'GET',
              '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/databasemanager-validating',
            )
          ).body;
          const hook = v.webhooks[0];
          assert.deepEqual(hook.clientConfig, {
            url: `https://${host}/validate-coolops-cn-v1-databasemanager`,
            caBundle: Buffer.from(e.webhooks!.caCert).toString('base64'),
          });
          assert.equal(hook.failurePolicy, 'Fail');
          assert.equal(hook.matchPolicy, 'Equivalent');
          assert.equal(hook.timeoutSeconds, 10);
          assert.deepEqual(hook.namespaceSelector, {});
          assert.deepEqual(hook.objectSelector, {});
          assert.equal(hook.rules[0].scope, '*');
          const m = (
            await raw(
              e,
              'GET',
              '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/databasemanager-mutating',
            )
          ).body;
          assert.equal(m.webhooks[0].reinvocationPolicy, 'Never');
          assert.equal(m.metadata.annotations, undefined, "cert-manager's injection annotation is dropped");
          // the Service and the Certificate of the file are not installed
          assert.equal((await raw(e, 'GET', '/api/v1/namespaces/system/services/webhook-service')).status, 404);
          const crd = (
            await raw(e, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databasemanagers.coolops.cn')
          ).body;
          assert.deepEqual(crd.spec.conversion.webhook.clientConfig, {
            url: `https://${host}/convert`,
            caBundle: Buffer.from(e.webhooks!.caCert).toString('base64'),
          });
          // the serving certificate is for the host and signed by the CA
          const served = new X509Certificate((await import('node:fs')).readFileSync(join(certDir, 'tls.crt')));
          assert.ok(served.checkIP('127.0.0.1'));
          assert.ok(served.verify(new X509Certificate(e.webhooks!.caCert).publicKey));
        },
      );

      await t.test('defaulting on create (v1, and v1alpha1 through the Equivalent match)', async () => {
        const a = record('create v1', await raw(e, 'POST', DMS('v1'), { body: dmV1('mysql-db', { engine: 'mysql' }) }));
        assert.equal(a.status, 201, a.text);
        assert.equal(a.body.spec.version, '8.0');
        const b = record(
          'create v1alpha1',
          await raw(e, 'POST', DMS('v1alpha1'), { body: dmV1alpha1('pg-db', { dbtype: 'postgres' }) }),
        );
        assert.equal(b.status, 201, b.text);
        assert.deepEqual(b.body.spec, { deploymentName: 'pg-db', replicas: 1, dbtype: 'postgres' });
        const v1 = (await raw(e, 'GET', DMS('v1', 'pg-db'))).body;
        assert.deepEqual(v1.spec, { deploymentName: 'pg-db', replicas: 1, engine: 'postgres', version: '16' });
        // server-side apply creates through the webhooks too (and the object is then deleted)
        const applied = record(
          'apply v1',
          await raw(e, 'PATCH', `${DMS('v1', 'applied')}?fieldManager=test`, {
            body: dmV1('applied', { engine: 'mysql' }),
            contentType: 'application/apply-patch+yaml',
          }),
        );
        assert.equal(applied.status, 201, applied.text);
        assert.equal(applied.body.spec.version, '8.0');
        assert.equal(record('delete applied', await raw(e, 'DELETE', DMS('v1', 'applied'))).status, 200);
      });

      await t.test("denial with the hook's message", async () => {
        const refused = record(
          'create oracle',
          await raw(e, 'POST', DMS('v1alpha1'), { body: dmV1alpha1('ora', { dbtype: 'oracle' }) }),
        );
        assert.equal(refused.status, 403);
        assert.equal(
          refused.body.message,
          'admission webhook "vdatabasemanager.coolops.cn" denied the request: engine "oracle" is not supported',
        );
        const cur = (await raw(e, 'GET', DMS('v1', 'mysql-db'))).body;
        const changed = record(
          'change engine',
          await raw(e, 'PUT', DMS('v1', 'mysql-db'), { body: { ...cur, spec: { ...cur.spec, engine: 'postgres' } } }),
        );
        assert.equal(changed.status, 422);
        assert.equal(
          changed.body.message,
          'admission webhook "vdatabasemanager.coolops.cn" denied the request: DatabaseManager.coolops.cn "mysql-db" is invalid: spec.engine: Forbidden: a database cannot change engine in place; create a new DatabaseManager',
        );
        assert.equal(changed.body.details?.causes?.[0]?.field, 'spec.engine');
        // through kubectl
        const manifest = join(dir, 'oracle.yaml');
        writeFileSync(
          manifest,
          YAML.stringify({
            ...dmV1alpha1('ora', { dbtype: 'oracle' }),
            metadata: { name: 'ora', namespace: 'default' },
          }),
        );
        const kubectl = await new Promise<{ code: number; stderr: string }>((resolve) => {
          execFile(
            kubectlReal(),
            ['--kubeconfig', e.kubeconfigPath, 'create', '-f', manifest],
            { timeout: 60_000 },
            (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stderr }),
          );
        });
        assert.equal(kubectl.code, 1);
        assert.equal(
          kubectl.stderr.trim(),
          `Error from server (Forbidden): error when creating "${manifest}": admission webhook "vdatabasemanager.coolops.cn" denied the request: engine "oracle" is not supported`,
        );
      });

      await t.test(
        'conversion: v1alpha1 written, read back as v1 and v1alpha1; a v1-only field survives a v1alpha1 update',
        async () => {
          const alpha = (await raw(e, 'GET', DMS('v1alpha1', 'pg-db'))).body;
          assert.equal(alpha.apiVersion, 'coolops.cn/v1alpha1');
          assert.deepEqual(alpha.spec, { deploymentName: 'pg-db', replicas: 1, dbtype: 'postgres' });
          const updated = record(
            'update v1alpha1',
            await raw(e, 'PUT', DMS('v1alpha1', 'pg-db'), { body: { ...alpha, spec: { ...alpha.spec, replicas: 3 } } }),
          );
          assert.equal(updated.status, 200, updated.text);
          const v1 = (await raw(e, 'GET', DMS('v1', 'pg-db'))).body;
          assert.deepEqual(v1.spec, { deploymentName: 'pg-db', replicas: 3, engine: 'postgres', version: '16' });
          // set through v1, read through v1alpha1 (kept in the annotation), patched there, still set
          const patched = record(
            'patch v1',
            await raw(e, 'PATCH', DMS('v1', 'pg-db'), {
              body: { spec: { version: '15' } },
              contentType: 'application/merge-patch+json',
            }),
          );
          assert.equal(patched.status, 200, patched.text);
          const p2 = record(
            'patch v1alpha1',
            await raw(e, 'PATCH', DMS('v1alpha1', 'pg-db'), {
              body: { spec: { replicas: 4 } },
              contentType: 'application/merge-patch+json',
            }),
          );
          assert.equal(p2.status, 200, p2.text);
          assert.equal(p2.body.spec.version, undefined);
          assert.deepEqual((await raw(e, 'GET', DMS('v1', 'pg-db'))).body.spec, {
            deploymentName: 'pg-db',
            replicas: 4,
            engine: 'postgres',
            version: '15',
          });
        },
      );

      await t.test('list and watch of the non-storage version are converted', async () => {
        const list = (await raw(e, 'GET', DMS('v1alpha1'))).body;
        assert.equal(list.apiVersion, 'coolops.cn/v1alpha1');
        assert.deepEqual(
          list.items.map((i: Obj) => [i.apiVersion, i.metadata?.name, i.spec]),
          [
            ['coolops.cn/v1alpha1', 'mysql-db', { deploymentName: 'mysql-db', replicas: 1, dbtype: 'mysql' }],
            ['coolops.cn/v1alpha1', 'pg-db', { deploymentName: 'pg-db', replicas: 4, dbtype: 'postgres' }],
          ],
        );
        const w = await rawWatch(e, `${DMS('v1alpha1')}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
        try {
          assert.equal(
            record('create v1 watched', await raw(e, 'POST', DMS('v1'), { body: dmV1('watched', { engine: 'mysql' }) }))
              .status,
            201,
          );
          const added = await w.until((ev) => ev.type === 'ADDED' && ev.object.metadata?.name === 'watched');
          assert.equal(added.object.apiVersion, 'coolops.cn/v1alpha1');
          assert.deepEqual(added.object.spec, { deploymentName: 'watched', replicas: 1, dbtype: 'mysql' });
          await raw(e, 'PATCH', DMS('v1', 'watched'), {
            body: { spec: { replicas: 2 } },
            contentType: 'application/merge-patch+json',
          });
          const modified = await w.until((ev) => ev.type === 'MODIFIED' && ev.object.metadata?.name === 'watched');
          assert.deepEqual(modified.object.spec, { deploymentName: 'watched', replicas: 2, dbtype: 'mysql' });
        } finally {
          w.close();
        }
      });

      await t.test('a rotated certificate is picked up without a restart; one of another CA is refused', async () => {
        const before = await servedFingerprint(port);
        // a pair of another CA: the server serves it, the apiserver does not trust it
        const other = await generateCertificateSet(['127.0.0.1']);
        writeFileSync(join(certDir, 'tls.key'), other.key);
        writeFileSync(join(certDir, 'tls.crt'), other.cert);
        const otherFp = new X509Certificate(other.cert).fingerprint256;
        await until('the other certificate to be served', async () =>
          (await servedFingerprint(port)) === otherFp ? true : undefined,
        );
        // kube-apiserver keeps its connection to the webhook (keep-alive): the new certificate is
        // met on its next connection, once the webhook server closed the idle one (after 5 s)
        await until(
          'the apiserver to meet the other certificate',
          async () => {
            const r = await raw(e, 'POST', `${DMS('v1')}?dryRun=All`, { body: dmV1('probe', { engine: 'mysql' }) });
            if (r.status === 500) return r;
            await new Promise((x) => setTimeout(x, 6000));
            return undefined;
          },
          120_000,
        );
        const untrusted = record(
          'create untrusted',
          await raw(e, 'POST', DMS('v1'), { body: dmV1('untrusted', { engine: 'mysql' }) }),
        );
        assert.equal(untrusted.status, 500);
        assert.match(
          untrusted.body.message,
          new RegExp(
            `^Internal error occurred: failed calling webhook "mdatabasemanager\\.coolops\\.cn": failed to call webhook: Post "https://127\\.0\\.0\\.1:${port}/mutate-coolops-cn-v1-databasemanager\\?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
          ),
        );
        mine['create untrusted'] = {
          code: untrusted.status,
          message: String(untrusted.body.message)
            .split(String(port))
            .join('PORT')
            .replace(/ \(possibly because of .*\)$/, ''),
        };
        await e.webhooks!.rotateCertificate();
        const rotated = new X509Certificate((await import('node:fs')).readFileSync(join(certDir, 'tls.crt')))
          .fingerprint256;
        assert.notEqual(rotated, before);
        await until('the rotated certificate to be served', async () =>
          (await servedFingerprint(port)) === rotated ? true : undefined,
        );
        const ok = record(
          'create after rotation',
          await raw(e, 'POST', DMS('v1'), { body: dmV1('rotated', { engine: 'postgres' }) }),
        );
        assert.equal(ok.status, 201, ok.text);
        assert.equal(ok.body.spec.version, '16');
      });

      await t.test(
        "the webhook down: failurePolicy Fail refuses with the apiserver's message, Ignore allows",
        async () => {
          const cm = (name: string, policy: string) => ({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, labels: { policy } },
            data: { a: 'b' },
          });
          // up: both allowed
          assert.equal(
            record(
              'cm fail up',
              await raw(e, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm('up-fail', 'fail') }),
            ).status,
            201,
          );
          await hooks!.close();
          hooks = undefined;
          const refused = record(
            'cm fail down',
            await raw(e, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm('down-fail', 'fail') }),
          );
          assert.equal(refused.status, 500);
          assert.equal(
            refused.body.message,
            `Internal error occurred: failed calling webhook "cm-fail.crdgen.dev": failed to call webhook: Post "https://${host}/validate-configmap?timeout=5s": dial tcp ${host}: connect: connection refused`,
          );
          assert.equal(refused.body.reason, 'InternalError');
          const ignored = record(
            'cm ignore down',
            await raw(e, 'POST', '/api/v1/namespaces/default/configmaps', { body: cm('down-ignore', 'ignore') }),
          );
          assert.equal(ignored.status, 201, ignored.text);
          // a custom resource: the mutating webhook (Fail by default) refuses; reads of v1alpha1 need the conversion webhook
          record('create dm down', await raw(e, 'POST', DMS('v1'), { body: dmV1('down', { engine: 'mysql' }) }));
          const got = record('get v1alpha1 down', await raw(e, 'GET', DMS('v1alpha1', 'pg-db')));
          assert.equal(got.status, 500);
          const rv = (await raw(e, 'GET', DMS('v1', 'pg-db'))).body.metadata.resourceVersion;
          assert.equal(
            got.body.message,
            `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /coolops.cn/databasemanagers/default/pg-db, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: conversion webhook for coolops.cn/v1, Kind=DatabaseManager failed: Post "https://${host}/convert?timeout=30s": dial tcp ${host}: connect: connection refused`,
          );
          mine['get v1alpha1 down'] = {
            code: got.status,
            message: String(got.body.message)
              .split(String(port))
              .join('PORT')
              .replace(/revision=\d+/, 'revision=RV'),
          };
          // (a list of v1alpha1 is not compared: kube-apiserver answers it from its watch cache, converted earlier)
          // the storage version needs no webhook
          assert.equal(record('get v1 down', await raw(e, 'GET', DMS('v1', 'pg-db'))).status, 200);
        },
      );
    } finally {
      await hooks?.close();
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
      answers.set(backend.name, mine);
    }
  });
}

test('testenv answers as the real apiserver does', () => {
  const mine = answers.get('testenv');
  const real = answers.get('real');
  assert.ok(mine && real, 'both backends ran');
  assert.deepEqual(mine, real);
});
