// What a user installs works, as the README's "Use it in your project" says: pack the package
// (npm pack, from the built dist/), then in an empty temporary project: npm init -y, npm install
// the tarball (npm's cache reused) and typescript + @types/node, npx crdgen init --example --yes,
// the cert-manager and Argo CD CRDs into crds/, npx crdgen generate, npx tsc (strict), the
// generated operator against npx crdgen testenv until it has made its Deployment, npx crdgen demo,
// npx crdgen verify. Then a `tsc --init` project (TypeScript's own strictest starter options) that
// generate warns about and init fixes, node10 resolution through typesVersions, and the command
// messages name when crdgen is on PATH. No step has a tight timeout: installs and compiles take
// what they take on a busy machine; the waits for the operator are generous deadlines, not delays.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { promisify } from 'node:util';
import { CORPUS, FIXTURES, readTree, ROOT } from '../golden/support.js';
import { controlPlaneAssets } from '../support/assets.js';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  type Deployment,
  type KubeObject,
} from '../../src/runtime/index.js';

const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'crdgen-pack-'));
const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) await stop(c);
  rmSync(tmp, { recursive: true, force: true });
});

const MINUTE = 60_000;
/** The environment of a user's shell: none of the npm variables `npm test` set, no node_modules/.bin of this checkout on PATH. */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  // (NODE_TEST_CONTEXT: a `node --test` run inside this one would report to this runner, not print)
  Object.entries(process.env).filter(
    ([k]) => !/^npm_/i.test(k) && !['INIT_CWD', 'CRDGEN_COMMAND', 'NODE_TEST_CONTEXT'].includes(k),
  ),
);
userEnv['PATH'] = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter((d) => !d.endsWith(`node_modules${sep}.bin`))
  .join(delimiter);
