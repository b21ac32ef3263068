// The threads of a streaming run (src/cli/stream-jobs.ts, src/cli/stream.ts): a thread builds a
// cluster from the checked CRDs it kept when it checked the inputs, without reading them again,
// the pool hands a thread the jobs meant for it before others, and a run takes worker threads
// only on idle cores.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../../golden/support.js';
import { resolveTargets } from '../../../src/cli/options.js';
import { emitContext } from '../../../src/cli/pipeline.js';
import { sha256, type ScanRecord } from '../../../src/cli/cache.js';
import { jobHandler, Keeper, targetData, type ClusterResult } from '../../../src/cli/stream-jobs.js';
import { nextJobAt, threadsFor, WORKER_MIN_BYTES } from '../../../src/cli/stream.js';
import { lightModel } from '../../../src/input/crd/index.js';
import { OutputTransaction } from '../../../src/emit/output.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-stream-jobs-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Checks the DatabaseManager CRD in a thread keeping `share` of the budgets, deletes the file, then
 * asks the same thread for its cluster.
 */
async function clusterAfterDelete(share: number): Promise<{ kept: boolean; result: Promise<ClusterResult> }> {
  const dir = mkdtempSync(join(tmp, 'run-'));
  const abs = join(dir, 'crd.yaml');
  copyFileSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), abs);
  const io = {
    stdout: () => undefined,
    stderr: () => undefined,
    readStdin: () => Promise.resolve(new Uint8Array()),
    cwd: dir,
  };
  const resolution = await resolveTargets(['crd.yaml'], { out: 'out' }, (n) => n === 'out', io, true);
  const target = resolution.targets[0];
  const handle = jobHandler(new Keeper(share));
  const bytes = new Uint8Array(readFileSync(abs));
  const hash = sha256(bytes);
  const input = { file: 'crd.yaml', abs };
  const scanned = (await handle({ type: 'scan', id: 1, input, hash, bytes })) as {
    scan: ScanRecord;
    kept: boolean;
  };
  assert.deepEqual(scanned.scan.diagnostics, []);
  rmSync(abs);
  const sources = ['crd.yaml'];
  const tx = new OutputTransaction(join(dir, 'out'), { dryRun: true });
  await handle({
    type: 'setup',
    target: targetData(target),
    ctx: emitContext(target, { groups: [], sources }),
    base: lightModel(scanned.scan.kinds, sources),
    header: undefined,
    command: 'generate',
    stager: tx.stagerState(),
  });
  const job = {
    groups: scanned.scan.groups,
    files: [{ file: 'crd.yaml', abs, hash }],
    checkOnly: false,
    operators: [],
  };
  const result = handle({ type: 'cluster', id: 2, job }).then((r) => (r as { result: ClusterResult }).result);
  return { kept: scanned.kept, result };
}

test('a thread builds a cluster from the CRDs it kept, without reading the input again', async () => {
  const { kept, result } = await clusterAfterDelete(1);
  assert.equal(kept, true);
  const r = await result;
  assert.equal(r.failure, undefined);
  assert.deepEqual(r.engine, []);
  assert.ok(
    r.steps.some((s) => s.path === 'apis/coolops.cn/v1alpha1/types.ts' && s.action === 'create'),
    JSON.stringify(r.steps.map((s) => s.path)),
  );
});

test('a thread with no budget keeps nothing and reads the input again (here: gone, an error)', async () => {
  const { kept, result } = await clusterAfterDelete(0);
  assert.equal(kept, false);
  await assert.rejects(result, /ENOENT/);
});

test('a thread takes the jobs meant for it first, then any thread’s, and another’s only when idle', () => {
  const jobs = [{ thread: 1 }, { thread: undefined }, { thread: 0 }, { thread: 1 }];
  assert.equal(nextJobAt(jobs, 0, false), 2);
  assert.equal(nextJobAt(jobs, 1, false), 0);
  assert.equal(nextJobAt(jobs, -1, false), 1);
  const others = [{ thread: 1 }, { thread: 0 }, { thread: 1 }];
  assert.equal(nextJobAt(others, -1, false), -1);
  assert.equal(nextJobAt(others, -1, true), 2);
  assert.equal(nextJobAt([], 0, true), -1);
});

test('the threads of a run: idle cores and a large input take a worker; busy cores, a small input or CRDGEN_WORKERS none', () => {
  const MB = 1024 * 1024;
  const machine = { cores: 2, busy: 0, heapLimit: 4096 * MB };
  assert.deepEqual(threadsFor(6 * MB, {}, machine), { threads: 1, local: true });
  assert.deepEqual(threadsFor(6 * MB, {}, { ...machine, cores: 8 }), { threads: 4, local: true });
  assert.deepEqual(threadsFor(6 * MB, {}, { ...machine, busy: 1 }), { threads: 0, local: true });
  assert.deepEqual(threadsFor(WORKER_MIN_BYTES - 1, {}, machine), { threads: 0, local: true });
  assert.deepEqual(threadsFor(6 * MB, { CRDGEN_WORKERS: '0' }, machine), { threads: 0, local: true });
  assert.deepEqual(threadsFor(6 * MB, { CRDGEN_WORKERS: '3' }, { ...machine, busy: 2 }), { threads: 3, local: true });
  // inputs that could fill the heap: workers only, on busy cores too
  assert.deepEqual(threadsFor(200 * MB, {}, { ...machine, busy: 2 }), { threads: 2, local: false });
});
