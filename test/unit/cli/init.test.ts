// `crdgen init`: the template lists every generator; it offers to set the folder up as a project the
// generated code compiles in (package.json "type": "module", tsconfig nodenext, strict), as
// `cdk8s init` does: asks on a terminal, --yes writes without asking, --no-project never touches
// them, without a terminal it lists what is needed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { runCli } from '../../../src/cli/main.js';
import { starterConfig } from '../../../src/cli/init.js';
import { GENERATORS } from '../../../src/generate/generators.js';
import { loadConfig } from '../../../src/config/load.js';
import { FIXTURES } from '../../golden/support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-init-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => {
  const d = join(tmp, `p${n++}`);
  mkdirSync(d);
  return d;
};

async function init(
  cwd: string,
  args: string[],
  confirm?: (q: string) => Promise<boolean>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['init', ...args], {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async () => new Uint8Array(),
    cwd,
    env: {},
    ...(confirm ? { confirm } : {}),
  });
  return { code, stdout, stderr };
}
const json = (p: string): Record<string, unknown> => parse(readFileSync(p, 'utf8')) as Record<string, unknown>;

// what `npm init -y` (npm 11) and `tsc --init` (TypeScript 5.9) write
const NPM_INIT = `${JSON.stringify({ name: 'my-operator', version: '1.0.0', description: '', main: 'index.js', scripts: { test: 'echo "Error: no test specified" && exit 1' }, keywords: [], author: '', license: 'ISC', type: 'commonjs' }, null, 2)}\n`;
const TSC_INIT = `{
  // Visit https://aka.ms/tsconfig to read more about this file
  "compilerOptions": {
    // Environment Settings
    "module": "nodenext",
    "target": "esnext",
    "types": [],
    // Recommended Options
    "strict": true,
    "skipLibCheck": true,
  }
}
`;

test("the template's generator comment lists every generator, and its example line is a valid config", () => {
  const text = starterConfig(false);
  const comment = text.slice(text.indexOf('# Generators.'), text.indexOf('# generators:'));
  for (const g of GENERATORS) assert.match(comment, new RegExp(`\\b${g.name}\\b`), g.name);
  assert.match(comment, /validators/);
  const dir = fresh();
  writeFileSync(join(dir, 'crdgen.config.yaml'), text.replace('# generators: [+crd]', 'generators: [+crd]'));
  const loaded = loadConfig(join(dir, 'crdgen.config.yaml'), 'crdgen.config.yaml');
  assert.deepEqual(loaded.diagnostics, []);
  assert.deepEqual(loaded.config?.targets[0]?.generators, ['+crd']);
});