Object.assign(userEnv, { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' });

async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  opts: { env?: NodeJS.ProcessEnv; fail?: boolean } = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await exec(cmd, args, {
      cwd,
      timeout: 10 * MINUTE,
      maxBuffer: 64 * 1024 * 1024,
      env: opts.env ?? userEnv,
    });
    return { stdout: r.stdout, stderr: r.stderr, code: 0 };
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string; code?: number };
    if (opts.fail)
      return { stdout: x.stdout ?? '', stderr: x.stderr ?? '', code: typeof x.code === 'number' ? x.code : -1 };
    assert.fail(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${x.message}\n${x.stdout ?? ''}\n${x.stderr ?? ''}`);
  }
}

/** Starts a long-running command in its own process group (so npx and what it starts stop together). */
function start(cmd: string, args: string[], cwd: string): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(cmd, args, { cwd, env: userEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (b: Buffer) => void (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => void (output += b.toString()));
  children.push(child);
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, 20_000);
  await exited;
  clearTimeout(t);
}

async function until<T>(
  what: string,
  deadlineMs: number,
  probe: () => Promise<T | undefined>,
  log: () => string = () => '',
): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out after ${deadlineMs / 1000} s waiting for ${what}\n${log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The commands of the README's "Use it in your project" code blocks (comments and heredoc bodies left out). */
function readmeCommands(): string[][] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = text.slice(
    text.indexOf('## Use it in your project'),
    text.indexOf('\n## ', text.indexOf('## Use it in your project') + 3),
  );
  return [...section.matchAll(/```sh\n([^]*?)```/g)].map((m) => {
    const lines: string[] = [];
    let heredoc: string | undefined;
    for (const raw of m[1].split('\n')) {
      if (heredoc !== undefined) {
        if (raw.trim() === heredoc) heredoc = undefined;
        continue;
      }
      const line = raw
        .replace(/\s+#.*$/, '')
        .replace(/^#.*$/, '')
        .trim();
      if (line === '') continue;
      heredoc = /<<'(\w+)'/.exec(line)?.[1];
      lines.push(line);
    }
    return lines;
  });
}

let tarball = '';
const project = join(tmp, 'my-operator');

test(
  'npm pack: bin, dist, schema, templates, starters and the demo CRD are in the package; no sources or tests',
  { timeout: 10 * MINUTE },
  async () => {
    assert.ok(
      existsSync(join(ROOT, 'dist', 'cli', 'main.js')),
      'dist/ is missing: npm test builds it first (npm run build)',
    );
    // --ignore-scripts: dist/ is already built; `prepack` would rebuild it under the other tests' feet
    const packed = JSON.parse(
      (await sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT)).stdout,
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(tmp, packed[0].filename);
    const paths = packed[0].files.map((f) => f.path);
    for (const p of [
      'bin/crdgen.js',
      'dist/cli-bundle/main.js',
      'dist/cli-bundle/crd-shape.validate.cjs',
      'dist/cli-bundle/templates.precompiled.cjs',
      'dist/runtime/index.d.ts',
      'dist/testing/index.js',
      'schema/crdgen.config.schema.json',
      'templates/init/databasemanager.yaml',
      'starters/databasemanager/starter.json',
      'starters/databasemanager/reconcile.hbs',
      'fixtures/databasemanager/crd.yaml',
      'examples/databasemanager-webhooks/crd.yaml',
      'examples/databasemanager-webhooks/generated/controllers/databasemanager/admission.ts',
    ])
      assert.ok(paths.includes(p), `${p} is in the package`);
    assert.ok(
      !paths.some(
        (p) =>
          p.startsWith('src/') ||
          p.startsWith('test/') ||
          (p.startsWith('fixtures/') && p !== 'fixtures/databasemanager/crd.yaml'),
      ),
      'no sources, tests or other fixtures in the package',
    );
    // nothing runs when a user installs the package (npm 11 warns of install scripts, prepare included)
    const packedPkg = JSON.parse((await sh('tar', ['-xzOf', tarball, 'package/package.json'], tmp)).stdout) as {
      scripts?: Record<string, string>;
    };
    const installTime = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare', 'prepublish'];
    assert.deepEqual(
      Object.keys(packedPkg.scripts ?? {}).filter((k) => installTime.includes(k)),
      [],
      'no install-time script in the published package.json',
    );
    assert.equal(packedPkg.scripts?.['prepack'], 'npm run build', 'npm pack and npm publish build dist/ first');
    // every subpath typesVersions maps (node10 resolution) is a file of the package
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      typesVersions: { '*': Record<string, string[]> };
    };
    for (const [sub, [target]] of Object.entries(pkg.typesVersions['*'])) {
      assert.ok(paths.includes(target.replace(/^\.\//, '')), `${sub} → ${target} is packed`);
      assert.ok(`./${sub}` in pkg.exports, `${sub} is also an export`);
    }
  },
);

test(
  "the README's steps in an empty project: init, generate (DatabaseManager, cert-manager, Argo CD), tsc --strict, the operator reconciles against testenv, demo, verify",
  { timeout: 30 * MINUTE },
  async () => {
    assert.ok(tarball !== '', 'packed by the test before');
    // what this test runs is what the README says (the tarball for `crdgen`, pinned majors for typescript and @types/node)
    const [setup, run, tests, , install] = readmeCommands();
    assert.deepEqual(setup, [
      'npm init -y',
      'npm install crdgen',
      'npm install --save-dev typescript @types/node',
      'npx crdgen init --example --yes',
      'npx crdgen generate',
      'npm run build',
    ]);
    assert.deepEqual(run?.slice(0, 2), [
      'npx crdgen testenv --simulate-workloads --crd crds/databasemanager.yaml --kubeconfig testenv.kubeconfig',
      'node dist/generated/controllers/databasemanager/main.js --kubeconfig testenv.kubeconfig',
    ]);
    assert.deepEqual(tests, ['npm test']);
    // (the install's dry run on kube-apiserver: test/e2e/metrics-secure.test.ts)
    assert.deepEqual(install, [
      'npx crdgen manifests src/generated/controllers/databasemanager',
      'kubectl apply --server-side -f dist/install.yaml',
    ]);
    mkdirSync(project);
    await sh('npm', ['init', '-y'], project);
    const installed = await sh('npm', ['install', '--prefer-offline', '--loglevel=warn', tarball], project);
    assert.doesNotMatch(installed.stderr, /install-scripts|crdgen@[^ ]+ \(/, 'no install script to approve');
    // the README's `npm install --save-dev typescript @types/node` resolves to these majors today; pinned
    // so that the suite does not change under us when a new major ships (TypeScript 5.9: the test below)
    await sh(
      'npm',
      ['install', '--prefer-offline', '--loglevel=error', '--save-dev', 'typescript@7', '@types/node@26'],
      project,
    );

    const init = await sh('npx', ['crdgen', 'init', '--example', '--yes'], project);
    assert.equal(
      init.stdout,
      [
        'wrote crdgen.config.yaml',
        'wrote crds/databasemanager.yaml',
        'changed package.json:',
        '  "type": "commonjs" → "type": "module"',
        '  scripts.generate: "crdgen generate"',
        '  scripts.build: "tsc"',
        '  scripts.test: "npm run build && cd dist && node --test"',
        'wrote tsconfig.json',
        'next: npx crdgen generate (and npx crdgen verify in CI), then npm run build',
        '',
      ].join('\n'),
    );
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      type: string;
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.type, 'module');
    assert.ok(pkg.dependencies['crdgen']);
    for (const f of [
      ...readdirSync(join(CORPUS, 'cert-manager')).map((f) => join(CORPUS, 'cert-manager', f)),
      ...readdirSync(join(CORPUS, 'argo-cd')).map((f) => join(CORPUS, 'argo-cd', f)),
    ])
      cpSync(f, join(project, 'crds', f.split(sep).pop()!));

    const gen = await sh('npx', ['crdgen', 'generate'], project);
    assert.match(gen.stdout, /^generated (\d+) files for 5 kinds in 3 groups: \1 written\n$/);
    assert.doesNotMatch(gen.stderr, /PRJ00\d/, 'the project init set up needs nothing more');
    // the user's own code on top of the generated clients
    writeFileSync(
      join(project, 'src', 'use.ts'),
      [
        "import { loadConfig } from 'crdgen/runtime';",
        "import { Clientset } from './generated/clientset/clientset.js';",
        "import type { DatabaseManager } from './generated/apis/coolops.cn/v1alpha1/types.js';",
        'export async function replicasOf(name: string): Promise<number | undefined> {',
        '  const cs = new Clientset(await loadConfig());',
        "  const dm: DatabaseManager = await cs.coolopsV1alpha1().databaseManagers('default').get(name);",
        '  return dm.spec?.replicas;',
        '}',
        '',
      ].join('\n'),
    );
    await sh('npm', ['run', 'build'], project); // tsc, strict (init's tsconfig): src/ → dist/
    const main = join(project, 'dist', 'generated', 'controllers', 'databasemanager', 'main.js');
    assert.ok(existsSync(main), main);

    // npm test (init's script: build, then node --test in dist/): the starter's reconcile.test.ts,
    // compiled, finds the CRD from the project's root and passes against crdgen/testing's server
    const own = await sh('npm', ['test'], project);
    assert.match(own.stdout, /^# pass 2$/m, own.stdout);
    assert.match(own.stdout, /^# fail 0$/m);
    assert.match(own.stdout, /a DatabaseManager gets its Deployment and Service/);

    // the operator against the test API server, as the README runs it; the DatabaseManager is
    // created through crdgen/runtime's client here, where the README uses kubectl
    const env = start(
      'npx',
      [
        'crdgen',
        'testenv',
        '--simulate-workloads',
        '--crd',
        'crds/databasemanager.yaml',
        '--kubeconfig',
        'testenv.kubeconfig',
      ],
      project,
    );
    await until(
      'crdgen testenv to listen',
      5 * MINUTE,
      () => Promise.resolve(/kubeconfig written to/.test(env.output()) ? true : undefined),
      env.output,
    );
    // metrics and probes on ports 0: a test must not need fixed ports free
    const op = start(
      'node',
      [main, '--kubeconfig', 'testenv.kubeconfig', '--metrics-bind-address', '0', '--health-probe-bind-address', '0'],
      project,
    );
    const config = await loadKubeconfig({ path: join(project, 'testenv.kubeconfig') });
    const dms = resourceClient<
      KubeObject & { spec?: Record<string, unknown>; status?: { availableReplicas?: number } }
    >(config, {
      group: 'coolops.cn',
      version: 'v1alpha1',
      resource: 'databasemanagers',
      kind: 'DatabaseManager',
      listKind: 'DatabaseManagerList',
      namespaced: true,
    }).namespace('default');
    const deps = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    await dms.create({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'orders' },
      spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
    });
    const d = await until(
      'the operator to create Deployment orders-db',
      5 * MINUTE,
      () => deps.get('orders-db'),
      () => `operator:\n${op.output()}\ntestenv:\n${env.output()}`,
    );
    assert.equal(d.spec?.replicas, 2);
    assert.equal(d.metadata?.ownerReferences?.[0]?.name, 'orders');
    await until(
      'status.availableReplicas 2',
      5 * MINUTE,
      async () => ((await dms.get('orders')).status?.availableReplicas === 2 ? true : undefined),
      op.output,
    );
    await stop(op.child);
    await stop(env.child);

    const demo = await sh('npx', ['crdgen', 'demo'], project);
    assert.match(demo.stdout, /Deployment orders-db appeared: replicas 2/);
    assert.match(demo.stdout, /Deployment orders-db is gone\n/);
    assert.ok(!readdirSync(project).some((f) => f.startsWith('.crdgen-demo')), 'the demo works in a temporary folder');

    assert.equal((await sh('npx', ['crdgen', 'verify', '-q'], project)).stdout, '');
    // the README's install.yaml, with the control plane's kubectl on PATH
    const [manifests] = install;
    const built = await sh('npx', manifests.split(' ').slice(1), project, {
      env: { ...userEnv, PATH: `${controlPlaneAssets()}${delimiter}${userEnv['PATH'] ?? ''}` },
    });
    assert.match(built.stdout, /^wrote dist\/install\.yaml: \d+ objects from /);
    assert.match(readFileSync(join(project, 'dist', 'install.yaml'), 'utf8'), /^kind: Deployment$/m);

    // a kind without a starter (cert-manager's Certificate, from the corpus): the generic stub's
    // test passes too, its sample made from the schema's required fields
    const configFile = join(project, 'crdgen.config.yaml');
    const before = readFileSync(configFile, 'utf8');
    writeFileSync(
      configFile,
      before.replace('controllers:\n  - DatabaseManager\n', 'controllers:\n  - DatabaseManager\n  - Certificate\n'),
    );
    await sh('npx', ['crdgen', 'generate'], project);
    assert.ok(existsSync(join(project, 'src', 'generated', 'controllers', 'certificate', 'reconcile.test.ts')));
    const both = await sh('npm', ['test'], project);
    assert.match(both.stdout, /^# pass 3$/m, both.stdout);
    assert.match(both.stdout, /a Certificate is seen by the controller, and its status is left alone/);
    writeFileSync(configFile, before);
    await sh('npx', ['crdgen', 'generate'], project);
    // its reconcile.ts and reconcile.test.ts are the user's: generate leaves them, the test removes them
    rmSync(join(project, 'src', 'generated', 'controllers', 'certificate'), { recursive: true });
  },
);

test(
  'messages name the command as run: npx crdgen through npx, crdgen when this crdgen is on PATH',
  { timeout: 10 * MINUTE },
  async () => {
    const types = join(project, 'src', 'generated', 'apis', 'coolops.cn', 'v1alpha1', 'types.ts');
    const before = readFileSync(types, 'utf8');
    writeFileSync(types, `${before}// edited\n`);
    const viaNpx = await sh('npx', ['crdgen', 'verify'], project, { fail: true });
    assert.equal(viaNpx.code, 1);
    assert.match(viaNpx.stderr, /To fix it, run:\n {2}npx crdgen generate\n$/);
    // a global install puts <prefix>/bin/crdgen → …/crdgen/bin/crdgen.js on PATH
    const bin = join(tmp, 'global-bin');
    mkdirSync(bin);
    symlinkSync(join(project, 'node_modules', 'crdgen', 'bin', 'crdgen.js'), join(bin, 'crdgen'));
    const globalEnv = { ...userEnv, PATH: `${bin}${delimiter}${userEnv['PATH'] ?? ''}` };
    const onPath = await sh('crdgen', ['verify'], project, { env: globalEnv, fail: true });
    assert.equal(onPath.code, 1);
    assert.match(onPath.stderr, /To fix it, run:\n {2}crdgen generate\n$/);
    writeFileSync(types, before);
  },
);

