// Webhooks end to end: the generated DatabaseManager operator of examples/databasemanager-webhooks
// (v1alpha1 as published, v1 storage with engine and version; the example's own admission.ts,
// conversion.ts and reconcile.ts), run as its own process with --webhook-bind-address and
// --webhook-cert-dir, called by the API server — crdgen's in-process testenv and the real
// kube-apiserver, the same flow on both. The CRD (config/crd/) and the webhook
// configurations (config/webhook/manifests.yaml) are installed as crdgen generated them through the
// servers' `webhooks` option (envtest's WebhookInstallOptions: a CA and serving certificate in
// the cert folder, the clientConfigs rewritten to the operator's address). Shown: kubectl refused
// with the hook's message, defaulting on create, objects converted on every read, list and watch,
// a v1-only field kept through an update in v1alpha1, a rotated certificate served without a
// restart, and with the operator gone failurePolicy Fail refusing the write.
// The example imports crdgen/runtime by name: it runs from the build (dist/), which `npm test` makes first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { resourceClient, type KubeObject } from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { kubectlReal } from '../support/assets.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import { tscStrict } from '../compile/tsc.js';
import { startOperator, waitFor, type OperatorProcess } from './support.js';

const EXAMPLE = join(ROOT, 'examples', 'databasemanager-webhooks', 'generated');
const OPERATOR = join(EXAMPLE, 'controllers', 'databasemanager');
const NS = 'default';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string; engine?: string; version?: string };
}
const resource = (version: string) => ({
  group: 'coolops.cn',
  version,
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
});

/** A port nobody listens on now (the operator binds it next). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The certificate the server at host:port presents (trusting `ca`), or the handshake's error. */
function servedCertificate(port: number, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const c = s.getPeerCertificate();
      s.end();
      resolve(c);
    });
    s.on('error', reject);
  });
}

