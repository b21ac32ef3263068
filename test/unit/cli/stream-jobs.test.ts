// The threads of a streaming run (src/cli/stream-jobs.ts, src/cli/stream.ts): a thread builds a
// cluster from the checked CRDs it kept when it checked the inputs, without reading them again,
// and the pool hands a thread the jobs meant for it before others.
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
import { nextJobAt } from '../../../src/cli/stream.js';
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
