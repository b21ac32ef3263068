// The output transaction (src/emit/output.ts): files handed over one by one, compared at once,
// new and changed ones staged outside the output folder until commit; a failure at any step
// leaves the folder — and the folder it is in — exactly as they were.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStager, OutputTransaction, stampOf } from '../../../src/emit/output.js';
import { WriteError } from '../../../src/emit/writer.js';
import { GENERATED_HEADER } from '../../../src/emit/header.js';
import type { GeneratedFile } from '../../../src/emit/file.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-output-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const gen = (path: string, body = 'x') => ({ path, contents: `${GENERATED_HEADER}\n${body}\n` });

/** Every entry under `dir` (dot entries too: nothing may be left behind) → contents, `<dir>` for folders. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out.set(`${rel}${e.name}/`, '<dir>');
        walk(p, `${rel}${e.name}/`);
      } else out.set(`${rel}${e.name}`, readFileSync(p, 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}

/** Writes `files` through one transaction; returns its steps as `action path`. */
function write(out: string, files: GeneratedFile[], opts: ConstructorParameters<typeof OutputTransaction>[1] = {}) {
  const tx = new OutputTransaction(out, opts);
  for (const f of files) tx.add(f);
  tx.finish();
  const steps = tx.steps().map((s) => `${s.action} ${s.path}`);
  tx.commit();
  return steps;
}

test('a new folder: every file created, the staged tree moved into place; nothing else beside it', () => {
  const parent = join(tmp, 'fresh');
  mkdirSync(parent);
  const out = join(parent, 'gen');
  const steps = write(out, [gen('apis/g/v1/types.ts'), gen('clientset/clientset.ts')]);
  assert.deepEqual(steps, ['create apis/g/v1/types.ts', 'create clientset/clientset.ts']);
  assert.deepEqual(readdirSync(parent), ['gen']);
  assert.equal(readFileSync(join(out, 'apis/g/v1/types.ts'), 'utf8'), gen('a').contents);
});

