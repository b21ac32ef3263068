// `crdgen demo --webhooks` end to end (in-process command, operator as its own process): the
// two-version DatabaseManager example with the operator's webhooks called by the test API
// server; every step is narrated and checked, it ends by itself with exit 0.
// Uses dist/runtime (the demo runs from the build, as `npm run demo` does; `npm test` builds first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoCommand } from '../../src/cli/demo.js';
import { ROOT } from '../golden/support.js';

test('crdgen demo --webhooks: defaulting, conversion both ways, the validating hook refusing an engine change; exit 0', async () => {
  let out = '';
  let err = '';
  const io = {
    stdout: (s: string) => void (out += s),
    stderr: (s: string) => void (err += s),
    readStdin: async () => new Uint8Array(),
    cwd: ROOT,
  };
  let code: number | undefined;
  const cmd = createDemoCommand({ io, setExitCode: (c: number) => void (code = c) });
  await cmd.parseAsync(['--webhooks'], { from: 'user' });
  assert.equal(code, 0, err);
  for (const step of [
    'read through v1: {"deploymentName":"orders-db","replicas":2,"engine":"postgres","version":"17"}',
    'read through v1alpha1: {"deploymentName":"orders-db","replicas":2,"dbtype":"postgres"}',
    'Deployment orders-db appeared: image postgres:17',
    'refused: admission webhook "vdatabasemanager-v1.coolops.cn" denied the request: DatabaseManager.coolops.cn "orders" is invalid: spec.engine: Forbidden: a database cannot change engine in place (postgres to mysql); create a new DatabaseManager with engine mysql',
    '6. deleting the DatabaseManager',
  ]) {
    assert.ok(out.includes(step), `missing step ${JSON.stringify(step)} in:\n${out}`);
  }
});