test('init --yes in an empty folder writes package.json and tsconfig.json for the generated code', async () => {
  const dir = fresh();
  const r = await init(dir, ['--example', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'wrote crdgen.config.yaml\nwrote crds/databasemanager.yaml\nwrote package.json\nwrote tsconfig.json\nnext: npm install crdgen\nnext: npm install --save-dev typescript @types/node\nnext: npx crdgen generate (and npx crdgen verify in CI), then npm run build\n',
  );
  const pkg = json(join(dir, 'package.json'));
  assert.equal(pkg['type'], 'module');
  assert.equal(pkg['name'], dir.split('/').pop());
  // npm test builds, then runs node's test runner in dist/ (the generated reconcile.test.js among what it finds)
  assert.deepEqual(pkg['scripts'], {
    generate: 'crdgen generate',
    build: 'tsc',
    test: 'npm run build && cd dist && node --test',
  });
  const ts = json(join(dir, 'tsconfig.json')) as { compilerOptions: Record<string, unknown>; include: string[] };
  assert.equal(ts.compilerOptions['module'], 'nodenext');
  assert.equal(ts.compilerOptions['moduleResolution'], 'nodenext');
  assert.equal(ts.compilerOptions['strict'], true);
  assert.deepEqual(ts.include, ['src']);
  // running it again changes nothing and is not refused
  const again = await init(dir, ['--example', '--yes']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    /^unchanged crdgen\.config\.yaml\nunchanged crds\/databasemanager\.yaml\nnext: npm install crdgen\n/,
  );
});

test('init --yes in an `npm init -y` + `tsc --init` project: "type": "module", "node" in types; comments and other keys kept', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'package.json'), NPM_INIT);
  writeFileSync(join(dir, 'tsconfig.json'), TSC_INIT);
  const r = await init(dir, ['--yes']);
  assert.equal(r.code, 0, r.stderr);
  // what init changed in files that were there, change by change
  assert.equal(
    r.stdout,
    [
      'wrote crdgen.config.yaml',
      'changed package.json:',
      '  "type": "commonjs" → "type": "module"',
      '  scripts.generate: "crdgen generate"',
      '  scripts.build: "tsc"',
      '  scripts.test: "npm run build && node --test"',
      'changed tsconfig.json:',
      '  "types": [] → ["node"]',
      'created crds/ (empty: the config reads CRDs from it)',
      'next: npm install crdgen',
      'next: npm install --save-dev typescript @types/node',
      'next: put your CRD YAML files into crds/',
      'next: npx crdgen generate (and npx crdgen verify in CI), then npm run build',
      '',
    ].join('\n'),
  );
  const pkg = json(join(dir, 'package.json'));
  assert.deepEqual(pkg, {
    ...(JSON.parse(NPM_INIT) as object),
    type: 'module',
    // npm's placeholder test script is replaced; tsc --init sets no outDir, so the tests run from the root
    scripts: { test: 'npm run build && node --test', generate: 'crdgen generate', build: 'tsc' },
  });
  const tsText = readFileSync(join(dir, 'tsconfig.json'), 'utf8');
  assert.match(tsText, /\/\/ Visit https:\/\/aka\.ms\/tsconfig/);
  assert.match(tsText, /\/\/ Recommended Options/);
  const ts = parse(tsText) as { compilerOptions: Record<string, unknown> };
  assert.deepEqual(ts.compilerOptions, {
    module: 'nodenext',
    target: 'esnext',
    types: ['node'],
    strict: true,
    skipLibCheck: true,
  });
});

test("npm test: a project's own test script is kept; the tsconfig's outDir is where node --test runs", async () => {
  const own = fresh();
  writeFileSync(join(own, 'package.json'), '{ "name": "x", "type": "module", "scripts": { "test": "vitest" } }\n');
  assert.equal((await init(own, ['--yes'])).code, 0);
  assert.equal((json(join(own, 'package.json'))['scripts'] as Record<string, string>)['test'], 'vitest');
  const build = fresh();
  writeFileSync(join(build, 'package.json'), '{ "name": "x", "type": "module" }\n');
  writeFileSync(
    join(build, 'tsconfig.json'),
    '{\n  // compiled here\n  "compilerOptions": { "module": "nodenext", "types": ["node"], "outDir": "./build/" }\n}\n',
  );
  assert.equal((await init(build, ['--yes'])).code, 0);
  assert.equal(
    (json(join(build, 'package.json'))['scripts'] as Record<string, string>)['test'],
    'npm run build && cd build && node --test',
  );
});

test('a module/moduleResolution that cannot compile the generated code is set to nodenext', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'package.json'), '{ "name": "x", "type": "module" }\n');
  writeFileSync(join(dir, 'tsconfig.json'), '{ "compilerOptions": { "module": "commonjs", "strict": false } }\n');
  const r = await init(dir, ['--yes']);
  assert.equal(r.code, 0, r.stderr);
  const ts = json(join(dir, 'tsconfig.json')) as { compilerOptions: Record<string, unknown> };
  assert.deepEqual(ts.compilerOptions, { module: 'nodenext', strict: false, moduleResolution: 'nodenext' });
});

