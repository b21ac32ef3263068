// What a user installs works: pack the package (npm pack, from the built dist/),
// install the tarball into an empty temporary project (one npm install, npm's
// cache reused), run `npx crdgen generate` there on the DatabaseManager CRD and
// typecheck the output with that project's own TypeScript — `crdgen/runtime`
// resolved from the installed package, as a user's build would.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXTURES, ROOT } from '../golden/support.js';

const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'crdgen-pack-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function sh(cmd: string, args: string[], cwd: string, timeout = 120_000): Promise<string> {
  try {
    const r = await exec(cmd, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
    return r.stdout;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string };
    assert.fail(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${x.message}\n${x.stdout ?? ''}\n${x.stderr ?? ''}`);
  }
}

test('npm pack → npm install in an empty project → npx crdgen generate → tsc --noEmit', { timeout: 240_000 }, async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli', 'main.js')), 'dist/ is missing: npm test builds it first (npm run build)');
  // --ignore-scripts: dist/ is already built; `prepare` would rebuild it under the other tests' feet
  const packed = JSON.parse(await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = join(tmp, packed[0]!.filename);
  const paths = packed[0]!.files.map((f) => f.path);
  for (const p of ['bin/crdgen.js', 'dist/cli-bundle/main.js', 'dist/cli-bundle/crd-shape.validate.cjs', 'dist/cli-bundle/templates.precompiled.cjs', 'dist/runtime/index.d.ts', 'schema/crdgen.config.schema.json', 'templates/init/databasemanager.yaml']) assert.ok(paths.includes(p), `${p} is in the package`);
  assert.ok(!paths.some((p) => p.startsWith('src/') || p.startsWith('test/') || p.startsWith('fixtures/')), 'no sources, tests or fixtures in the package');

  const project = join(tmp, 'user-project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module' }, null, 2));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }, include: ['src'] }, null, 2));
  await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, 'typescript@5.9', '@types/node@20'], project, 180_000);
  assert.ok(existsSync(join(project, 'node_modules', 'crdgen', 'dist', 'runtime', 'index.js')));

  cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(project, 'crd.yaml'));
  const out = await sh('npx', ['--no-install', 'crdgen', 'generate', 'crd.yaml', '--out', 'src/generated', '--controller', 'DatabaseManager'], project);
  assert.match(out, /^generated \d+ files for 1 kind in 1 group\n$/);
  assert.ok(readdirSync(join(project, 'src', 'generated')).includes('clientset'));
  // the user's own code on top of the generated clients
  writeFileSync(join(project, 'src', 'use.ts'), [
    "import { loadConfig } from 'crdgen/runtime';",
    "import { Clientset } from './generated/clientset/clientset.js';",
    "import type { DatabaseManager } from './generated/apis/coolops.cn/v1alpha1/types.js';",
    'export async function replicasOf(name: string): Promise<number | undefined> {',
    '  const cs = new Clientset(await loadConfig());',
    "  const dm: DatabaseManager = await cs.coolopsV1alpha1().databaseManagers('default').get(name);",
    '  return dm.spec?.replicas;',
    '}',
    '',
  ].join('\n'));
  await sh('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json'], project);
  assert.equal(await sh('npx', ['--no-install', 'crdgen', 'verify', 'crd.yaml', '--out', 'src/generated', '--controller', 'DatabaseManager', '-q'], project), '');
});
