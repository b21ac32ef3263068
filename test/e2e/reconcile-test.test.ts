// The user's own test, controllers/<kind>/reconcile.test.ts, as crdgen writes it: run with
// node's test runner (through tsx, from the generated sources) it passes for the databasemanager
// starter (with status conditions and without) and for the generic stub over corpus CRDs
// (cert-manager's Certificate, with required fields the sample fills in; Gateway API's
// GatewayClass, cluster-scoped, with a pattern) — and it fails when reconcile.ts does not do what
// it asserts: a starter that no longer makes the Service, a stub that writes the status.
// The compiled test in a user's dist/ (the CRD found from the project's root) is test/pack's.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../golden/support.js';
import { generateOperator } from './support.js';

const exec = promisify(execFile);
const generated: Array<ReturnType<typeof generateOperator>> = [];
after(() => {
  for (const g of generated) g.cleanup();
});

/** Runs `file` with `node --test` (tsx for the TypeScript); the exit code and the TAP output. */
async function nodeTest(file: string): Promise<{ code: number; output: string }> {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
      cwd: ROOT,
      // a test runner of its own, not a subtest of this one's
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, output: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}

/** The operator of `kind` from `crd` (repo-relative), its reconcile.test.ts and reconcile.ts. */
function operator(crd: string, kind: string): { test: string; reconcile: string } {
  const g = generateOperator(crd, kind);
  generated.push(g);
  const dir = dirname(g.main);
  return { test: join(dir, 'reconcile.test.ts'), reconcile: join(dir, 'reconcile.ts') };
}

const CORPUS = relative(ROOT, join(ROOT, '..', 'shared', 'corpus', 'crds'));

test('the databasemanager starter: reconcile.test.ts passes (Deployment, Service, status, the Ready condition, an unknown dbtype)', async () => {
  const op = operator('fixtures/databasemanager/crd.yaml', 'DatabaseManager');
  const r = await nodeTest(op.test);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /^# pass 2$/m);
  assert.match(r.output, /^ok \d+ - an unknown dbtype is reported in the Ready condition/m);
});

test('the databasemanager starter on the published CRD (no conditions, no status subresource): its one test passes', async () => {
  const op = operator('fixtures/databasemanager-published/crd.yaml', 'DatabaseManager');
  const r = await nodeTest(op.test);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /^# pass 1$/m);
});

test('the starter test fails when reconcile.ts no longer makes the Service', async () => {
  const op = operator('fixtures/databasemanager/crd.yaml', 'DatabaseManager');
  const text = readFileSync(op.reconcile, 'utf8');
  const broken = text.replace('await ensure(ServiceResource,', 'void (ServiceResource,');
  assert.notEqual(broken, text, 'the Service is made by `await ensure(ServiceResource, …)`');
  writeFileSync(op.reconcile, broken);
  // the Service never comes: wait 15 s for it rather than the test's own default of minutes
  const testText = readFileSync(op.test, 'utf8');
  const shorter = testText.replace(/timeoutMs = [\d_]+,/, 'timeoutMs = 15_000,');
  assert.notEqual(shorter, testText, "the test's `until` has a default timeout");
  writeFileSync(op.test, shorter);
  const r = await nodeTest(op.test);
  assert.notEqual(r.code, 0, r.output);
  assert.match(r.output, /timed out waiting for Service orders-db/);
});

for (const [crd, kind] of [
  [`${CORPUS}/cert-manager/cert-manager.io_certificates.yaml`, 'Certificate'],
  [`${CORPUS}/gateway-api/gateway.networking.k8s.io_gatewayclasses.yaml`, 'GatewayClass'],
] as const) {
  test(`the generic stub of ${kind}: the sample is created and seen, its status untouched`, async () => {
    const op = operator(crd, kind);
    const r = await nodeTest(op.test);
    assert.equal(r.code, 0, r.output);
    assert.match(
      r.output,
      new RegExp(`^ok 1 - a ${kind} is seen by the controller, and its status is left alone$`, 'm'),
    );
  });
}

test('the generic test fails once reconcile writes the status (the stub test says what to change)', async () => {
  const op = operator(`${CORPUS}/cert-manager/cert-manager.io_certificates.yaml`, 'Certificate');
  const text = readFileSync(op.reconcile, 'utf8');
  const writes = text
    .replace(/_certificate: Certificate/, 'certificate: Certificate')
    .replace(/_context: CertificateContext/, 'context: CertificateContext')
    .replace(
      '  return {};\n}',
      '  const status = { ...certificate.status, failedIssuanceAttempts: 1 };\n' +
        '  await context.client.updateStatus(CertificateResource, { ...certificate, status });\n  return {};\n}',
    );
  assert.notEqual(writes, text);
  const register = "import { CertificateResource } from '../../apis/cert-manager.io/v1/register.js';\n";
  writeFileSync(op.reconcile, register + writes);
  const r = await nodeTest(op.test);
  assert.notEqual(r.code, 0, r.output);
  assert.match(r.output, /the status is left alone/);
});
