// `generate` warns, once per project, when the project its output goes into cannot compile or
// run the generated code (a plain `npm init -y` project would get TS2307 for crdgen/runtime with
// nothing saying why), at the setting's file:line:col, with the fix.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../golden/support.js';
import { run } from '../../cli/support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-project-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const CRD = join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml');
let n = 0;

/** A project folder with these files, @types/node "installed" unless `noNodeTypes`, and typescript `ts` if given. */
function project(files: Record<string, string>, noNodeTypes = false, ts?: string): string {
  const dir = join(tmp, `p${n++}`);
  const installed: Record<string, string> = {};
  if (!noNodeTypes) installed['node_modules/@types/node/package.json'] = '{"name":"@types/node","version":"20.0.0"}\n';
  if (ts !== undefined)
    installed['node_modules/typescript/package.json'] = JSON.stringify({ name: 'typescript', version: ts });
  for (const [p, text] of Object.entries({ ...files, ...installed })) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}
const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => / warning PRJ/.test(l));

test('an `npm init -y` project with a CommonJS tsconfig: PRJ001 at "type", PRJ002 at "module"; files are written all the same', async () => {
  const dir = project({
    'package.json': '{\n  "name": "p",\n  "version": "1.0.0",\n  "type": "commonjs"\n}\n',
    'tsconfig.json': '{\n  // mine\n  "compilerOptions": {\n    "module": "commonjs",\n    "strict": true,\n  }\n}\n',
  });
  const r = await run(['generate', CRD, '--out', 'src/generated'], dir, { env: {} });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^generated (\d+) files for 1 kind in 1 group: \1 written\n$/);
  assert.deepEqual(warnings(r.stderr), [
    'package.json:4:11 warning PRJ001 package.json has "type": "commonjs": Node would load the generated code, which is ES modules, as CommonJS',
    'tsconfig.json:4:15 warning PRJ002 tsconfig "module" is "commonjs": the generated code needs ES modules with top-level await',
  ]);
  assert.match(r.stderr, /hint: set "type": "module" \(npx crdgen init --yes writes it\)/);
  assert.match(
    r.stderr,
    /hint: set "module": "nodenext" and "moduleResolution": "nodenext" \(npx crdgen init --yes writes it\)/,
  );
});

test('moduleResolution classic (TypeScript 5\'s default for "module": "esnext", or set in an extended tsconfig) cannot find crdgen/runtime: PRJ003 where it is set', async () => {
  const implicit = project(
    {
      'package.json': '{"type":"module"}\n',
      'tsconfig.json': '{"compilerOptions":{"module":"esnext","target":"es2022"}}\n',
    },
    false,
    '5.9.3',
  );
  const a = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], implicit, { env: {} });
  assert.deepEqual(warnings(a.stderr), [
    `tsconfig.json:1:30 warning PRJ003 tsconfig "moduleResolution" is "classic" (the default): TypeScript will not find 'crdgen/runtime' (TS2307)`,
  ]);
  const extended = project({
    'package.json': '{"type":"module"}\n',
    'configs/base.json':
      '{\n  "compilerOptions": {\n    "module": "es2022",\n    "moduleResolution": "classic"\n  }\n}\n',
    'tsconfig.json': '{ "extends": "./configs/base", "compilerOptions": { "strict": true } }\n',
  });
  const b = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], extended, { env: {} });
  assert.deepEqual(warnings(b.stderr), [
    `configs/base.json:4:25 warning PRJ003 tsconfig "moduleResolution" is "classic": TypeScript will not find 'crdgen/runtime' (TS2307)`,
  ]);
});

test('Node types: "types" without "node", or no @types/node installed, is PRJ004', async () => {
  const types = project({
    'package.json': '{"type":"module"}\n',
    'tsconfig.json': '{"compilerOptions":{"module":"nodenext","types":[]}}\n',
  });
  const a = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], types, { env: {} });
  assert.deepEqual(warnings(a.stderr), [
    `tsconfig.json:1:49 warning PRJ004 tsconfig "types" leaves out "node": the generated code uses Node's types (process, Buffer)`,
  ]);
  const missing = project(
    { 'package.json': '{"type":"module"}\n', 'tsconfig.json': '{"compilerOptions":{"module":"nodenext"}}\n' },
    true,
  );
  const b = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], missing, { env: {} });
  assert.deepEqual(warnings(b.stderr), [
    `package.json:1:1 warning PRJ004 @types/node is not installed: the generated code uses Node's types (process, Buffer)`,
  ]);
  assert.match(b.stderr, /hint: npm install --save-dev @types\/node/);
});