test(
  "the README's next steps in that project: a CRD path on the command line keeps the config's settings and files; a kind taken out of controllers: is announced, its reconcile.ts named, the build passes once it is deleted",
  { timeout: 15 * MINUTE },
  async () => {
    const next = readmeCommands()[3];
    assert.deepEqual(next, [
      'npx crdgen generate crds/databasemanager.yaml',
      'npx crdgen generate',
      'rm -r src/generated/controllers/databasemanager',
      'npm run build',
    ]);
    const generated = join(project, 'src', 'generated');
    const before = readTree(generated);
    const one = await sh('npx', ['crdgen', 'generate', 'crds/databasemanager.yaml'], project);
    assert.match(
      one.stdout,
      /^crdgen\.config\.yaml: its target for src\/generated runs, with the inputs named on the command line added to its own\ngenerated (\d+) files for 5 kinds in 3 groups: \1 unchanged(?: \(\d+ from the cache\))?\n$/,
    );
    assert.deepEqual(readTree(generated), before, "the operator and the other CRDs' files stay");
    // "delete it under controllers: in crdgen.config.yaml"
    const config = readFileSync(join(project, 'crdgen.config.yaml'), 'utf8');
    const without = config.replace(/^controllers:\n {2}- DatabaseManager\n/m, '');
    assert.notEqual(without, config);
    writeFileSync(join(project, 'crdgen.config.yaml'), without);
    const gone = await sh('npx', ['crdgen', 'generate'], project);
    assert.match(
      gone.stderr,
      /^src\/generated\/controllers\/databasemanager\/ warning GEN007 removing the generated operator \(19 files: Dockerfile, config\/crd\/databasemanagers\.coolops\.cn\.yaml, config\/crd\/kustomization\.yaml, .*, config\/rbac\/role\.yaml, controller\.ts, main\.ts\): its kind is no longer under controllers: in crdgen\.config\.yaml\n/,
    );
    assert.match(
      gone.stderr,
      /^src\/generated\/controllers\/databasemanager\/reconcile\.ts warning GEN008 .*\n {2}hint: delete it \(and src\/generated\/controllers\/databasemanager\/\) if the kind needs no operator/m,
    );
    assert.match(gone.stdout, /; removed 19 stale generated files\n$/);
    // before the user deletes it, the build fails, as GEN008 said
    const broken = await sh('npm', ['run', 'build'], project, { fail: true });
    assert.notEqual(broken.code, 0);
    assert.match(broken.stdout + broken.stderr, /reconcile\.ts.*TS2307/);
    rmSync(join(generated, 'controllers', 'databasemanager'), { recursive: true });
    rmSync(join(project, 'dist'), { recursive: true, force: true });
    await sh('npm', ['run', 'build'], project);
    assert.ok(existsSync(join(project, 'dist', 'generated', 'clientset', 'clientset.js')));
    // put back for the tests after this one
    writeFileSync(join(project, 'crdgen.config.yaml'), config);
    await sh('npx', ['crdgen', 'generate'], project);
    assert.deepEqual(readTree(generated), before);
  },
);

