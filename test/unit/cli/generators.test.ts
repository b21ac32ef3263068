// Which generators a run uses (`--generators a,b`, `+crd`, `-fake`, `all`) and which files it may
// remove: a run of some generators never deletes another generator's files; a full run
// still removes every stale generated file; verify agrees with generate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../../src/generate/registry.js';
import { GENERATORS } from '../../../src/generate/generators.js';
import { OUTPUT_PATTERNS, ownerOf } from '../../../src/generate/ownership.js';
import { CORPUS, ROOT, caseInputs, caseOptions, readTree, yamlCases, yamlFiles } from '../../golden/support.js';
import { cli } from './cli-support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-generators-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const CRD = 'fixtures/databasemanager/crd.yaml';
const names = (tree: Map<string, string>): string[] => [...tree.keys()].sort();

test('every file an emitter writes is owned, by its path, by that generator and no other (fixtures and corpus)', () => {
  assert.deepEqual(
    Object.keys(OUTPUT_PATTERNS).sort(),
    GENERATORS.map((g) => g.name).sort(),
    'every generator has a layout',
  );
  const inputs: Array<{ files: string[]; controllers?: string[] }> = yamlCases().map((c) => ({
    files: caseInputs(c).map((f) => join(ROOT, f)),
    ...caseOptions(c),
  }));
  for (const f of yamlFiles(CORPUS)) inputs.push({ files: [f] });
  assert.ok(inputs.length > 5);
  let checked = 0;
  for (const input of inputs) {
    const r = readCrdInputs(input.files.map((file) => ({ file, content: readFileSync(file) })));
    if (r.diagnostics.some((d) => d.severity === 'error')) continue;
    const kinds = r.model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds.map((k) => k.kind)));
    const controllers =
      input.controllers ?? (new Set(kinds).size === kinds.length ? [...new Set(kinds)].slice(0, 1) : []);
    const ctx = createEmitContext({ sources: r.model.sources, controllers });
    for (const e of EMITTERS) {
      for (const f of runEmitters(r.model, ctx, [e])) {
        assert.equal(ownerOf(f.path), e.name, `${f.path} (from ${input.files.join(', ')})`);
        checked++;
      }
    }
  }
  assert.ok(checked > 500, `checked ${checked} files`);
  assert.equal(ownerOf('README.md'), undefined);
  assert.equal(ownerOf('clientset/other.ts'), undefined);
});

test('--generators crd on a full output folder writes the CRD and removes nothing; verify of either set passes', async () => {
  const out = join(tmp, 'subset');
  assert.equal((await cli(['generate', CRD, '--out', out, '--controller', 'DatabaseManager'])).code, 0);
  const before = readTree(out);
  assert.ok(before.size >= 15);
  const r = await cli(['generate', CRD, '--out', out, '--generators', 'crd']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'generated 1 file for 1 kind in 1 group: 1 written\n');
  const afterRun = readTree(out);
  assert.deepEqual(names(afterRun), [...names(before), 'config/crd/databasemanagers.coolops.cn.yaml'].sort());
  for (const [p, text] of before) assert.equal(afterRun.get(p), text, p);
  assert.equal((await cli(['verify', CRD, '--out', out, '--generators', 'crd'])).code, 0);
  assert.equal(
    (await cli(['verify', CRD, '--out', out, '--controller', 'DatabaseManager'])).code,
    0,
    'a default run does not call the crd files stale either',
  );
  // a subset that is types and what it needs
  const t = await cli(['generate', CRD, '--out', out, '--generators', 'types', '-v']);
  assert.equal(t.code, 0, t.stderr);
  assert.doesNotMatch(t.stderr, /remove/);
  assert.equal(readTree(out).size, afterRun.size);
});

test('--generators +crd adds to the defaults; -name leaves one out; all is every generator', async () => {
  const plus = join(tmp, 'plus');
  const r = await cli(['generate', CRD, '--out', plus, '--generators', '+crd']);
  assert.equal(r.code, 0, r.stderr);
  const defaults = join(tmp, 'defaults');
  assert.equal((await cli(['generate', CRD, '--out', defaults])).code, 0);
  assert.deepEqual(
    names(readTree(plus)),
    [...names(readTree(defaults)), 'config/crd/databasemanagers.coolops.cn.yaml'].sort(),
  );
  assert.equal((await cli(['verify', CRD, '--out', plus, '--generators', '+crd'])).code, 0);

  const minus = join(tmp, 'minus');
  assert.equal((await cli(['generate', CRD, '--out', minus, '--generators', '-fake,-applyconfig'])).code, 0);
  const m = names(readTree(minus));
  assert.ok(!m.some((p) => p.startsWith('clientset/fake/') || p.startsWith('applyconfigurations/')), m.join('\n'));
  assert.deepEqual(
    m,
    names(readTree(defaults)).filter((p) => !p.startsWith('clientset/fake/') && !p.startsWith('applyconfigurations/')),
  );

  const all = join(tmp, 'all');
  assert.equal((await cli(['generate', CRD, '--out', all, '--generators', 'all'])).code, 0);
  assert.deepEqual(names(readTree(all)), names(readTree(plus)));
});

