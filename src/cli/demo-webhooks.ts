// `crdgen demo --webhooks`: the DatabaseManager example with two versions and webhooks
// (examples/databasemanager-webhooks, docs/webhooks.md) end to end on one machine. Generates the
// operator with --webhooks into a temporary folder with the example's own hooks (admission.ts,
// conversion.ts, reconcile.ts: the user's files, shipped in the package), starts the test API
// server with the generated CRD and webhook configurations installed (the `webhooks` option: a CA
// and serving certificate for the operator's address), runs the operator as its own process, and
// shows defaulting, conversion between v1alpha1 and v1 and the validating hook's refusal.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CliContext } from './io.js';
import { EXIT } from './io.js';
import { commandOf } from './invocation.js';
import type { Deployment, KubeObject } from '../runtime/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The example the demo runs, shipped in the package (its CRD and its user-owned hooks). */
export const WEBHOOKS_EXAMPLE = join(ROOT, 'examples', 'databasemanager-webhooks');
const USER_FILES = ['admission.ts', 'conversion.ts', 'reconcile.ts'];

type DM = KubeObject & { spec?: Record<string, unknown> };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Runs the webhooks demo; resolves with the exit code. */
export async function runWebhooksDemo(
  ctx: CliContext,
  transpileAll: (out: string, paths: readonly string[]) => Promise<void>,
): Promise<number> {
  const say = (s: string): void => ctx.io.stdout(`${s}\n`);
  const { startTestApiServer } = await import('../testing/index.js');
  const { readCrdInputs } = await import('../input/crd/index.js');
  const { createEmitContext } = await import('../generate/emitter.js');
  const { runEmitters } = await import('../generate/registry.js');
  const { writeFiles } = await import('../emit/writer.js');
  const rt = await import('../runtime/index.js');
  const cmd = commandOf(ctx.io);
  const runtimeJs = join(ROOT, 'dist', 'runtime', 'index.js');
  if (!existsSync(runtimeJs)) {
    ctx.io.stderr(`crdgen demo: ${runtimeJs} is missing: build crdgen first (npm run build)\n`);
    return EXIT.invalidInput;
  }
  const runtimeImport = pathToFileURL(runtimeJs).href;
  const out = mkdtempSync(join(tmpdir(), 'crdgen-demo-webhooks-'));
  let server: Awaited<ReturnType<typeof startTestApiServer>> | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  try {
    say(
      `1. generating the operator with webhooks: ${cmd} generate crd.yaml --out ${out} --controller DatabaseManager --webhooks`,
    );
    say(
      '   (examples/databasemanager-webhooks: v1alpha1 as published, v1 renames dbtype to engine and adds version; storage v1)',
    );
    const crdFile = join(WEBHOOKS_EXAMPLE, 'crd.yaml');
    const r = readCrdInputs([{ file: 'crd.yaml', content: readFileSync(crdFile) }]);
    const files = runEmitters(
      r.model,
      createEmitContext({
        sources: r.model.sources,
        runtimeImport,
        controllers: ['DatabaseManager'],
        owns: ['apps/v1/Deployment', 'v1/Service'],
        webhooks: true,
      }),
    );
    // the example's hooks stand for what the user writes into the files crdgen wrote once
    const opDir = join('controllers', 'databasemanager');
    const hooks = files.map((f) => {
      if (!USER_FILES.some((u) => f.path === `controllers/databasemanager/${u}`)) return f;
      const mine = readFileSync(join(WEBHOOKS_EXAMPLE, 'generated', f.path), 'utf8').replaceAll(
        'from "crdgen/runtime"',
        `from ${JSON.stringify(runtimeImport)}`,
      );
      return { ...f, contents: mine };
    });
    await writeFiles(out, hooks);
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    say(
      `   with the example's admission.ts (spec.version defaults to the engine's; spec.engine cannot change), conversion.ts (dbtype ⇄ engine) and reconcile.ts`,
    );
    await transpileAll(
      out,
      hooks.map((f) => f.path).filter((p) => p.endsWith('.ts') && !p.endsWith('.test.ts')),
    );
    const host = `127.0.0.1:${await freePort()}`;
    say(
      `2. starting the test API server with the CRD (config/crd/) and config/webhook/manifests.yaml installed, calling https://${host}`,
    );
    server = await startTestApiServer({
      crds: [join(out, opDir, 'config', 'crd', 'databasemanagers.coolops.cn.yaml')],
      simulateWorkloads: 500,
      webhooks: { configurations: [join(out, opDir, 'config', 'webhook', 'manifests.yaml')], host },
    });
    const installed = server.webhooks!;
    say(
      `3. starting the operator: main.js --webhook-bind-address ${host} --webhook-cert-dir <the test CA's serving certificate>`,
    );
    child = spawn(
      process.execPath,
      [
        join(out, opDir, 'main.js'),
        '--kubeconfig',
        server.kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        '--log-level',
        'warn',
        '--webhook-bind-address',
        host,
        '--webhook-cert-dir',
        installed.certDir,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const config = await rt.loadKubeconfig({ path: server.kubeconfigPath });
    const dm = (version: string) =>
      rt
        .resourceClient<DM>(config, {
          group: 'coolops.cn',
          version,
          resource: 'databasemanagers',
          kind: 'DatabaseManager',
          listKind: 'DatabaseManagerList',
          namespaced: true,
        })
        .namespace('default');
    say('4. creating DatabaseManager "orders" through v1alpha1: deploymentName orders-db, replicas 2, dbtype postgres');
    // until the operator serves (failurePolicy Fail refuses writes before)
    await until(
      () =>
        dm('v1alpha1').create({
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          metadata: { name: 'orders' },
          spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
        }),
      30_000,
      "the operator's webhooks",
    );
    const asV1 = await dm('v1').get('orders');
    say(
      `   read through v1: ${JSON.stringify(asV1.spec)} (converted by /convert; version set by /mutate-coolops-cn-v1-databasemanager)`,
    );
    const asAlpha = await dm('v1alpha1').get('orders');
    say(
      `   read through v1alpha1: ${JSON.stringify(asAlpha.spec)} (v1's version kept in the conversion.crdgen.io/v1 annotation)`,
    );
    const deployments = rt.resourceClient<Deployment>(config, rt.DeploymentResource).namespace('default');
    const d = await until(() => deployments.get('orders-db'), 30_000, 'the Deployment');
    say(`   Deployment orders-db appeared: image ${d.spec?.template.spec?.containers[0]?.image}`);
    say(
      '5. changing the engine (kubectl patch dm.v1.coolops.cn orders --type merge -p \'{"spec":{"engine":"mysql"}}\')',
    );
    const refused = await dm('v1')
      .patch('orders', rt.PatchType.Merge, { spec: { engine: 'mysql' } })
      .then(
        () => undefined,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
    if (refused === undefined) throw new Error('the validating webhook let spec.engine change');
    say(`   refused: ${refused.replace(/^PATCH \S+: /, '')}`);
    say('6. deleting the DatabaseManager');
    await dm('v1').delete('orders');
    say(`\nDone. docs/webhooks.md: run, test, deploy with cert-manager, debug.`);
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
    await server?.stop();
    rmSync(out, { recursive: true, force: true });
  }
}
