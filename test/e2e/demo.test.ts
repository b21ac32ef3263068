// `crdgen demo` end to end (in-process command, operator as its own process): every step
// is narrated, it ends by itself with exit 0, and it cleans up its generated folder.
// Uses dist/runtime (the demo runs from the build, as `npm run demo` does; `npm test` builds first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { runDemo } from '../../src/cli/demo.js';
import { ROOT } from '../golden/support.js';

test('crdgen demo: create → Deployment → availableReplicas, scale, delete; exit 0', async () => {
  let out = '';
  let err = '';
  const io = {
    stdout: (s: string) => void (out += s),
    stderr: (s: string) => void (err += s),
    readStdin: async () => new Uint8Array(),
    cwd: ROOT,
  };
  const code = await runDemo({ io, setExitCode: () => undefined });
  assert.equal(code, 0, err);
  for (const step of [
    'Deployment orders-db appeared: replicas 2, image postgres:17, owned by DatabaseManager orders',
    'status.availableReplicas reached 2',
    'Deployment orders-db scaled to 4',
    'status.availableReplicas reached 4',
    'Deployment orders-db is gone',
    'Against a real cluster',
  ]) {
    assert.ok(out.includes(step), `missing step ${JSON.stringify(step)} in:\n${out}`);
  }
  assert.deepEqual(
    readdirSync(ROOT).filter((f) => f.startsWith('.crdgen-demo-')),
    [],
    'generated folder removed',
  );
});
