// Issue #25 end to end: the generated DatabaseManager operator of examples/databasemanager-webhooks
// (v1alpha1 as published, v1 storage with engine and version; the example's own admission.ts,
// conversion.ts and reconcile.ts), run as its own process with --webhook-bind-address and
// --webhook-cert-dir, called by the API server. The CRD (config/crd.yaml) and the webhook
// configurations (config/webhooks.yaml) are installed as crdgen generated them, with the
// client config rewritten to the operator's address and the test CA (what cert-manager and the
// Service do in a cluster; envtest's WebhookInstallOptions). On the real control plane, the
// apiserver is the judge: kubectl is refused with the hook's message, defaulting is applied,
// objects are converted on every read, list and watch, a rotated certificate is served without a
// restart, and with the operator gone failurePolicy Fail refuses the write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { parseAllDocuments } from 'yaml';
import { resourceClient } from '../../src/runtime/client/resource-client.js';
import type { KubeObject } from '../../src/runtime/meta/types.js';
import { generateCertificateSet, type CertificateSet } from '../../src/testing/tls.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { kubectlReal } from '../support/assets.js';
import { realBackend, type Backend } from '../support/backends.js';
import { tscStrict } from '../compile/tsc.js';
import { startOperator, waitFor, type OperatorProcess } from './support.js';

const EXAMPLE = join(ROOT, 'examples', 'databasemanager-webhooks', 'generated');
const OPERATOR = join(EXAMPLE, 'controllers', 'databasemanager');
const NS = 'default';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string; engine?: string; version?: string };
}
const resource = (version: string) => ({ group: 'coolops.cn', version, resource: 'databasemanagers', kind: 'DatabaseManager', listKind: 'DatabaseManagerList', namespaced: true });

/** The example's manifests, rewritten to call the operator at `base` trusting `ca` (PEM). */
function manifests(base: string, ca: string): KubeObject[] {
  const caBundle = Buffer.from(ca).toString('base64');
  const read = (file: string) => parseAllDocuments(readFileSync(join(OPERATOR, 'config', file), 'utf8')).map((d) => d.toJS() as Record<string, any>);
  const [crd] = read('crd.yaml');
  delete crd!.metadata.annotations['cert-manager.io/inject-ca-from'];
  crd!.spec.conversion.webhook.clientConfig = { url: `${base}/convert`, caBundle };
  const configs = read('webhooks.yaml').filter((d) => /WebhookConfiguration$/.test(d.kind));
  assert.equal(configs.length, 2);
  for (const c of configs) {
    delete c.metadata.annotations;
    for (const w of c.webhooks) w.clientConfig = { url: `${base}${w.clientConfig.service.path}`, caBundle };
  }
  return [crd as KubeObject, ...(configs as KubeObject[])];
}