test('TypeScript 6 and newer: no "types" means no @types (PRJ004), node10 is gone (PRJ003); their defaults (esnext, bundler) fit', async () => {
  const noTypes = project(
    { 'package.json': '{"type":"module"}\n', 'tsconfig.json': '{"compilerOptions":{"strict":true}}\n' },
    false,
    '7.0.2',
  );
  const a = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], noTypes, { env: {} });
  assert.deepEqual(warnings(a.stderr), [
    `tsconfig.json:1:20 warning PRJ004 tsconfig has no "types": TypeScript 7 then loads no @types, and the generated code uses Node's types (process, Buffer)`,
  ]);
  const node10 = project(
    {
      'package.json': '{"type":"module"}\n',
      'tsconfig.json': '{"compilerOptions":{"module":"es2022","moduleResolution":"node","types":["node"]}}\n',
    },
    false,
    '7.0.2',
  );
  const b = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], node10, { env: {} });
  assert.deepEqual(warnings(b.stderr), [
    `tsconfig.json:1:58 warning PRJ003 tsconfig "moduleResolution" is "node": TypeScript 7 removed it, and without it 'crdgen/runtime' is not found (TS2307)`,
  ]);
  const defaults = project(
    { 'package.json': '{"type":"module"}\n', 'tsconfig.json': '{"compilerOptions":{"types":["node"]}}\n' },
    false,
    '6.0.3',
  );
  assert.equal(
    (await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], defaults, { env: {} })).stderr,
    '',
  );
});

test('projects that fit say nothing: nodenext, bundler without "type", node10 with ES modules, no tsconfig; a folder outside any project too', async () => {
  const fits: Array<Record<string, string>> = [
    {
      'package.json': '{"type":"module"}\n',
      'tsconfig.json': '{"compilerOptions":{"module":"nodenext","moduleResolution":"nodenext","strict":true}}\n',
    },
    {
      'package.json': '{}\n',
      'tsconfig.json': '{"compilerOptions":{"module":"esnext","moduleResolution":"bundler"}}\n',
    },
    {
      'package.json': '{"type":"module"}\n',
      'tsconfig.json': '{"compilerOptions":{"module":"es2022","moduleResolution":"node"}}\n',
      'node_modules/typescript/package.json': '{"version":"5.9.3"}',
    },
    { 'package.json': '{"type":"module"}\n' },
  ];
  for (const files of fits) {
    const dir = project(files);
    const r = await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], dir, { env: {} });
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '', JSON.stringify(files));
  }
  const bare = join(tmp, 'bare');
  mkdirSync(bare);
  assert.equal((await run(['generate', CRD, '--out', 'gen', '--generators', 'types'], bare, { env: {} })).stderr, '');
  // this repository (the README's first command) fits too
  const inRepo = await run(
    [
      'generate',
      'fixtures/databasemanager/crd.yaml',
      '--out',
      join('test', 'e2e', 'out', `project-check-${process.pid}`),
      '--generators',
      'types',
    ],
    ROOT,
    { env: {} },
  );
  rmSync(join(ROOT, 'test', 'e2e', 'out', `project-check-${process.pid}`), { recursive: true, force: true });
  assert.equal(inRepo.stderr, '');
});

test('two targets in one project warn once; --json carries the warnings; the hint names the command as run', async () => {
  const dir = project({
    'package.json': '{"name":"p"}\n',
    'crdgen.config.yaml': `targets:\n  - { inputs: [${CRD}], out: gen/a, generators: [types] }\n  - { inputs: [${CRD}], out: gen/b, generators: [types] }\n`,
  });
  const r = await run(['generate'], dir, { env: { CRDGEN_COMMAND: 'crdgen' } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(warnings(r.stderr), [
    'package.json:1:1 warning PRJ001 package.json has no "type": Node would load the generated code, which is ES modules, as CommonJS',
  ]);
  assert.match(r.stderr, /\(crdgen init --yes writes it\)/);
  const j = await run(['generate', '--json'], dir, { env: {} });
  const doc = JSON.parse(j.stdout) as { ok: boolean; diagnostics: Array<{ code: string; severity: string }> };
  assert.equal(doc.ok, true);
  assert.deepEqual(
    doc.diagnostics.map((d) => `${d.severity} ${d.code}`),
    ['warning PRJ001'],
  );
});
