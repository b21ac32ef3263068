import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
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
import { planWrite, resolveUnder, writeFiles, WriteError } from '../../../src/emit/writer.js';
import { GENERATED_HEADER, isGeneratedContents } from '../../../src/emit/header.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-writer-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const gen = (path: string, body = 'x') => ({ path, contents: `${GENERATED_HEADER}\n${body}\n` });

test('resolveUnder refuses paths that leave the output folder', () => {
  assert.equal(resolveUnder('/out', 'apis/g/v1/types.ts'), '/out/apis/g/v1/types.ts');
  for (const bad of ['../x.ts', 'a/../../x.ts', '/etc/passwd', 'a\\..\\x', ''])
    assert.throws(() => resolveUnder('/out', bad), WriteError, bad);
});

test('plan, write atomically, keep user-owned files, no temp files left', async () => {
  const out = join(tmp, 'a');
  const files = [
    gen('apis/g/v1/types.ts'),
    { path: 'controllers/foo/logic.ts', contents: 'export {};\n', userOwned: true },
  ];
  assert.deepEqual(
    (await planWrite(out, files)).map((p) => `${p.action} ${p.path}`),
    ['create apis/g/v1/types.ts', 'create controllers/foo/logic.ts'],
  );
  await writeFiles(out, files);
  writeFileSync(join(out, 'controllers/foo/logic.ts'), 'export const edited = 1;\n');
  const plan = await planWrite(out, [gen('apis/g/v1/types.ts', 'y'), files[1]]);
  assert.deepEqual(
    plan.map((p) => `${p.action} ${p.path}`),
    ['update apis/g/v1/types.ts', 'keep controllers/foo/logic.ts'],
  );
  await writeFiles(out, [gen('apis/g/v1/types.ts', 'y'), files[1]]);
  assert.equal(readFileSync(join(out, 'controllers/foo/logic.ts'), 'utf8'), 'export const edited = 1;\n');
  assert.match(readFileSync(join(out, 'apis/g/v1/types.ts'), 'utf8'), /\ny\n$/);
  assert.deepEqual(readdirSync(join(out, 'apis/g/v1')), ['types.ts']);
});

