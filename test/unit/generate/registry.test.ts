import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmitterConflictError, isSafeOutputPath, runEmitters, type EmitterEntry } from '../../../src/generate/registry.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import type { Model } from '../../../src/model/types.js';

const model: Model = { groups: [], sources: [] };
const entry = (name: string, paths: string[]): EmitterEntry => ({
  name, description: name, emit: () => paths.map((path) => ({ path, contents: `${name}\n` })),
});

test('runEmitters keeps emitter order and refuses duplicate paths', () => {
  const ctx = createEmitContext();
  assert.equal(ctx.runtimeImport, 'crdgen/runtime');
  const files = runEmitters(model, ctx, [entry('a', ['x/2.ts', 'x/1.ts']), entry('b', ['y.ts'])]);
  assert.deepEqual(files.map((f) => f.path), ['x/2.ts', 'x/1.ts', 'y.ts']);
  assert.throws(() => runEmitters(model, ctx, [entry('a', ['x.ts']), entry('b', ['x.ts'])]), (e: unknown) => e instanceof EmitterConflictError && /a and b both write x\.ts/.test(e.message));
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