test('--generators: mixing names with changes, unknown names and leaving out what another needs are usage errors', async () => {
  const out = join(tmp, 'never');
  const mixed = await cli(['generate', CRD, '--out', out, '--generators', 'types,+crd']);
  assert.equal(mixed.code, 2);
  assert.match(mixed.stderr, /types cannot be mixed with \+name\/-name changes; write \+types/);
  const unknown = await cli(['generate', CRD, '--out', out, '--generators', '+crds']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown generator\(s\) crds; known: types, deepcopy/);
  const needed = await cli(['generate', CRD, '--out', out, '--generators', '-clientset']);
  assert.equal(needed.code, 2);
  assert.match(
    needed.stderr,
    /cannot leave out clientset: fake, informers, controller need it \(leave those out too: -fake,-informers,-controller\)/,
  );
  assert.ok(!existsSync(out));
});

test("a config's generators are the base of the flag's changes", async () => {
  const dir = join(tmp, 'config-base');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'crdgen.config.yaml'),
    `inputs: [${join(ROOT, CRD)}]\nout: gen\ngenerators: [types, register]\n`,
  );
  const r = await cli(['generate', '--generators', '+crd'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(names(readTree(join(dir, 'gen'))), [
    'apis/coolops.cn/v1alpha1/register.ts',
    'apis/coolops.cn/v1alpha1/types.ts',
    'config/crd/databasemanagers.coolops.cn.yaml',
  ]);
  writeFileSync(join(dir, 'crdgen.config.yaml'), `inputs: [${join(ROOT, CRD)}]\nout: gen\ngenerators: [+crd, -fake]\n`);
  const c = await cli(['generate'], { cwd: dir });
  assert.equal(c.code, 0, c.stderr);
  const tree = names(readTree(join(dir, 'gen')));
  assert.ok(
    tree.includes('clientset/clientset.ts') &&
      tree.includes('config/crd/databasemanagers.coolops.cn.yaml') &&
      !tree.some((p) => p.startsWith('clientset/fake/')),
    tree.join('\n'),
  );
});

test('a full run removes stale generated files of every generator, and files no layout claims; a subset run only its own', async () => {
  const out = join(tmp, 'stale');
  assert.equal((await cli(['generate', CRD, '--out', out])).code, 0);
  const header = '// Code generated by crdgen. DO NOT EDIT.\n\nexport {};\n';
  const staleFiles = [
    'listers/coolops.cn/v1alpha0/databasemanager.ts',
    'applyconfigurations/coolops.cn/v1alpha0/databasemanager.ts',
    'old-layout/thing.ts',
  ];
  for (const p of staleFiles) {
    mkdirSync(join(out, p, '..'), { recursive: true });
    writeFileSync(join(out, p), header);
  }
  writeFileSync(join(out, 'notes.ts'), 'export const mine = 1;\n'); // no header: never touched

  const listers = await cli(['verify', CRD, '--out', out, '--generators', 'listers']);
  assert.equal(listers.code, 1);
  assert.match(listers.stdout, /stale[^\n]*\n {2}\S*listers\/coolops\.cn\/v1alpha0\/databasemanager\.ts\n\n?/);
  assert.doesNotMatch(listers.stdout, /applyconfigurations|old-layout/);
  const g = await cli(['generate', CRD, '--out', out, '--generators', 'listers']);
  assert.equal(g.stdout, 'generated 2 files for 1 kind in 1 group: 2 unchanged; removed 1 stale generated file\n');
  assert.ok(
    !existsSync(join(out, staleFiles[0])) &&
      existsSync(join(out, staleFiles[1])) &&
      existsSync(join(out, staleFiles[2])),
  );

  const full = await cli(['generate', CRD, '--out', out]);
  assert.match(full.stdout, /; removed 2 stale generated files\n$/);
  for (const p of staleFiles) assert.ok(!existsSync(join(out, p)), p);
  assert.ok(existsSync(join(out, 'notes.ts')));
  assert.equal((await cli(['verify', CRD, '--out', out])).code, 0);
});

test("the config schema's generator names are the registry's, with +name, -name and all", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'crdgen.config.schema.json'), 'utf8')) as {
    properties: { generators: { items: { enum: string[] } } };
  };
  const n = GENERATORS.map((g) => g.name);
  assert.deepEqual(schema.properties.generators.items.enum, [
    ...n,
    ...n.map((x) => `+${x}`),
    ...n.map((x) => `-${x}`),
    'all',
  ]);
});