test('nothing under the output folder changes before commit; abort leaves no staging folder', () => {
  const parent = join(tmp, 'pending');
  const out = join(parent, 'gen');
  write(out, [gen('a.ts', 'one'), gen('b/c.ts', 'one')]);
  const before = snapshot(parent);
  const tx = new OutputTransaction(out);
  assert.equal(tx.add(gen('a.ts', 'two')).action, 'update');
  assert.equal(tx.add(gen('b/c.ts', 'one')).action, 'unchanged');
  assert.equal(tx.add(gen('d.ts')).action, 'create');
  const staged = snapshot(parent);
  assert.deepEqual(
    [...staged.keys()].filter((k) => !k.startsWith('.')),
    [...before.keys()],
    'the output folder as it was while the files are staged',
  );
  assert.ok(
    [...staged.keys()].some((k) => /^\.gen\.crdgen-[0-9a-f]+\//.test(k)),
    'staged beside the output folder',
  );
  tx.abort();
  assert.deepEqual(snapshot(parent), before);
});

test('updates, keeps user-owned files, removes stale generated files only, prunes emptied folders', () => {
  const out = join(tmp, 'update');
  write(out, [gen('apis/g/v1/types.ts', 'one'), gen('old/stale.ts'), gen('z/same.ts')]);
  writeFileSync(join(out, 'mine.md'), 'user file\n');
  writeFileSync(join(out, 'controllers.ts'), 'export {};\n');
  const steps = write(out, [
    gen('apis/g/v1/types.ts', 'two'),
    gen('z/same.ts'),
    { path: 'controllers.ts', contents: 'export const fresh = 1;\n', userOwned: true },
  ]);
  assert.deepEqual(steps, [
    'update apis/g/v1/types.ts',
    'keep controllers.ts',
    'remove old/stale.ts',
    'unchanged z/same.ts',
  ]);
  assert.match(readFileSync(join(out, 'apis/g/v1/types.ts'), 'utf8'), /\ntwo\n$/);
  assert.equal(readFileSync(join(out, 'controllers.ts'), 'utf8'), 'export {};\n');
  assert.equal(readFileSync(join(out, 'mine.md'), 'utf8'), 'user file\n');
  assert.ok(!existsSync(join(out, 'old')));
  assert.deepEqual(
    readdirSync(tmp).filter((e) => e.startsWith('.update')),
    [],
  );
});

test('a file crdgen did not generate where a generated one goes: the whole commit is refused', () => {
  const out = join(tmp, 'conflict');
  mkdirSync(join(out, 'apis/g/v1'), { recursive: true });
  writeFileSync(join(out, 'apis/g/v1/types.ts'), 'mine\n');
  const before = snapshot(tmp);
  const tx = new OutputTransaction(out);
  tx.add(gen('apis/a/v1/types.ts'));
  assert.equal(tx.add(gen('apis/g/v1/types.ts')).action, 'conflict');
  assert.throws(() => tx.commit(), /did not generate: apis\/g\/v1\/types\.ts/);
  assert.deepEqual(snapshot(tmp), before);
});

test('refuses symbolic links and paths out of the folder', () => {
  const out = join(tmp, 'links');
  const outside = join(tmp, 'outside');
  mkdirSync(join(out, 'apis'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, join(out, 'apis', 'g'));
  const tx = new OutputTransaction(out);
  tx.add(gen('apis/g/v1/types.ts'));
  assert.throws(() => tx.commit(), WriteError);
  assert.ok(!existsSync(join(outside, 'v1', 'types.ts')));
  assert.throws(() => new OutputTransaction(out).add(gen('../x.ts')), WriteError);
  symlinkSync(join(outside, 'nowhere'), join(out, 'file.ts'));
  assert.throws(() => new OutputTransaction(out).add(gen('file.ts')), /symbolic link/);
});

test('a failure injected at any step leaves the folder and its parent exactly as they were', () => {
  const parent = join(tmp, 'rollback');
  const out = join(parent, 'gen');
  const v1 = [
    gen('apis/g/v1/types.ts', 'one'),
    gen('apis/g/v1/register.ts', 'one'),
    gen('old/stale.ts'),
    gen('z/keep.ts'),
  ];
  const v2 = [
    gen('apis/g/v1/types.ts', 'two'),
    gen('apis/g/v1/register.ts', 'two'),
    gen('apis/h/v1/types.ts'),
    gen('z/keep.ts'),
  ];
  write(out, v1);
  writeFileSync(join(out, 'mine.md'), 'user file\n');
  const before = snapshot(parent);
  const steps: string[] = [];
  const dry = join(tmp, 'rollback-dry', 'gen');
  write(dry, v1);
  write(dry, v2, { beforeStep: (s, p) => void steps.push(`${s} ${p}`) });
  assert.deepEqual(steps, [
    'stage apis/g/v1/types.ts',
    'stage apis/g/v1/register.ts',
    'stage apis/h/v1/types.ts',
    'commit apis/g/v1/register.ts',
    'commit apis/g/v1/types.ts',
    'commit apis/h/v1/types.ts',
    'remove old/stale.ts',
  ]);
  for (const failAt of steps) {
    const err = new Error(`disk full at ${failAt}`);
    assert.throws(
      () =>
        write(out, v2, {
          beforeStep: (s, p) => {
            if (`${s} ${p}` === failAt) throw err;
          },
        }),
      err,
    );
    assert.deepEqual(snapshot(parent), before, `after a failure at ${failAt}`);
  }
  write(out, v2);
  assert.equal(readFileSync(join(out, 'apis/h/v1/types.ts'), 'utf8'), gen('', 'x').contents);
  assert.ok(!existsSync(join(out, 'old')));
});

test('a failure while the new folder is staged leaves nothing, not even the folders made for it', () => {
  const parent = join(tmp, 'fresh-fail');
  mkdirSync(parent);
  for (const failAt of ['stage b.ts', 'commit a.ts']) {
    assert.throws(() =>
      write(join(parent, 'deep', 'gen'), [gen('a.ts'), gen('b.ts')], {
        beforeStep: (s, p) => {
          if (`${s} ${p}` === failAt) throw new Error(failAt);
        },
      }),
    );
    assert.deepEqual(readdirSync(parent), [], failAt);
  }
});

test('a stager in another thread plans and stages; the transaction records and commits', () => {
  const out = join(tmp, 'stager');
  write(out, [gen('a.ts', 'one'), gen('b.ts', 'one')]);
  const tx = new OutputTransaction(out);
  const stager = new FileStager(structuredClone(tx.stagerState()));
  for (const f of [gen('a.ts', 'two'), gen('b.ts', 'one'), gen('c.ts')]) tx.record(f.path, stager.add(f).action);
  tx.finish();
  assert.deepEqual(
    tx.steps().map((s) => `${s.action} ${s.path}`),
    ['update a.ts', 'unchanged b.ts', 'create c.ts'],
  );
  tx.commit();
  assert.match(readFileSync(join(out, 'a.ts'), 'utf8'), /\ntwo\n$/);
  assert.ok(existsSync(join(out, 'c.ts')));
});

test('files known from an earlier run: unchanged when their stamp matches, stale ones removed unread', () => {
  const out = join(tmp, 'known');
  write(out, [gen('a.ts'), gen('b.ts')]);
  const stamps = new Map(['a.ts', 'b.ts'].map((p) => [p, stampOf(lstatSync(join(out, p)))]));
  const tx = new OutputTransaction(out, { known: stamps });
  assert.equal(tx.isUnchanged('a.ts', false), true);
  tx.markUnchanged('a.ts', false);
  writeFileSync(join(out, 'b.ts'), 'edited by hand\n');
  assert.equal(tx.isUnchanged('b.ts', false), false, 'a file changed since is not taken as unchanged');
  // b.ts is no longer produced; it was crdgen's, but it was edited: no header, so it stays
  tx.finish();
  assert.deepEqual(
    tx.steps().map((s) => `${s.action} ${s.path}`),
    ['unchanged a.ts'],
  );
  tx.commit();
  assert.equal(readFileSync(join(out, 'b.ts'), 'utf8'), 'edited by hand\n');
});
