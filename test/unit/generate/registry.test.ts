import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EMITTERS,
  EmitterConflictError,
  isSafeOutputPath,
  runEmitters,
  type EmitterEntry,
} from '../../../src/generate/registry.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import type { Model } from '../../../src/model/types.js';

const model: Model = { groups: [], sources: [] };
const entry = (name: string, paths: string[]): EmitterEntry => ({
  name,
  description: name,
  emit: () => paths.map((path) => ({ path, contents: `${name}\n` })),
});

test('runEmitters keeps emitter order and refuses duplicate paths', () => {
  const ctx = createEmitContext();
  assert.equal(ctx.runtimeImport, 'crdgen/runtime');
  const files = runEmitters(model, ctx, [entry('a', ['x/2.ts', 'x/1.ts']), entry('b', ['y.ts'])]);
  assert.deepEqual(
    files.map((f) => f.path),
    ['x/2.ts', 'x/1.ts', 'y.ts'],
  );
  assert.throws(
    () => runEmitters(model, ctx, [entry('a', ['x.ts']), entry('b', ['x.ts'])]),
    (e: unknown) => e instanceof EmitterConflictError && /a and b both write x\.ts/.test(e.message),
  );
  assert.throws(() => runEmitters(model, ctx, [entry('a', ['../x.ts'])]), EmitterConflictError);
});

test('isSafeOutputPath', () => {
  assert.ok(isSafeOutputPath('apis/coolops.cn/v1alpha1/types.ts'));
  for (const p of ['', '/abs', 'a//b', 'a/../b', 'a\\b', 'C:/x']) assert.ok(!isSafeOutputPath(p), p);
});

test('createEmitContext sorts sources and keeps runtimeImport override', () => {
  const ctx = createEmitContext({ sources: ['b.yaml', 'a\\c.yaml'], runtimeImport: '../rt/index.js' });
  assert.deepEqual(ctx.sources, ['a/c.yaml', 'b.yaml']);
  assert.equal(ctx.runtimeImport, '../rt/index.js');
});

test('selectEmitters adds what a generator imports, so any selection yields a self-contained tree', async () => {
  const { selectEmitters } = await import('../../../src/generate/registry.js');
  const { readCrdInputs } = await import('../../../src/input/crd/index.js');
  const { readFileSync } = await import('node:fs');
  const { posix } = await import('node:path');
  assert.deepEqual(
    selectEmitters(['clientset']).map((e) => e.name),
    ['types', 'register', 'validators', 'clientset'],
  );
  assert.throws(() => selectEmitters(['nope']), /unknown generator\(s\) nope/);
  const { model } = readCrdInputs([
    { file: 'crd.yaml', content: readFileSync('fixtures/databasemanager/crd.yaml', 'utf8') },
  ]);
  const ctx = createEmitContext({ sources: ['crd.yaml'], controllers: ['DatabaseManager'] });
  for (const e of EMITTERS) {
    const files = runEmitters(model, ctx, selectEmitters([e.name]));
    const paths = new Set(files.map((f) => f.path));
    for (const f of files) {
      if (!f.path.endsWith('.ts')) continue;
      for (const m of f.contents.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
        const target = posix.normalize(posix.join(posix.dirname(f.path), `${m[1]}.ts`));
        assert.ok(paths.has(target), `--generators ${e.name}: ${f.path} imports ${target}, which is not generated`);
      }
    }
  }
});