function writeCerts(dir: string, certs: CertificateSet): void {
  // as a Secret volume updates: new files, then renamed into place
  writeFileSync(join(dir, 'tls.key.new'), certs.key);
  writeFileSync(join(dir, 'tls.crt.new'), certs.cert);
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
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
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => void (text += d));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlReal(), ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      resolve({ code: err ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
    });
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
    let certDir: string;
    let certs: CertificateSet;
    let port = 0;
    const v1 = () => resourceClient<DM>(server.clientConfig, resource('v1')).namespace(NS);
    const v1alpha1 = () => resourceClient<DM>(server.clientConfig, resource('v1alpha1')).namespace(NS);

    before(async () => {
      certDir = mkdtempSync(join(tmpdir(), 'crdgen-webhook-certs-'));
      certs = await generateCertificateSet(['127.0.0.1', 'localhost']);
      writeCerts(certDir, certs);
      server = await backend.start({});
      op = startOperator(join(OPERATOR, 'main.ts'), [
        '--kubeconfig', server.kubeconfigPath,
        '--metrics-bind-address', '0',
        '--health-probe-bind-address', '0',
        '--webhook-bind-address', '127.0.0.1:0',
        '--webhook-cert-dir', certDir,
      ]);
      const serving = await op.waitForLog((l) => l.msg === 'serving webhooks', 60_000);
      port = Number(String(serving['address']).split(':').pop());
      assert.ok(port > 0, JSON.stringify(serving));
      await server.create(manifests(`https://127.0.0.1:${port}`, certs.caCert));
    });

    after(async () => {
      await op?.kill();
      await server?.stop();
      rmSync(certDir, { recursive: true, force: true });
    });

    test('defaulting on create: spec.version is the engine default, through v1 and through v1alpha1 (converted to v1 for the hook)', async () => {
      const a = await v1().create({ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', metadata: { name: 'orders', namespace: NS }, spec: { deploymentName: 'orders-db', replicas: 2, engine: 'postgres' } });
      assert.equal(a.spec?.version, '17');
      const b = await v1alpha1().create({ apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: 'carts', namespace: NS }, spec: { deploymentName: 'carts-db', replicas: 1, dbtype: 'redis' } });
      assert.deepEqual(b.spec, { deploymentName: 'carts-db', replicas: 1, dbtype: 'redis' });
      const bv1 = await v1().get('carts');
      assert.deepEqual(bv1.spec, { deploymentName: 'carts-db', replicas: 1, engine: 'redis', version: '7.4' });
      // an explicit version is kept
      const c = await v1().create({ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', metadata: { name: 'legacy', namespace: NS }, spec: { deploymentName: 'legacy-db', engine: 'mysql', version: '8.0' } });
      assert.equal(c.spec?.version, '8.0');
    });

    test('kubectl: changing spec.engine is refused with the validating hook\'s message (the schema still judges first)', async () => {
      const r = await kubectl(server.kubeconfigPath, ['patch', 'databasemanagers.v1.coolops.cn', 'orders', '-n', NS, '--type=merge', '-p', '{"spec":{"engine":"mysql"}}']);
      assert.notEqual(r.code, 0, r.stdout);
      // a 422 with causes: kubectl prints them as it prints the schema's
      assert.match(r.stderr, /^The DatabaseManager "orders" is invalid: spec\.engine: Forbidden: a database cannot change engine in place \(postgres to mysql\); create a new DatabaseManager with engine mysql/);
      // the Status names the webhook (what other clients show)
      await assert.rejects(v1().patch('orders', 'application/merge-patch+json', { spec: { engine: 'mysql' } }), (e: Error & { code?: number }) => {
        assert.equal(e.code, 422);
        assert.match(e.message, /admission webhook "vdatabasemanager-v1\.coolops\.cn" denied the request: DatabaseManager\.coolops\.cn "orders" is invalid: spec\.engine: Forbidden: a database cannot change engine in place/);
        return true;
      });
      // through v1alpha1 too (dbtype is engine once converted)
      const alpha = await kubectl(server.kubeconfigPath, ['patch', 'databasemanagers.v1alpha1.coolops.cn', 'orders', '-n', NS, '--type=merge', '-p', '{"spec":{"dbtype":"mongodb"}}']);
      assert.notEqual(alpha.code, 0);
      assert.match(alpha.stderr, /create a new DatabaseManager with engine mongodb/);
      assert.equal((await v1().get('orders')).spec?.engine, 'postgres');
      // the schema's own validation still refuses first (replicas 1..10)
      const schema = await kubectl(server.kubeconfigPath, ['patch', 'databasemanagers.v1.coolops.cn', 'orders', '-n', NS, '--type=merge', '-p', '{"spec":{"replicas":11}}']);
      assert.notEqual(schema.code, 0);
      assert.match(schema.stderr, /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/);
      // other changes pass
      const ok = await kubectl(server.kubeconfigPath, ['patch', 'databasemanagers.v1.coolops.cn', 'orders', '-n', NS, '--type=merge', '-p', '{"spec":{"replicas":3}}']);
      assert.equal(ok.code, 0, ok.stderr);
    });

    test('a v1alpha1 object reads back as v1 and as v1alpha1 unchanged', async () => {
      const alpha: DM = { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: 'inventory', namespace: NS, labels: { team: 'shop' } }, spec: { deploymentName: 'inventory-db', replicas: 2, dbtype: 'mysql' } };
      await v1alpha1().create(alpha);
      const asV1 = await v1().get('inventory');
      assert.equal(asV1.apiVersion, 'coolops.cn/v1');
      assert.deepEqual(asV1.spec, { deploymentName: 'inventory-db', replicas: 2, engine: 'mysql', version: '8.4' });
      const back = await v1alpha1().get('inventory');
      assert.equal(back.apiVersion, 'coolops.cn/v1alpha1');
      assert.deepEqual(back.spec, alpha.spec);
      assert.deepEqual(back.metadata?.labels, { team: 'shop' });
      // v1's defaulted version has no place in v1alpha1: carried in the annotation, back when read as v1
      assert.deepEqual(JSON.parse(back.metadata?.annotations?.['conversion.crdgen.io/v1'] ?? '[]'), [{ op: 'add', path: '/spec/version', value: '8.4' }]);
    });

    test('a v1-only field set through v1, read and updated through v1alpha1, is still set through v1', async () => {
      await v1().create({ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', metadata: { name: 'billing', namespace: NS }, spec: { deploymentName: 'billing-db', replicas: 1, engine: 'postgres', version: '16' } });
      const read = await v1alpha1().get('billing');
      assert.deepEqual(read.spec, { deploymentName: 'billing-db', replicas: 1, dbtype: 'postgres' });
      // a read-modify-write through v1alpha1 (again on a conflict: the operator writes the status meanwhile)
      await waitFor(async () => {
        const alpha = await v1alpha1().get('billing');
        alpha.spec!.replicas = 4;
        return v1alpha1().update(alpha);
      }, 30_000, 'the update through v1alpha1');
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
      const bad = await post(port, '/validate-coolops-cn-v1-databasemanager', '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', certs.caCert);
      assert.equal(bad.status, 200);
      assert.equal(bad.json.kind, 'AdmissionReview');
      assert.equal(bad.json.response.allowed, false);
      assert.equal(bad.json.response.status.code, 400);
      const conv = await post(port, '/convert', 'not json', certs.caCert);
      assert.equal(conv.json.kind, 'ConversionReview');
      assert.equal(conv.json.response.result.status, 'Failure');
      // still serving
      assert.equal((await v1().get('orders')).spec?.engine, 'postgres');
    });

    test('a certificate rotated on disk is served without a restart, and the API server calls it with the new CA', async () => {
      const before = await servedCertificate(port, certs.caCert);
      const next = await generateCertificateSet(['127.0.0.1', 'localhost']);
      writeCerts(certDir, next);
      const served = await waitFor(async () => {
        const c = await servedCertificate(port, next.caCert);
        return c.fingerprint256 !== before.fingerprint256 ? c : undefined;
      }, 30_000, 'the rotated certificate to be served');
      assert.notEqual(served.fingerprint256, before.fingerprint256);
      await assert.rejects(servedCertificate(port, certs.caCert), /self[- ]signed|unable to verify|certificate/i);
      // the API server, told the new CA, calls the same process
      const fresh = manifests(`https://127.0.0.1:${port}`, next.caCert);
      for (const m of fresh) {
        const r = await kubectl(server.kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-f', '-'], JSON.stringify(m));
        assert.equal(r.code, 0, r.stderr);
      }
      certs = next;
      const created = await waitFor(async () => {
        try {
          return await v1().create({ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', metadata: { name: 'rotated', namespace: NS }, spec: { deploymentName: 'rotated-db', engine: 'mongodb' } });
        } catch {
          return undefined; // until the apiserver has the new caBundle
        }
      }, 30_000, 'a create through the webhook with the new CA');
      assert.equal(created.spec?.version, '8.0');
      assert.equal(op.proc.exitCode, null, 'the operator was not restarted');
    });

    test('with the webhook down, failurePolicy Fail refuses the write with the API server\'s message', async () => {
      await op.kill();
      const r = await kubectl(server.kubeconfigPath, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', metadata: { name: 'down', namespace: NS }, spec: { deploymentName: 'down-db', engine: 'redis' } }));
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /failed calling webhook "mdatabasemanager-v1\.coolops\.cn"/);
      assert.match(r.stderr, /connection refused/);
      await assert.rejects(v1().get('down'), /not found/i);
    });
  });
}

webhooksE2E(realBackend);
