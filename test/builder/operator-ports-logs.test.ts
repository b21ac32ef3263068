// runOperator as its own process, meeting what a user's machine does to it: another operator on
// the metrics or probe port (the failure names the flag and the way out: another port, or 0), and
// an API server that is down (the informers' list/watch failures are JSON log lines on stdout,
// like every other line: nothing plain on either stream).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApiServer } from '../../src/testing/index.js';
import { startOperator, type OperatorProcess } from '../e2e/support.js';
import { WIDGET_CRD } from './support.js';

const MAIN = fileURLToPath(new URL('./manager-operator-main.ts', import.meta.url));
const ops: OperatorProcess[] = [];
const servers: Server[] = [];
after(async () => {
  for (const op of ops) await op.kill();
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A port on 127.0.0.1 that something else holds. */
async function takenPort(): Promise<number> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as { port: number }).port;
}

for (const [flag, other, what] of [
  ['--metrics-bind-address', '--health-probe-bind-address', 'metrics'],
  ['--health-probe-bind-address', '--metrics-bind-address', 'health probes'],
] as const) {
  test(`${flag} on a port another process holds: exit 1, one JSON line naming the flag, another port and 0`, async () => {
    const env = await startTestApiServer({ crds: [WIDGET_CRD] });
    try {
      const port = await takenPort();
      const op = startOperator(MAIN, ['--kubeconfig', env.kubeconfigPath, flag, `127.0.0.1:${port}`, other, '0']);
      ops.push(op);
      assert.equal(await op.exited, 1);
      const failed = op.logs.find((l) => l.msg === 'operator failed');
      assert.equal(
        failed?.['err'],
        `${flag} 127.0.0.1:${port}: the address is in use (another operator on this machine?): give another port (${flag} 127.0.0.1:${port + 10}), or ${flag} 0 to serve no ${what}`,
      );
      assert.deepEqual(op.other, [], 'nothing but JSON lines');
    } finally {
      await env.stop();
    }
  });
}

test('the API server down: the list/watch failures are JSON lines on stdout, stderr stays empty; SIGTERM stops it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-operator-down-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const kept = join(dir, 'kubeconfig'); // an explicit path: stop() leaves it
  const env = await startTestApiServer({ crds: [WIDGET_CRD], kubeconfigPath: kept });
  await env.stop(); // nothing listens at its address any more
  const op = startOperator(MAIN, [
    '--kubeconfig',
    kept,
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
  ]);
  ops.push(op);
  const failed = await op.waitForLog((l) => l.msg === 'list/watch failed', 60_000);
  assert.equal(failed['level'], 'warn');
  assert.match(String(failed['informer']), /^widgets\./);
  assert.match(String(failed['err']), /ECONNREFUSED/);
  op.proc.kill('SIGTERM');
  await op.exited;
  assert.deepEqual(op.other, [], 'every line JSON, on stdout');
});
