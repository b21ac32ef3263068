// The generated operator for a kind other than DatabaseManager: `--controller Gateway --owns
// apps/v1/Deployment,v1/Service` on the Gateway API CRD, with the reconciler of
// gateway-reconcile.ts as its reconcile.ts, run by a manager on crdgen/testing and on the real
// control plane (the same flow on both): the Deployment and the Service are created with the
// Gateway's controller reference, the reconciler sees them in `context.owned`, and they are
// kept in line (a deleted Service recreated, a scaled Deployment put back, a listener's port
// followed). Every wait is bounded by a condition.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import {
  newManager,
  type Manager,
  restBackend,
  type ClientBackend,
  DeploymentResource,
  ServiceResource,
  type Deployment,
  type Service,
  isNotFound,
  PatchType,
  typedResource,
  type KubeObject,
} from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { ROOT, writeTree } from '../golden/support.js';
import { BACKENDS } from '../support/backends.js';
import { gatewayReconcile } from './gateway-reconcile.js';
import { waitFor } from './support.js';

const CRD_FILE = 'gateway-api/gateway.networking.k8s.io_gateways.yaml';
const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'crds');
const NS = 'default';

interface GatewayObject extends KubeObject {
  spec: { gatewayClassName: string; listeners: Array<{ name: string; port: number; protocol: string }> };
}
const GatewayResource = typedResource<GatewayObject>({
  group: 'gateway.networking.k8s.io',
  version: 'v1',
  resource: 'gateways',
  kind: 'Gateway',
  listKind: 'GatewayList',
  namespaced: true,
});

/** What the generated controller module exports (checked by use: a missing export fails the test). */
interface GeneratedController {
  setupGatewayController(
    manager: Manager,
    options?: object,
    reconciler?: (gw: GatewayObject, ctx: OwnedContext) => Promise<unknown>,
  ): unknown;
}
interface OwnedContext {
  owned: { deployments: KubeObject[]; services: KubeObject[] };
}

/** Generates the operator into a folder of the repo (git-ignored) with the test's reconcile.ts. */
function generate(): { dir: string; cleanup(): void } {
  const r = readCrdInputs([{ file: CRD_FILE, content: readFileSync(join(CORPUS, CRD_FILE)) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const base = join(ROOT, 'test', 'e2e', 'out');
  mkdirSync(base, { recursive: true });
  const dir = join(base, `gateway-op-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const runtimeImport = join(ROOT, 'src', 'runtime', 'index.js');
  const files = runEmitters(
    r.model,
    createEmitContext({
      sources: r.model.sources,
      runtimeImport,
      controllers: ['Gateway'],
      owns: ['apps/v1/Deployment', 'v1/Service'],
    }),
  );
  writeTree(dir, files);
  writeFileSync(join(dir, 'controllers', 'gateway', 'reconcile.ts'), gatewayReconcile(runtimeImport));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function getOrUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

for (const backend of BACKENDS) {
  describe(`the generated Gateway operator (--owns apps/v1/Deployment,v1/Service) on ${backend.name}`, () => {
    let server: ApiServerHandle;
    let gen: ReturnType<typeof generate>;
    let admin: ClientBackend;
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    const seen: Array<{ deployments: string[]; services: string[] }> = [];

    before(async () => {
      gen = generate();
      server = await backend.start({ crds: [join(CORPUS, CRD_FILE)] });
      admin = restBackend(server.clientConfig);
      const ctl = (await import(
        pathToFileURL(join(gen.dir, 'controllers', 'gateway', 'controller.ts')).href
      )) as GeneratedController;
      const rec = (await import(pathToFileURL(join(gen.dir, 'controllers', 'gateway', 'reconcile.ts')).href)) as {
        reconcile(gw: GatewayObject, ctx: OwnedContext): Promise<unknown>;
      };
      const manager = newManager({ client: server.clientConfig, name: 'gateway-operator' });
      ctl.setupGatewayController(manager, {}, async (gw, ctx) => {
        seen.push({
          deployments: ctx.owned.deployments.map((d) => d.metadata?.name ?? ''),
          services: ctx.owned.services.map((s) => s.metadata?.name ?? ''),
        });
        return rec.reconcile(gw, ctx);
      });
      running = manager.start(stop.signal);
    });

    after(async () => {
      stop.abort();
      await running;
      await server?.stop();
      gen?.cleanup();
    });

    test('owns a Deployment and a Service: created with the controller reference, seen in context.owned, kept in line', async () => {
      const gateways = admin.resource<GatewayObject>(GatewayResource, NS);
      const deployments = admin.resource<Deployment>(DeploymentResource, NS);
      const services = admin.resource<Service>(ServiceResource, NS);
      const gw = await gateways.create({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'edge', namespace: NS },
        spec: {
          gatewayClassName: 'crdgen',
          listeners: [
            { name: 'http', port: 80, protocol: 'HTTP' },
            { name: 'admin', port: 9090, protocol: 'HTTP' },
          ],
        },
      });
      const ref = {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        name: 'edge',
        uid: gw.metadata!.uid!,
        controller: true,
        blockOwnerDeletion: true,
      };
      const d = await waitFor(() => deployments.get('edge-proxy'), 'the proxy Deployment');
      assert.deepEqual(d.metadata?.ownerReferences, [ref]);
      assert.deepEqual(
        d.spec?.template.spec?.containers[0]?.ports?.map((p) => p.containerPort),
        [80, 9090],
      );
      const svc = await waitFor(() => services.get('edge-proxy'), 'the proxy Service');
      assert.deepEqual(svc.metadata?.ownerReferences, [ref]);
      assert.deepEqual(
        svc.spec?.ports?.map((p) => [p.name, p.port]),
        [
          ['http', 80],
          ['admin', 9090],
        ],
      );
      // the owned objects' events reconcile the Gateway again, which then finds them in context.owned
      await waitFor(
        () => seen.some((s) => s.deployments.join() === 'edge-proxy' && s.services.join() === 'edge-proxy'),
        'a reconcile that sees both owned objects',
      );
      assert.deepEqual(seen[0], { deployments: [], services: [] }, 'the first reconcile owned nothing yet');

      await services.delete('edge-proxy');
      await waitFor(async () => {
        const again = await getOrUndefined(services.get('edge-proxy'));
        return again !== undefined && again.metadata?.uid !== svc.metadata?.uid;
      }, 'the Service recreated after its deletion');

      await deployments.patch('edge-proxy', PatchType.Merge, { spec: { replicas: 3 } });
      await waitFor(
        async () => (await deployments.get('edge-proxy')).spec?.replicas === 1,
        'the Deployment scaled back to 1',
      );

      await gateways.patch('edge', PatchType.JSON, [{ op: 'replace', path: '/spec/listeners/1/port', value: 9091 }]);
      await waitFor(
        async () => (await services.get('edge-proxy')).spec?.ports?.[1]?.port === 9091,
        "the Service following the listener's port",
      );
    });
  });
}
