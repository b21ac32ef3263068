import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atColumn, ImportTracker, layOut } from '../../../src/emit/code.js';
import { compileTemplate } from '../../../src/emit/handlebars.js';
import { importDecl, signatureLine } from '../../../src/generate/layout.js';
import { tsString } from '../../../src/model/naming.js';

const decl = (specifiers: readonly string[], module: string, typeOnly: boolean) =>
  importDecl(specifiers, tsString(module), typeOnly);

test('ImportTracker: local names, aliases where the module allows them, one declaration per module', () => {
  const imports = new ImportTracker(['WatchLister'], {
    aliasPrefixes: { 'crdgen/runtime': 'Runtime' },
    order: ['crdgen/runtime'],
  });
  assert.equal(imports.use('./types.js', 'Watch', { type: true }), 'Watch');
  assert.equal(imports.use('crdgen/runtime', 'Watch', { type: true }), 'RuntimeWatch', 'taken by the kind: aliased');
  assert.equal(imports.use('crdgen/runtime', 'WatchLister'), 'RuntimeWatchLister', 'declared by the file: aliased');
  assert.equal(imports.use('crdgen/runtime', 'Selector', { type: true }), 'Selector');
  assert.equal(imports.use('crdgen/runtime', 'Selector'), 'Selector', 'the same name, the same local name');
  assert.equal(imports.use('crdgen/runtime', 'Stored', { type: true }), 'Stored');
  assert.equal(imports.use('./util.js', 'Stored'), 'Stored', 'no prefix for ./util.js: kept, and reported');
  assert.equal(
    imports.declarations(decl),
    [
      'import {\n  Selector,\n  WatchLister as RuntimeWatchLister,\n  type Stored,\n  type Watch as RuntimeWatch,\n} from "crdgen/runtime";',
      'import type { Watch } from "./types.js";',
      'import { Stored } from "./util.js";',
    ].join('\n'),
  );
  const names = imports.localNames();
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    ['Stored'],
    'the collision is visible to the emitter',
  );
});

test('ImportTracker: modules named in order come first, unused ones are left out', () => {
  const imports = new ImportTracker([], { order: ['a', 'b'] });
  imports.use('c', 'C');
  imports.use('b', 'B', { type: true });
  assert.equal(imports.declarations(decl), 'import type { B } from "b";\nimport { C } from "c";');
});

test('layOut: a piece is laid out for the column of its placeholder; templates keep the code shape', () => {
  const template = compileTemplate(
    'export interface X {\n  {{sig}}\n  {{#each more}}\n    {{this}}\n  {{/each}}\n}\n{{plain}}\n',
  );
  const sig = (w: number) =>
    signatureLine(
      w,
      'list',
      ['selector?: Selector | string', 'options?: { limit?: number }'],
      'Promise<Stored<DatabaseManager>[]>',
      ';',
    );
  const out = layOut(template, { sig: atColumn(sig), more: [atColumn((w) => `${' '.repeat(w)}w=${w}`)], plain: 'x' });
  assert.equal(out, `export interface X {\n${sig(2)}\n    w=4\n}\nx\n`);
  assert.match(sig(2), /^ {2}list\(\n {4}selector/, 'broken at the width the template gave');
  assert.throws(() => layOut(compileTemplate('a {{sig}}\n'), { sig: atColumn(sig) }), /must stand alone on its line/);
});
