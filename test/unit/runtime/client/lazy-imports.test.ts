import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { json, startServer, status } from './server.js';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '../../../..');

/**
 * Runs `script` in a fresh node (TypeScript through tsx) with a resolve hook that logs
 * every package resolved from node_modules; `mark(name)` in the script logs a marker.
 */
async function packagesLoaded(script: string, env: Record<string, string> = {}): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-lazy-'));
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (/\\/runtime\\/cel\\/interp\\.[jt]s$/.test(r.url)) appendFileSync(${JSON.stringify(log)}, 'crdgen:cel\\n');
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url);
  if (m && !(ctx.parentURL ?? '').includes('/node_modules/tsx/') && m[1] !== 'tsx' && m[1] !== 'esbuild' && m[1] !== 'get-tsconfig') appendFileSync(${JSON.stringify(log)}, m[1] + '\\n');
  return r;
}\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const main = join(dir, 'main.mts');
    writeFileSync(
      main,
      `import { appendFileSync } from 'node:fs';\nconst mark = (s: string) => appendFileSync(${JSON.stringify(log)}, 'MARK ' + s + '\\n');\nconst rt = await import(${JSON.stringify(pathToFileURL(join(root, 'src/runtime/index.ts')).href)});\n${script}\n`,
    );
    await execFileP(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(register).href, main], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const GENERATOR_DEPS = ['ts-morph', 'handlebars', 'commander', 'ajv', 'ajv-formats'];

test('crdgen/runtime loads no generator dependency, yaml only to read a kubeconfig, and never @kubernetes/client-node by itself', async (t) => {
  const srv = await startServer((req, res) =>
    req.path === '/api'
      ? json(res, 200, { auth: req.headers.authorization ?? null })
      : json(res, 404, status(404, 'NotFound')),
  );
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-lazy-kc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kc = join(dir, 'config');
  writeFileSync(
    kc,
    `apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: c\n  cluster: {server: "${srv.url}"}\ncontexts:\n- name: x\n  context: {cluster: c}\nusers: []\n`,
  );
  const loaded = await packagesLoaded(`
mark('imported');
const rest = new rt.RestClient({ server: ${JSON.stringify(srv.url)}, qps: 0 });
await rest.get('/api');
rest.close();
mark('requested');
const cfg = await rt.loadKubeconfig({ path: ${JSON.stringify(kc)} });
if (cfg.server !== ${JSON.stringify(srv.url)}) throw new Error('bad server ' + cfg.server);
mark('kubeconfig');
`);
  const before = (m: string) => loaded.slice(0, loaded.indexOf(`MARK ${m}`));
  assert.ok(loaded.includes('MARK kubeconfig'), `child did not finish: ${loaded.join(', ')}`);
  for (const dep of GENERATOR_DEPS) assert.ok(!loaded.includes(dep), `${dep} was loaded: ${loaded.join(', ')}`);
  assert.ok(!before('requested').includes('yaml'), `yaml loaded before a kubeconfig was read: ${loaded.join(', ')}`);
  assert.ok(before('kubeconfig').includes('yaml'), 'yaml is loaded to read a kubeconfig');
  assert.ok(!loaded.includes('@kubernetes/client-node'), `client-node loaded eagerly: ${loaded.join(', ')}`);
});

/** Packages resolved from node_modules when a plain node (no tsx) runs `code`, an ES module, from the repository root. */
async function packagesLoadedByDist(code: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-lazy-dist-'));
  try {
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (/\\/runtime\\/cel\\/interp\\.[jt]s$/.test(r.url)) appendFileSync(${JSON.stringify(log)}, 'crdgen:cel\\n');
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url);
  if (m) appendFileSync(${JSON.stringify(log)}, m[1] + '\\n');
  return r;
}\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    await execFileP(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', code], {
      cwd: root,
    });
    return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('crdgen/runtime (dist) does not load the CEL layer; crdgen/runtime/validation does', async () => {
  assert.ok(
    existsSync(join(root, 'dist', 'runtime', 'validation', 'index.js')),
    'dist/ is not built: run `npm run build` (npm test builds first)',
  );
  const runtime = await packagesLoadedByDist(
    `const rt = await import('crdgen/runtime'); if (typeof rt.RestClient !== 'function' || 'compileValidator' in rt) throw new Error('unexpected runtime exports');`,
  );
  for (const dep of ['crdgen:cel', '@bufbuild/cel', '@bufbuild/protobuf', ...GENERATOR_DEPS])
    assert.ok(!runtime.includes(dep), `${dep} loaded by crdgen/runtime: ${runtime.join(', ')}`);
  const validation = await packagesLoadedByDist(
    `const v = await import('crdgen/runtime/validation'); if (typeof v.lazyValidator !== 'function') throw new Error('no lazyValidator');`,
  );
  assert.ok(
    validation.includes('crdgen:cel'),
    `crdgen/runtime/validation should load the CEL layer (the hook sees it): ${validation.join(', ')}`,
  );
  for (const dep of GENERATOR_DEPS)
    assert.ok(!validation.includes(dep), `${dep} loaded by crdgen/runtime/validation: ${validation.join(', ')}`);
});

test('crdgen/runtime/validation/core validates without loading CEL, refuses a schema with rules saying what to import; crdgen/runtime/validation loads CEL', async () => {
  const core = pathToFileURL(join(root, 'src/runtime/validation/core.ts')).href;
  const full = pathToFileURL(join(root, 'src/runtime/validation/index.ts')).href;
  const loaded = await packagesLoaded(`
const core = await import(${JSON.stringify(core)});
const v = core.compileValidator({ type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } } });
const fields = v.validate({ apiVersion: 'a/v1', kind: 'K', metadata: { name: 'x' }, spec: { n: 5 } }).map((e: { field: string }) => e.field);
if (JSON.stringify(fields) !== '["spec.n"]') throw new Error('core did not validate: ' + JSON.stringify(fields));
let refused = '';
try { core.compileValidator({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] }); } catch (e) { refused = (e as Error).message; }
if (!/CEL engine is not loaded: import 'crdgen\\/runtime\\/validation'/.test(refused)) throw new Error('a schema with rules was not refused as expected: ' + refused);
mark('core');
await import(${JSON.stringify(full)});
mark('full');
`);
  assert.ok(loaded.includes('MARK full'), `child did not finish: ${loaded.join(', ')}`);
  const before = loaded.slice(0, loaded.indexOf('MARK core'));
  assert.ok(!before.includes('crdgen:cel'), `CEL loaded by the core entry: ${loaded.join(', ')}`);
  assert.ok(loaded.includes('crdgen:cel'), 'the full entry loads CEL');
});