function post(port: number, path: string, body: string, ca: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => void (text += d));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function kubectl(
  kubeconfig: string,
  args: string[],
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlReal(),
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = (err as { code?: unknown } | null)?.code;
        resolve({ code: err ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
      },
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

test('the example (user hooks filled in) compiles with tsc --strict', async () => {
  const r = await tscStrict([EXAMPLE], 'nodenext');
  assert.equal(r.output, '');
  assert.equal(r.status, 0);
});

function webhooksE2E(backend: Backend): void {
  describe(`generated webhooks called by the API server (${backend.name})`, () => {
    let server: ApiServerHandle;
    let op: OperatorProcess;
    let port = 0;
    let ca = '';
    const v1 = () => resourceClient<DM>(server.clientConfig, resource('v1')).namespace(NS);
    const v1alpha1 = () => resourceClient<DM>(server.clientConfig, resource('v1alpha1')).namespace(NS);

    before(async () => {
      port = await freePort();
      server = await backend.start({
        crds: [join(OPERATOR, 'config', 'crd', 'databasemanagers.coolops.cn.yaml')],
        webhooks: {
          configurations: [join(OPERATOR, 'config', 'webhook', 'manifests.yaml')],
          host: `127.0.0.1:${port}`,
        },
      });
      const installed = server.webhooks!;
      assert.equal(installed.configurations.length, 2);
      ca = installed.caCert;
      op = startOperator(join(OPERATOR, 'main.ts'), [
        '--kubeconfig',
        server.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        '--webhook-bind-address',
        installed.host,
        '--webhook-cert-dir',
        installed.certDir,
      ]);
      await op.waitForLog((l) => l.msg === 'serving webhooks', 60_000);
      // the real kube-apiserver picks the configurations up a moment after they are created
      await waitFor(
        async () =>
          (
            await v1().create(
              {
                apiVersion: 'coolops.cn/v1',
                kind: 'DatabaseManager',
                metadata: { name: 'probe', namespace: NS },
                spec: { deploymentName: 'probe-db', engine: 'redis' },
              },
              { dryRun: true },
            )
          ).spec?.version === '7.4',
        60_000,
        'the mutating webhook to be called',
      );
    });

    after(async () => {
      await op?.kill();
      await server?.stop();
    });

    test('defaulting on create: spec.version is the engine default, through v1 and through v1alpha1 (converted to v1 for the hook)', async () => {
      const a = await v1().create({
        apiVersion: 'coolops.cn/v1',
        kind: 'DatabaseManager',
        metadata: { name: 'orders', namespace: NS },
        spec: { deploymentName: 'orders-db', replicas: 2, engine: 'postgres' },
      });
      assert.equal(a.spec?.version, '17');
      const b = await v1alpha1().create({
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'carts', namespace: NS },
        spec: { deploymentName: 'carts-db', replicas: 1, dbtype: 'redis' },
      });
      assert.deepEqual(b.spec, { deploymentName: 'carts-db', replicas: 1, dbtype: 'redis' });
      const bv1 = await v1().get('carts');
      assert.deepEqual(bv1.spec, { deploymentName: 'carts-db', replicas: 1, engine: 'redis', version: '7.4' });
      // an explicit version is kept
      const c = await v1().create({
        apiVersion: 'coolops.cn/v1',
        kind: 'DatabaseManager',
        metadata: { name: 'legacy', namespace: NS },
        spec: { deploymentName: 'legacy-db', engine: 'mysql', version: '8.0' },
      });
      assert.equal(c.spec?.version, '8.0');
    });

    test("kubectl: changing spec.engine is refused with the validating hook's message (the schema still judges first)", async () => {
      const r = await kubectl(server.kubeconfigPath, [
        'patch',
        'databasemanagers.v1.coolops.cn',
        'orders',
        '-n',
        NS,
        '--type=merge',
        '-p',
        '{"spec":{"engine":"mysql"}}',
      ]);
      assert.notEqual(r.code, 0, r.stdout);
      // a 422 with causes: kubectl prints them as it prints the schema's
      assert.match(
        r.stderr,
        /^The DatabaseManager "orders" is invalid: spec\.engine: Forbidden: a database cannot change engine in place \(postgres to mysql\); create a new DatabaseManager with engine mysql/,
      );
      // the Status names the webhook (what other clients show)
      await assert.rejects(
        v1().patch('orders', 'application/merge-patch+json', { spec: { engine: 'mysql' } }),
        (e: Error & { code?: number }) => {
          assert.equal(e.code, 422);
          assert.match(
            e.message,
            /admission webhook "vdatabasemanager-v1\.coolops\.cn" denied the request: DatabaseManager\.coolops\.cn "orders" is invalid: spec\.engine: Forbidden: a database cannot change engine in place/,
          );
          return true;
        },
      );
      // through v1alpha1 too (dbtype is engine once converted)
      const alpha = await kubectl(server.kubeconfigPath, [
        'patch',
        'databasemanagers.v1alpha1.coolops.cn',
        'orders',
        '-n',
        NS,
        '--type=merge',
        '-p',
        '{"spec":{"dbtype":"mongodb"}}',
      ]);
      assert.notEqual(alpha.code, 0);
      assert.match(alpha.stderr, /create a new DatabaseManager with engine mongodb/);
      assert.equal((await v1().get('orders')).spec?.engine, 'postgres');
      // the schema's own validation still refuses first (replicas 1..10)
      const schema = await kubectl(server.kubeconfigPath, [
        'patch',
        'databasemanagers.v1.coolops.cn',
        'orders',
        '-n',
        NS,
        '--type=merge',
        '-p',
        '{"spec":{"replicas":11}}',
      ]);
      assert.notEqual(schema.code, 0);
      assert.match(
        schema.stderr,
        /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/,
      );
      // other changes pass
      const ok = await kubectl(server.kubeconfigPath, [
        'patch',
        'databasemanagers.v1.coolops.cn',
        'orders',
        '-n',
        NS,
        '--type=merge',
        '-p',
        '{"spec":{"replicas":3}}',
      ]);
      assert.equal(ok.code, 0, ok.stderr);
    });

    test('a v1alpha1 object reads back as v1 and as v1alpha1 unchanged', async () => {
      const alpha: DM = {
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'inventory', namespace: NS, labels: { team: 'shop' } },
        spec: { deploymentName: 'inventory-db', replicas: 2, dbtype: 'mysql' },
      };
      await v1alpha1().create(alpha);
      const asV1 = await v1().get('inventory');
      assert.equal(asV1.apiVersion, 'coolops.cn/v1');
      assert.deepEqual(asV1.spec, { deploymentName: 'inventory-db', replicas: 2, engine: 'mysql', version: '8.4' });
      const back = await v1alpha1().get('inventory');
      assert.equal(back.apiVersion, 'coolops.cn/v1alpha1');
      assert.deepEqual(back.spec, alpha.spec);
      assert.deepEqual(back.metadata?.labels, { team: 'shop' });
      // v1's defaulted version has no place in v1alpha1: carried in the annotation, back when read as v1
      assert.deepEqual(JSON.parse(back.metadata?.annotations?.['conversion.crdgen.io/v1'] ?? '[]'), [
        { op: 'add', path: '/spec/version', value: '8.4' },
      ]);
    });

    test('a v1-only field set through v1, read and updated through v1alpha1, is still set through v1', async () => {
      await v1().create({
        apiVersion: 'coolops.cn/v1',
        kind: 'DatabaseManager',
        metadata: { name: 'billing', namespace: NS },
        spec: { deploymentName: 'billing-db', replicas: 1, engine: 'postgres', version: '16' },
      });
      const read = await v1alpha1().get('billing');
      assert.deepEqual(read.spec, { deploymentName: 'billing-db', replicas: 1, dbtype: 'postgres' });
      // a read-modify-write through v1alpha1 (again on a conflict: the operator writes the status meanwhile)
      await waitFor(
        async () => {
          const alpha = await v1alpha1().get('billing');
          alpha.spec!.replicas = 4;
          return v1alpha1().update(alpha);
        },
        30_000,
        'the update through v1alpha1',
      );
      const again = await v1().get('billing');
      assert.deepEqual(again.spec, { deploymentName: 'billing-db', replicas: 4, engine: 'postgres', version: '16' });
    });

    test('list and watch of the non-storage version are converted', async () => {
      const list = await v1alpha1().list();
      assert.ok(list.items.length >= 4);
      for (const o of list.items) {
        assert.equal(o.apiVersion, 'coolops.cn/v1alpha1');
        assert.equal(o.spec?.engine, undefined);
        assert.equal(typeof o.spec?.dbtype, 'string');
      }
      const w = await v1alpha1().watch({ resourceVersion: list.metadata?.resourceVersion ?? '' });
      try {
        const seen = (async () => {
          for await (const ev of w) {
            const o = ev.object as DM;
            if (ev.type === 'MODIFIED' && o.metadata?.name === 'orders') return o;
          }
          return undefined;
        })();
        await v1().patch('orders', 'application/merge-patch+json', { spec: { replicas: 5 } });
        const ev = await Promise.race([seen, new Promise<undefined>((r) => setTimeout(() => r(undefined), 30_000))]);
        assert.ok(ev, 'no MODIFIED event for orders within 30 s');
        assert.equal(ev.apiVersion, 'coolops.cn/v1alpha1');
        assert.deepEqual(ev.spec, { deploymentName: 'orders-db', replicas: 5, dbtype: 'postgres' });
      } finally {
        w.stop();
      }
    });

    test('the webhook answers malformed reviews with a well-formed review, never a crash', async () => {
      const bad = await post(
        port,
        '/validate-coolops-cn-v1-databasemanager',
        '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}',
        ca,
      );
      assert.equal(bad.status, 200);
      assert.equal(bad.json.kind, 'AdmissionReview');
      assert.equal(bad.json.response.allowed, false);
      assert.equal(bad.json.response.status.code, 400);
      const conv = await post(port, '/convert', 'not json', ca);
      assert.equal(conv.json.kind, 'ConversionReview');
      assert.equal(conv.json.response.result.status, 'Failure');
      // still serving
      assert.equal((await v1().get('orders')).spec?.engine, 'postgres');
    });

    test('a certificate rotated on disk is served without a restart, and the API server keeps calling it', async () => {
      const before = await servedCertificate(port, ca);
      await server.webhooks!.rotateCertificate();
      const served = await waitFor(
        async () => {
          const c = await servedCertificate(port, ca);
          return c.fingerprint256 !== before.fingerprint256 ? c : undefined;
        },
        30_000,
        'the rotated certificate to be served',
      );
      assert.notEqual(served.fingerprint256, before.fingerprint256);
      const created = await v1().create({
        apiVersion: 'coolops.cn/v1',
        kind: 'DatabaseManager',
        metadata: { name: 'rotated', namespace: NS },
        spec: { deploymentName: 'rotated-db', engine: 'mongodb' },
      });
      assert.equal(created.spec?.version, '8.0');
      assert.equal((await v1alpha1().get('rotated')).spec?.dbtype, 'mongodb');
      assert.equal(op.proc.exitCode, null, 'the operator was not restarted');
    });

    test("with the webhook down, failurePolicy Fail refuses the write with the API server's message", async () => {
      await op.kill();
      const r = await kubectl(
        server.kubeconfigPath,
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'coolops.cn/v1',
          kind: 'DatabaseManager',
          metadata: { name: 'down', namespace: NS },
          spec: { deploymentName: 'down-db', engine: 'redis' },
        }),
      );
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /failed calling webhook "mdatabasemanager-v1\.coolops\.cn"/);
      assert.match(r.stderr, /connection refused/);
      await assert.rejects(v1().get('down'), /not found/i);
    });
  });
}

for (const backend of BACKENDS) webhooksE2E(backend);