/** The code blocks (language, text) of the section of `file` under `heading`, up to the next heading of its level or above. */
function docBlocks(file: string, heading: string): Array<{ lang: string; text: string }> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `${file} has "${heading}"`);
  const level = /^#+/.exec(heading)![0];
  const next = text.slice(at + heading.length + 2).search(new RegExp(`^#{1,${level.length}} `, 'm'));
  const section = text.slice(at, next < 0 ? undefined : at + heading.length + 2 + next);
  return [...section.matchAll(/```(\w*)\n([^]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] }));
}

test(
  "docs/testing.md's examples, as written, in that project: the generated operator tested against the test server, fault injection, the real control plane's switch",
  { timeout: 15 * MINUTE },
  async () => {
    const [test1, run1] = docBlocks('docs/testing.md', '## In a test');
    assert.equal(test1?.lang, 'ts');
    assert.deepEqual(run1, { lang: 'sh', text: 'npm run build && node --test dist/databasemanager.test.js\n' });
    const [faults] = docBlocks('docs/testing.md', '### Fault injection');
    const [real] = docBlocks('docs/testing.md', '## The real control plane: `startControlPlane()`');
    const src = join(project, 'src');
    writeFileSync(join(src, 'databasemanager.test.ts'), test1.text);
    // the fault-injection lines act on a server the reader has started: one, around them
    writeFileSync(
      join(src, 'faults.ts'),
      `import { startTestApiServer } from 'crdgen/testing';\nconst env = await startTestApiServer();\n${faults.text}await env.stop();\n`,
    );
    writeFileSync(join(src, 'env.ts'), real.text);
    try {
      const [build, runTests] = run1.text.trim().split(' && ');
      await sh('npm', build.split(' ').slice(1), project);
      const ran = await sh('node', runTests.split(' ').slice(1), project);
      assert.match(ran.stdout, /^# pass 1$/m);
      assert.match(ran.stdout, /^# fail 0$/m);
      await sh('node', ['dist/faults.js'], project);
      await sh('node', ['dist/env.js'], project); // the test server's branch (no REAL)
    } finally {
      for (const f of ['databasemanager.test', 'faults', 'env']) {
        rmSync(join(src, `${f}.ts`), { force: true });
        rmSync(join(project, 'dist', `${f}.js`), { force: true });
      }
    }
  },
);

test(
  '`npx crdgen testenv &` stopped by the PID the shell gave (npx, not its process group): the server stops too',
  { timeout: 10 * MINUTE },
  async () => {
    const kc = join(tmp, 'pid.kubeconfig');
    const env = start('npx', ['crdgen', 'testenv', '--kubeconfig', kc], project);
    await until(
      'crdgen testenv to listen',
      5 * MINUTE,
      async () => (/kubeconfig written to/.test(env.output()) ? true : undefined),
      env.output,
    );
    const config = await loadKubeconfig({ path: kc });
    assert.equal((await fetch(`${config.server}/version`)).status, 200);
    const exited = new Promise((r) => env.child.once('exit', r));
    process.kill(env.child.pid!, 'SIGTERM'); // `kill $!`: npx alone
    await exited;
    try {
      await until(
        'the server to stop',
        MINUTE,
        async () => {
          try {
            await fetch(`${config.server}/version`);
            return undefined;
          } catch {
            return true;
          }
        },
        env.output,
      );
      assert.match(env.output(), /crdgen testenv: stopped\n/);
    } finally {
      // a server left running (the failure this test looks for) is stopped here: found by its kubeconfig path
      for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        let cmdline = '';
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue;
        }
        if (cmdline.includes('testenv') && cmdline.includes(kc)) process.kill(Number(pid), 'SIGKILL');
      }
    }
  },
);

const plain = join(tmp, 'plain');

test(
  'a plain `npm init -y` + `tsc --init` project (TypeScript 5.9): generate warns with the fixes, init --yes writes them, the output compiles',
  { timeout: 15 * MINUTE },
  async () => {
    mkdirSync(plain);
    await sh('npm', ['init', '-y'], plain);
    await sh('npm', ['install', '--prefer-offline', '--loglevel=error', tarball], plain);
    await sh(
      'npm',
      ['install', '--prefer-offline', '--loglevel=error', '--save-dev', 'typescript@5.9', '@types/node@20'],
      plain,
    );
    await sh('npx', ['tsc', '--init'], plain);
    cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(plain, 'crd.yaml'));
    const warned = await sh(
      'npx',
      ['crdgen', 'generate', 'crd.yaml', '--out', 'generated', '--controller', 'DatabaseManager'],
      plain,
    );
    assert.match(warned.stderr, /^package\.json:\d+:\d+ warning PRJ001 package\.json has "type": "commonjs"/m);
    assert.match(warned.stderr, /^tsconfig\.json:\d+:\d+ warning PRJ004 tsconfig "types" leaves out "node"/m);
    const failed = await sh('npx', ['tsc', '--noEmit'], plain, { fail: true });
    assert.notEqual(failed.code, 0, 'as the warnings said, it does not compile yet');
    await sh('npx', ['crdgen', 'init', '--yes'], plain);
    const again = await sh(
      'npx',
      ['crdgen', 'generate', 'crd.yaml', '--out', 'generated', '--controller', 'DatabaseManager'],
      plain,
    );
    assert.doesNotMatch(again.stderr, /PRJ00\d/);
    // tsc --init's options: strict, verbatimModuleSyntax, isolatedModules, exactOptionalPropertyTypes, noUncheckedIndexedAccess
    await sh('npx', ['tsc', '--noEmit'], plain);
  },
);

test(
  'TypeScript 5\'s node10 resolution ("moduleResolution": "node") with ES modules finds crdgen/runtime\'s types through typesVersions',
  { timeout: 10 * MINUTE },
  async () => {
    writeFileSync(
      join(plain, 'tsconfig.node10.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { module: 'es2022', moduleResolution: 'node', noEmit: true },
      }),
    );
    await sh('npx', ['tsc', '-p', 'tsconfig.node10.json'], plain);
  },
);
