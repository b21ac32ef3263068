import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planWrite, resolveUnder, writeFiles, WriteError } from '../../../src/emit/writer.js';
import { GENERATED_HEADER } from '../../../src/emit/header.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-writer-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const gen = (path: string, body = 'x') => ({ path, contents: `${GENERATED_HEADER}\n${body}\n` });

test('resolveUnder refuses paths that leave the output folder', () => {
  assert.equal(resolveUnder('/out', 'apis/g/v1/types.ts'), '/out/apis/g/v1/types.ts');
  for (const bad of ['../x.ts', 'a/../../x.ts', '/etc/passwd', 'a\\..\\x', '']) assert.throws(() => resolveUnder('/out', bad), WriteError, bad);
});

test('plan, write atomically, keep user-owned files, no temp files left', async () => {
  const out = join(tmp, 'a');
  const files = [gen('apis/g/v1/types.ts'), { path: 'controllers/foo/logic.ts', contents: 'export {};\n', userOwned: true }];
  assert.deepEqual((await planWrite(out, files)).map((p) => `${p.action} ${p.path}`), ['create apis/g/v1/types.ts', 'create controllers/foo/logic.ts']);
  await writeFiles(out, files);
  writeFileSync(join(out, 'controllers/foo/logic.ts'), 'export const edited = 1;\n');
  const plan = await planWrite(out, [gen('apis/g/v1/types.ts', 'y'), files[1]!]);
  assert.deepEqual(plan.map((p) => `${p.action} ${p.path}`), ['update apis/g/v1/types.ts', 'keep controllers/foo/logic.ts']);
  await writeFiles(out, [gen('apis/g/v1/types.ts', 'y'), files[1]!]);
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
  await assert.rejects(writeFiles(out, [gen('apis/a/v1/types.ts'), gen('apis/g/v1/types.ts')]), /did not generate: apis\/g\/v1\/types\.ts/);
  assert.ok(!existsSync(join(out, 'apis/a')));
});
