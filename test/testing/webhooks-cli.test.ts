// `crdgen testenv --webhooks FILE --webhook-host HOST:PORT --webhook-cert-dir DIR` (in-process
// and --real): the certificate pair written into DIR, the configurations installed calling the
// host with the CA, the operator's flags printed; flag mistakes are usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlPlaneAssets } from '../support/assets.js';
import { loadKubeconfig, RestClient } from '../../src/runtime/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'test', 'conformance', 'testenv-main.ts');

const WEBHOOKS = `apiVersion: v1
kind: Service
metadata: {name: webhook-service, namespace: system}
spec: {ports: [{port: 443, targetPort: 9443}]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validating}
webhooks:
- name: vwidget.example.com
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate-widgets}}
  rules: [{operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

for (const real of [false, true]) {
  test(`crdgen testenv${real ? ' --real' : ''} --webhooks installs the configurations and writes the certificate`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-cli-'));
    const file = join(dir, 'webhooks.yaml');
    writeFileSync(file, WEBHOOKS);
    const certDir = join(dir, 'certs');
    const kubeconfig = join(dir, 'kubeconfig');
    const args = [
      '--import',
      'tsx',
      MAIN,
      'testenv',
      ...(real ? ['--real'] : []),
      '--webhooks',
      file,
      '--webhook-host',
      '127.0.0.1:19443',
      '--webhook-cert-dir',
      certDir,
      '--kubeconfig',
      kubeconfig,
    ];
    const proc = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBEBUILDER_ASSETS: controlPlaneAssets() },
    });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => void (out += c));
    const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
    try {
      const deadline = Date.now() + 180_000;
      while (!out.includes('Press Ctrl-C')) {
        if (proc.exitCode !== null) assert.fail(`testenv exited: ${out}`);
        if (Date.now() > deadline) assert.fail(`testenv did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(
        out,
        new RegExp(
          `webhooks: 1 configuration\\(s\\) installed, calling https://127\\.0\\.0\\.1:19443; serving certificate in ${certDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
        ),
      );
      assert.match(out, /run the operator with --webhook-bind-address 127\.0\.0\.1:19443 --webhook-cert-dir /);
      for (const f of ['tls.crt', 'tls.key', 'ca.crt']) assert.ok(existsSync(join(certDir, f)), f);
      const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
      const cert = new X509Certificate(readFileSync(join(certDir, 'tls.crt')));
      assert.ok(cert.checkIP('127.0.0.1') && cert.verify(new X509Certificate(ca).publicKey));
      const client = new RestClient(await loadKubeconfig({ path: kubeconfig }));
      try {
        const cfg = await client.request<{ webhooks: { clientConfig: Record<string, unknown> }[] }>({
          method: 'GET',
          path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating',
        });
        assert.deepEqual(cfg.webhooks[0].clientConfig, {
          url: 'https://127.0.0.1:19443/validate-widgets',
          caBundle: Buffer.from(ca).toString('base64'),
        });
      } finally {
        client.close();
      }
    } finally {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('crdgen testenv: webhook flags without --webhooks, a bad host, a file without configurations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-cli-'));
  try {
    const run = (...a: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'testenv', '--kubeconfig', join(dir, 'kc'), ...a], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const stray = run('--webhook-host', '127.0.0.1:9443');
    assert.equal(stray.status, 2);
    assert.match(stray.stderr, /--webhook-host needs --webhooks FILE/);
    const bad = run('--webhooks', 'x.yaml', '--webhook-host', '9443');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /"9443" is not host:port \(e\.g\. 127\.0\.0\.1:9443\)/);
    const empty = join(dir, 'empty.yaml');
    writeFileSync(empty, 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n');
    const none = run('--webhooks', empty);
    assert.equal(none.status, 1);
    assert.match(
      none.stderr,
      new RegExp(
        `crdgen testenv: no MutatingWebhookConfiguration or ValidatingWebhookConfiguration in ${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
