import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atColumn, ImportTracker, layOut } from '../../../src/emit/code.js';
import { compileTemplate } from '../../../src/emit/handlebars.js';
import { importLines, signatureLine } from '../../../src/generate/layout.js';

test('ImportTracker: local names, aliases where the module allows them, one declaration per module', () => {
  const imports = new ImportTracker(['WatchLister'], { aliasPrefixes: { 'crdgen/runtime': 'Runtime' } });
  assert.equal(imports.use('./types.js', 'Watch', { type: true }), 'Watch');
  assert.equal(imports.use('crdgen/runtime', 'Watch', { type: true }), 'RuntimeWatch', 'taken by the kind: aliased');
  assert.equal(imports.use('crdgen/runtime', 'WatchLister'), 'RuntimeWatchLister', 'declared by the file: aliased');
  assert.equal(imports.use('crdgen/runtime', 'Selector', { type: true }), 'Selector');
  assert.equal(imports.use('crdgen/runtime', 'Selector'), 'Selector', 'the same name, the same local name');
  assert.equal(imports.use('crdgen/runtime', 'Stored', { type: true }), 'Stored');
  assert.equal(imports.use('./util.js', 'Stored'), 'Stored', 'no prefix for ./util.js: kept, and reported');
  assert.equal(
    importLines(imports),
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

test('ImportTracker: one order for every file: node: built-ins, packages, then relative modules, each by specifier', () => {
  const imports = new ImportTracker();
  imports.use('./controller.js', 'FooContext', { type: true });
  imports.useNamespace('./reconcile.js', 'hooks');
  imports.use('../../apis/x.io/v1/types.js', 'Foo', { type: true });
  imports.use('../../apis/x.io/v1/register.js', 'FooResource');
  imports.use('crdgen/runtime', 'isNotFound');
  imports.use('node:test', 'test');
  assert.equal(
    importLines(imports),
    [
      'import { test } from "node:test";',
      'import { isNotFound } from "crdgen/runtime";',
      'import { FooResource } from "../../apis/x.io/v1/register.js";',
      'import type { Foo } from "../../apis/x.io/v1/types.js";',
      'import type { FooContext } from "./controller.js";',
      'import * as hooks from "./reconcile.js";',
    ].join('\n'),
  );
  assert.ok(imports.localNames().includes('hooks'), 'a namespace import binds its name');
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
