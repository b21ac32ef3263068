// crdgen/types: every name the reader maps is exported, and annotated files typecheck against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { BUILTIN_TYPE_NAMES } from '../../../../src/input/ts/schema.js';
import { ROOT } from '../../../golden/support.js';
import { runtimeEntry, tscStrict } from '../../../compile/tsc.js';

test('crdgen/types exports every name the reader maps (and ListMeta), as types only', () => {
  const project = new Project({ skipAddingFilesFromTsConfig: true, compilerOptions: { noLib: true } });
  const sf = project.addSourceFileAtPath(join(ROOT, 'src/types/index.ts'));
  project.addSourceFileAtPath(join(ROOT, 'src/runtime/meta/types.ts'));
  const exported = [...sf.getExportedDeclarations().keys()].sort();
  assert.deepEqual(exported, [...BUILTIN_TYPE_NAMES, 'ListMeta'].sort());
  // type-only: nothing is emitted but an empty module
  const js =
    sf
      .getEmitOutput()
      .getOutputFiles()
      .find((f) => f.getFilePath().endsWith('.js'))
      ?.getText() ?? '';
  assert.equal(
    js
      .replace(/\/\/.*\n/g, '')
      .replace(/export \{\};?/, '')
      .trim(),
    '',
  );
});

test('the TypeScript fixture typechecks with tsc --strict against crdgen/types', async () => {
  // (await: tscStrict may be sync or async)
  const r = await tscStrict([join(ROOT, 'fixtures/databasemanager-ts')], 'bundler', {
    options: { paths: { 'crdgen/runtime': [runtimeEntry()], 'crdgen/types': [join(ROOT, 'src/types/index.ts')] } },
  });
  assert.equal(r.output, '');
  assert.equal(r.status, 0);
});
