// `crdgen demo` (and `npm run demo`): the DatabaseManager operator end to end on one
// machine. Starts the test API server with simulated workloads (what `crdgen testenv
// --simulate-workloads` runs), generates the operator into a temporary folder, compiles it
// (TypeScript's transpiler, which the package brings through ts-morph: no tsx, no tsc), starts
// it as its own process, applies a DatabaseManager, scales it, deletes it, and narrates each
// step. Ends with 0. Everything it reads ships in the package: the CRD
// (fixtures/databasemanager/crd.yaml, listed in package.json "files") and dist/runtime/.
import { Command } from 'commander';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CliContext } from './io.js';
import { commandOf } from './invocation.js';
import type { Deployment, KubeObject } from '../runtime/index.js';
import { EXIT } from './io.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The demo's CRD, shipped in the package. */
export const DEMO_CRD = join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml');
type Obj = {
  metadata?: { name?: string; uid?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

async function until<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Runs the demo; resolves with the exit code. */
export async function runDemo(ctx: CliContext): Promise<number> {
  const say = (s: string): void => ctx.io.stdout(`${s}\n`);
  const { startTestApiServer } = await import('../testing/index.js');
  const { readCrdInputs } = await import('../input/crd/index.js');
  const { createEmitContext } = await import('../generate/emitter.js');
  const { runEmitters } = await import('../generate/registry.js');
  const { writeFiles } = await import('../emit/writer.js');
  const rt = await import('../runtime/index.js');
  const cmd = commandOf(ctx.io);
  const crdFile = DEMO_CRD;
  const runtimeJs = join(ROOT, 'dist', 'runtime', 'index.js');
  if (!existsSync(runtimeJs)) {
    ctx.io.stderr(`crdgen demo: ${runtimeJs} is missing: build crdgen first (npm run build)\n`);
    return EXIT.invalidInput;
  }
  const out = mkdtempSync(join(tmpdir(), 'crdgen-demo-'));
  say('1. starting the test API server with workload simulation (crdgen testenv --simulate-workloads)…');
  const server = await startTestApiServer({ crds: [crdFile], simulateWorkloads: 500 });
  let child: ReturnType<typeof spawn> | undefined;
  try {
    say(`   API server at ${server.url}; the DatabaseManager CRD is installed`);
    const shownCrd = relative(ctx.io.cwd, crdFile).startsWith('..') ? crdFile : relative(ctx.io.cwd, crdFile);
    say(`2. generating the operator: ${cmd} generate ${shownCrd} --out ${out} --controller DatabaseManager`);
    const r = readCrdInputs([{ file: 'fixtures/databasemanager/crd.yaml', content: readFileSync(crdFile) }]);
    const files = runEmitters(
      r.model,
      createEmitContext({
        sources: r.model.sources,
        runtimeImport: pathToFileURL(runtimeJs).href,
        controllers: ['DatabaseManager'],
      }),
    );
    await writeFiles(out, files);
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    say("   compiling it to JavaScript (TypeScript's transpiler)…");
    await transpileAll(
      out,
      files.map((f) => f.path).filter((p) => p.endsWith('.ts')),
    );
    say('3. starting the operator as its own process (2 workers, metrics and probes off)…');
    child = spawn(
      process.execPath,
      [
        join(out, 'controllers', 'databasemanager', 'main.js'),
        '--kubeconfig',
        server.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const config = await rt.loadKubeconfig({ path: server.kubeconfigPath });
    const dms = rt
      .resourceClient<Obj & KubeObject>(config, {
        group: 'coolops.cn',
        version: 'v1alpha1',
        resource: 'databasemanagers',
        kind: 'DatabaseManager',
        listKind: 'DatabaseManagerList',
        namespaced: true,
      })
      .namespace('default');
    const deps = rt.resourceClient<Deployment>(config, rt.DeploymentResource).namespace('default');
    say('4. applying DatabaseManager "orders": deploymentName orders-db, replicas 2, dbtype postgres');
    await dms.create({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'orders' },
      spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
    });
    const d = await until(() => deps.get('orders-db'), 30_000, 'the Deployment');
    say(
      `   Deployment orders-db appeared: replicas ${d.spec?.replicas}, image ${d.spec?.template.spec?.containers[0]?.image}, owned by DatabaseManager ${d.metadata?.ownerReferences?.[0]?.name}`,
    );
    await until(
      async () => {
        const st = (await dms.get('orders')).status as
          { availableReplicas?: number; conditions?: { type: string; status: string }[] } | undefined;
        return st?.availableReplicas === 2 && st.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? true
          : undefined;
      },
      30_000,
      'availableReplicas 2 and Ready=True',
    );
    say('   status.availableReplicas reached 2; condition Ready=True');
    say('5. scaling to 4 (kubectl patch dm orders --type merge -p \'{"spec":{"replicas":4}}\')');
    await dms.patch('orders', rt.PatchType.Merge, { spec: { replicas: 4 } });
    await until(
      async () => ((await deps.get('orders-db')).spec?.replicas === 4 ? true : undefined),
      30_000,
      'Deployment replicas 4',
    );
    say('   Deployment orders-db scaled to 4');
    await until(
      async () => ((await dms.get('orders')).status?.['availableReplicas'] === 4 ? true : undefined),
      30_000,
      'availableReplicas 4',
    );
    say('   status.availableReplicas reached 4');
    say('6. deleting the DatabaseManager; the garbage collector removes its Deployment');
    await dms.delete('orders');
    await until(
      async () =>
        deps.get('orders-db').then(
          () => undefined,
          (e: unknown) => (rt.isNotFound(e) ? true : undefined),
        ),
      30_000,
      'the Deployment to go',
    );
    say('   Deployment orders-db is gone');
    say(
      `\nDone. Against a real cluster:\n  ${cmd} generate crd.yaml --out src/generated --controller DatabaseManager\n  kubectl apply -f src/generated/controllers/databasemanager/config/crd/\n  npx tsc && node dist/generated/controllers/databasemanager/main.js --kubeconfig ~/.kube/config\n  (or build the image from controllers/databasemanager/Dockerfile, then ${cmd} manifests src/generated/controllers/databasemanager and kubectl apply --server-side -f dist/install.yaml)`,
    );
    return EXIT.ok;
  } catch (e) {
    ctx.io.stderr(`crdgen demo: ${(e as Error).message}\n`);
    return EXIT.invalidInput;
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await server.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

/** Compiles each generated .ts file under `out` to a .js file beside it, one file at a time (no type check: the code is checked elsewhere). */
async function transpileAll(out: string, paths: readonly string[]): Promise<void> {
  const { ts } = await import('ts-morph');
  for (const p of paths) {
    const file = join(out, p);
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(file.replace(/\.ts$/, '.js'), js.outputText);
  }
}

/** Builds the `demo` command. */
export function createDemoCommand(ctx: CliContext): Command {
  return new Command('demo')
    .description('run the generated DatabaseManager operator end to end on the built-in test API server')
    .option(
      '--webhooks',
      'the two-version example with defaulting, validating and conversion webhooks (docs/webhooks.md)',
    )
    .action(async (opts: { webhooks?: boolean }) => {
      if (opts.webhooks) {
        const { runWebhooksDemo } = await import('./demo-webhooks.js');
        ctx.setExitCode(await runWebhooksDemo(ctx, transpileAll));
      } else ctx.setExitCode(await runDemo(ctx));
    });
}