test('without a terminal and without --yes nothing is touched and what is needed is listed; --no-project says nothing', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'package.json'), NPM_INIT);
  writeFileSync(join(dir, 'tsconfig.json'), TSC_INIT);
  const r = await init(dir, []);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(join(dir, 'package.json'), 'utf8'), NPM_INIT);
  assert.equal(readFileSync(join(dir, 'tsconfig.json'), 'utf8'), TSC_INIT);
  assert.match(
    r.stdout,
    /project settings not written \(no terminal to ask on; npx crdgen init --yes writes them\):\n {2}package\.json:\n {4}"type": "commonjs" → "type": "module"\n {4}scripts\.generate: "crdgen generate"\n {4}scripts\.build: "tsc"\n {4}scripts\.test: "npm run build && node --test"\n {2}tsconfig\.json:\n {4}"types": \[\] → \["node"\]\n/,
  );
  const quiet = fresh();
  writeFileSync(join(quiet, 'package.json'), NPM_INIT);
  const q = await init(quiet, ['--no-project']);
  assert.equal(q.code, 0, q.stderr);
  assert.doesNotMatch(q.stdout, /not written|package\.json/);
  assert.equal(readFileSync(join(quiet, 'package.json'), 'utf8'), NPM_INIT);
  assert.ok(!existsSync(join(quiet, 'tsconfig.json')));
});

test('on a terminal init asks, listing the changes; no keeps the files, yes writes them', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'package.json'), NPM_INIT);
  const questions: string[] = [];
  const no = await init(dir, [], async (q) => {
    questions.push(q);
    return false;
  });
  assert.equal(no.code, 0, no.stderr);
  assert.equal(questions.length, 1);
  assert.match(
    questions[0],
    /this project needs:\n {2}package\.json:\n {4}"type": "commonjs" → "type": "module"\n[^]* {2}tsconfig\.json:\n {4}create it: "module"\/"moduleResolution": "nodenext", "strict": true, src\/ → dist\/\nWrite these settings\? \[Y\/n\] $/,
  );
  assert.equal(readFileSync(join(dir, 'package.json'), 'utf8'), NPM_INIT);
  const yes = await init(dir, [], async () => true);
  assert.equal(yes.code, 0, yes.stderr);
  assert.equal(json(join(dir, 'package.json'))['type'], 'module');
  assert.ok(existsSync(join(dir, 'tsconfig.json')));
});

test('init refuses to overwrite a different config unless --force', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'crdgen.config.yaml'), 'inputs: [x]\nout: y\n');
  const r = await init(dir, ['--no-project']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /crdgen\.config\.yaml already exist/);
  assert.equal((await init(dir, ['--no-project', '--force'])).code, 0);
  assert.match(readFileSync(join(dir, 'crdgen.config.yaml'), 'utf8'), /^inputs:\n {2}- crds\//m);
});

test('init --yes without --example creates the crds/ its config reads; generate then asks for CRDs there, not for a missing folder', async () => {
  const dir = fresh();
  const r = await init(dir, ['--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^created crds\/ \(empty: the config reads CRDs from it\)$/m);
  assert.match(r.stdout, /^next: put your CRD YAML files into crds\/$/m);
  assert.ok(existsSync(join(dir, 'crds')));
  let err = '';
  const g = await runCli(['generate'], {
    stdout: () => undefined,
    stderr: (s) => void (err += s),
    readStdin: () => Promise.resolve(new Uint8Array()),
    cwd: dir,
    env: {},
  });
  assert.equal(g, 1);
  assert.match(
    err,
    /^crds\/ error IO001 directory contains no \*\.yaml or \*\.yml files\n {2}hint: put your CRD YAML files into it/m,
  );
  // with a CRD in crds/ the next init says nothing about putting CRDs there, and creates nothing
  writeFileSync(join(dir, 'crds', 'dm.yaml'), readFileSync(join(FIXTURES, 'databasemanager', 'crd.yaml')));
  const again = await init(dir, ['--yes']);
  assert.doesNotMatch(again.stdout, /created|put your CRD/);
});