test('refuses to write through a symlinked folder that points outside', async () => {
  const out = join(tmp, 'b');
  const outside = join(tmp, 'outside');
  mkdirSync(join(out, 'apis'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, join(out, 'apis', 'g'));
  await assert.rejects(writeFiles(out, [gen('apis/g/v1/types.ts')]), WriteError);
  assert.ok(!existsSync(join(outside, 'v1', 'types.ts')));
});

test('a conflict with a hand-written file writes nothing at all', async () => {
  const out = join(tmp, 'c');
  mkdirSync(join(out, 'apis/g/v1'), { recursive: true });
  writeFileSync(join(out, 'apis/g/v1/types.ts'), 'mine\n');
  await assert.rejects(
    writeFiles(out, [gen('apis/a/v1/types.ts'), gen('apis/g/v1/types.ts')]),
    /did not generate: apis\/g\/v1\/types\.ts/,
  );
  assert.ok(!existsSync(join(out, 'apis/a')));
});

/** Every file under `dir` (dot files included: no temp file may be left) → contents. */
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

test('a failure injected at any step leaves the previous output exactly as it was', async () => {
  const out = join(tmp, 'rollback');
  const v1 = [
    gen('apis/g/v1/types.ts', 'one'),
    gen('apis/g/v1/register.ts', 'one'),
    gen('old/stale.ts', 'old'),
    gen('z/keep.ts', 'same'),
  ];
  await writeFiles(out, v1);
  writeFileSync(join(out, 'mine.md'), 'user file\n');
  const before = snapshot(out);
  // v2 updates two files, creates one in a new folder, keeps one, removes the stale one
  const v2 = [
    gen('apis/g/v1/types.ts', 'two'),
    gen('apis/g/v1/register.ts', 'two'),
    gen('apis/h/v1/types.ts', 'new'),
    gen('z/keep.ts', 'same'),
  ];
  const steps: string[] = [];
  await writeFiles(join(tmp, 'dry'), v1);
  await writeFiles(join(tmp, 'dry'), v2, { beforeStep: (s, p) => void steps.push(`${s} ${p}`) });
  assert.deepEqual(steps, [
    'stage apis/g/v1/register.ts',
    'stage apis/g/v1/types.ts',
    'stage apis/h/v1/types.ts',
    'commit apis/g/v1/register.ts',
    'commit apis/g/v1/types.ts',
    'commit apis/h/v1/types.ts',
    'remove old/stale.ts',
  ]);
  for (const failAt of steps) {
    const err = new Error(`disk full at ${failAt}`);
    await assert.rejects(
      writeFiles(out, v2, {
        beforeStep: (s, p) => {
          if (`${s} ${p}` === failAt) throw err;
        },
      }),
      err,
    );
    assert.deepEqual(snapshot(out), before, `after a failure at ${failAt}`);
  }
  // and without a failure the same write goes through
  await writeFiles(out, v2);
  assert.equal(readFileSync(join(out, 'apis/h/v1/types.ts'), 'utf8'), `${GENERATED_HEADER}\nnew\n`);
  assert.ok(!existsSync(join(out, 'old')), 'the folder the stale file left empty is removed');
  assert.equal(readFileSync(join(out, 'mine.md'), 'utf8'), 'user file\n');
});

test('a real I/O failure mid-write (target is a folder) rolls back too', async () => {
  const out = join(tmp, 'rollback-io');
  await writeFiles(out, [gen('a.ts', 'one'), gen('b/c.ts', 'one')]);
  const before = snapshot(out);
  // a generated path under an existing *file* cannot be created: mkdir fails after a.ts was staged
  await assert.rejects(writeFiles(out, [gen('a.ts', 'two'), gen('a.ts/x.ts', 'two'), gen('b/c.ts', 'two')]));
  assert.deepEqual(snapshot(out), before);
});

test('stale removal covers YAML, Dockerfile and licence-headed files; never files without the header', async () => {
  const out = join(tmp, 'stale');
  mkdirSync(join(out, 'sub'), { recursive: true });
  writeFileSync(join(out, 'sub/old.yaml'), '# Code generated by crdgen. DO NOT EDIT.\nkind: X\n');
  writeFileSync(join(out, 'sub/Dockerfile'), '# Code generated by crdgen. DO NOT EDIT.\nFROM node\n');
  writeFileSync(join(out, 'licensed.ts'), `/*\nCopyright 2026 The Authors.\n*/\n\n${GENERATED_HEADER}\nexport {};\n`);
  writeFileSync(join(out, 'mine.ts'), `export {};\n${GENERATED_HEADER}\n`);
  writeFileSync(join(out, 'notes.yaml'), 'a: 1\n');
  const plan = await planWrite(out, [gen('new.ts')]);
  assert.deepEqual(
    plan.map((p) => `${p.action} ${p.path}`),
    ['remove licensed.ts', 'create new.ts', 'remove sub/Dockerfile', 'remove sub/old.yaml'],
  );
  await writeFiles(out, [gen('new.ts')]);
  assert.deepEqual(readdirSync(out).sort(), ['mine.ts', 'new.ts', 'notes.yaml']);
});

test('isGeneratedContents: the marker first, or after comment-only boilerplate; not after code', () => {
  const yes = [
    `${GENERATED_HEADER}\n`,
    '# Code generated by crdgen. DO NOT EDIT.\nkind: X\n',
    `// Copyright 2026\n// SPDX-License-Identifier: Apache-2.0\n\n${GENERATED_HEADER}\n`,
    `/*\n * Licence\n */\n\n${GENERATED_HEADER}\nexport {};\n`,
    `/* one line */\r\n${GENERATED_HEADER}\r\n`,
  ];
  const no = [
    '',
    'export {};\n',
    `export {};\n${GENERATED_HEADER}\n`,
    `/* x */ const a = 1;\n${GENERATED_HEADER}\n`,
    `// ${GENERATED_HEADER}\n`,
    `/*\n${GENERATED_HEADER}\n*/\n`,
  ];
  for (const t of yes) assert.equal(isGeneratedContents(t), true, JSON.stringify(t));
  for (const t of no) assert.equal(isGeneratedContents(t), false, JSON.stringify(t));
});

test('onPlan sees the whole plan before anything changes; a throw there leaves the folder as it was', async () => {
  const out = join(tmp, 'onplan');
  await writeFiles(out, [gen('a.ts'), gen('old/b.ts')]);
  let seen: string[] = [];
  await assert.rejects(
    writeFiles(out, [gen('a.ts', 'changed')], {
      onPlan: (plan) => {
        seen = plan.map((p) => `${p.action} ${p.path}`);
        assert.ok(existsSync(join(out, 'old/b.ts')), 'not removed yet');
        assert.match(readFileSync(join(out, 'a.ts'), 'utf8'), /\nx\n$/, 'not written yet');
        throw new Error('stop');
      },
    }),
    /stop/,
  );
  assert.deepEqual(seen, ['update a.ts', 'remove old/b.ts']);
  assert.ok(existsSync(join(out, 'old/b.ts')));
  assert.match(readFileSync(join(out, 'a.ts'), 'utf8'), /\nx\n$/);
});
