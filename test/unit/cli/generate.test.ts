import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caseOptions, FIXTURES, readTree, ROOT } from '../../golden/support.js';
import { cli } from './cli-support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(tmp, `run${n++}`);
const dmExpected = readTree(join(FIXTURES, 'databasemanager', 'expected'));
const dmSummary = `generated ${dmExpected.size} files for 1 kind in 1 group: ${dmExpected.size} written\n`;
/** The CLI flags that give the fixture's expected tree (fixtures/databasemanager/options.json). */
const dmFlags = (caseOptions('databasemanager').controllers ?? []).flatMap((k) => ['--controller', k]);
const TWO_KINDS = /^generated (\d+) files for 2 kinds in 2 groups: \1 written\n$/;

test('generate writes the DatabaseManager tree and prints a summary', async () => {
  const out = fresh();
  const r = await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', out, ...dmFlags]);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, dmSummary);
  assert.equal(r.code, 0);
  assert.deepEqual(readTree(out), dmExpected);
});

test('help, version and usage errors', async () => {
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: crdgen/);
  assert.match(help.stdout, /generate/);
  const ghelp = await cli(['generate', '--help']);
  assert.equal(ghelp.code, 0);
  assert.match(ghelp.stdout, /--out <dir>/);
  const version = await cli(['--version']);
  assert.equal(version.code, 0);
  assert.equal(
    version.stdout.trim(),
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
  assert.equal((await cli([])).code, 2);
  const noOut = await cli(['generate', 'fixtures/databasemanager/crd.yaml']);
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /--out/);
  assert.equal((await cli(['generate', '--bogus', 'x', '--out', fresh()])).code, 2);
  assert.equal((await cli(['frobnicate'])).code, 2);
  const gens = await cli([
    'generate',
    'fixtures/databasemanager/crd.yaml',
    '--generators',
    'types,nope',
    '--out',
    fresh(),
  ]);
  assert.equal(gens.code, 2);
  assert.match(gens.stderr, /unknown generator\(s\) nope/);
});

test('missing input: exit 1, nothing written', async () => {
  const out = fresh();
  const r = await cli(['generate', 'no/such/file.yaml', 'fixtures/databasemanager/crd.yaml', '--out', out]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^no\/such\/file\.yaml error IO001 no such file or directory$/m);
  assert.ok(!existsSync(out));
});

test('one invalid input among valid ones: nothing is written', async () => {
  const out = fresh();
  const r = await cli([
    'generate',
    'fixtures/databasemanager/crd.yaml',
    'fixtures/invalid/databasemanager-typo.yaml',
    '--out',
    out,
  ]);
  assert.equal(r.code, 1);
  assert.ok(!existsSync(out));
});

test('stdin, directories (recursive) and globs', async () => {
  const text = readFileSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), 'utf8');
  const out1 = fresh();
  const r1 = await cli(['generate', '-', '--out', out1], { stdin: text });
  assert.equal(r1.code, 0, r1.stderr);
  const types = readFileSync(join(out1, 'apis/coolops.cn/v1alpha1/types.ts'), 'utf8');
  assert.match(types, /^\/\/ Source: <stdin>$/m);

  const src = fresh();
  mkdirSync(join(src, 'nested', 'deeper'), { recursive: true });
  cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(src, 'nested', 'deeper', 'dm.yml'));
  cpSync(join(FIXTURES, 'v1beta1', 'crd.yaml'), join(src, 'foo.yaml'));
  writeFileSync(join(src, 'example.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
  writeFileSync(join(src, 'README.md'), '# not yaml\n');
  const out2 = fresh();
  const r2 = await cli(['generate', src, '--out', out2]);
  assert.equal(r2.code, 0, r2.stderr);
  assert.match(r2.stdout, TWO_KINDS);
  assert.ok(existsSync(join(out2, 'apis/coolops.cn/v1alpha1/types.ts')));
  assert.ok(existsSync(join(out2, 'apis/samplecontroller.example.com/v1alpha1/types.ts')));
  assert.match(r2.stderr, /warning CRD001/); // example.yaml found by walking: skipped, not an error

  const out3 = fresh();
  const r3 = await cli(['generate', 'fixtures/{databasemanager,v1beta1}/*.yaml', '--out', out3]);
  assert.equal(r3.code, 0, r3.stderr);
  assert.match(r3.stdout, TWO_KINDS);
  const out4 = fresh();
  const r4 = await cli(['generate', `${src}/**/*.y*ml`, '--out', out4]);
  assert.equal(r4.code, 0, r4.stderr);
  assert.match(r4.stdout, TWO_KINDS);
  assert.equal((await cli(['generate', 'fixtures/*.nomatch', '--out', fresh()])).code, 1);
});

test('re-running leaves unchanged files alone, removes stale generated files, refuses foreign files', async () => {
  const out = fresh();
  assert.equal((await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', out])).code, 0);
  const typesPath = join(out, 'apis/coolops.cn/v1alpha1/types.ts');
  const before = statSync(typesPath).mtimeMs;
  const stale = join(out, 'apis/old.example.com/v1/types.ts');
  mkdirSync(join(out, 'apis/old.example.com/v1'), { recursive: true });
  writeFileSync(stale, '// Code generated by crdgen. DO NOT EDIT.\nexport {};\n');
  const mine = join(out, 'notes.ts');
  writeFileSync(mine, 'export const mine = 1;\n');
  assert.equal((await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', out])).code, 0);
  assert.equal(statSync(typesPath).mtimeMs, before);
  assert.ok(!existsSync(stale), 'stale generated file removed');
  assert.ok(existsSync(mine), 'hand-written file kept');
  writeFileSync(typesPath, 'export const handWritten = true;\n');
  const r = await cli(['generate', 'fixtures/databasemanager/crd.yaml', '--out', out]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /refusing to overwrite files crdgen did not generate: apis\/coolops\.cn\/v1alpha1\/types\.ts/);
  assert.equal(readFileSync(typesPath, 'utf8'), 'export const handWritten = true;\n');
});

test('--runtime-import and --generators', async () => {
  const out = fresh();
  const r = await cli([
    'generate',
    'fixtures/databasemanager/crd.yaml',
    '--out',
    out,
    '--runtime-import',
    '@acme/rt',
    '--generators',
    'types',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([...readTree(out).keys()], ['apis/coolops.cn/v1alpha1/types.ts']);
  assert.match(readFileSync(join(out, 'apis/coolops.cn/v1alpha1/types.ts'), 'utf8'), /from "@acme\/rt";/);
});

test('the bin runs the built CLI (npm test builds first)', () => {
  assert.ok(
    existsSync(join(ROOT, 'dist', 'cli-bundle', 'main.js')),
    'dist/cli-bundle/main.js missing: run `npm run build`',
  );
  const out = fresh();
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'bin', 'crdgen.js'), 'generate', 'fixtures/databasemanager/crd.yaml', '--out', out, ...dmFlags],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, dmSummary);
  assert.equal(r.status, 0);
  assert.deepEqual(readTree(out), dmExpected);
  const bad = spawnSync(
    process.execPath,
    [join(ROOT, 'bin', 'crdgen.js'), 'generate', 'fixtures/invalid/databasemanager-typo.yaml', '--out', fresh()],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /databasemanager-typo\.yaml:19:25 error CRD030/);
  const usage = spawnSync(process.execPath, [join(ROOT, 'bin', 'crdgen.js'), 'generate'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(usage.status, 2);
});
