// startTestApiServer(): an in-process Kubernetes API server on 127.0.0.1 for tests, with
// its kubeconfig, fault injection, and stop/restart. Several can run in one process.
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../runtime/meta/types.js';
import { Controllers } from './controllers.js';
import { Faults } from './faults.js';
import type { FaultInjector } from './faults.js';
import { handleRequest, sendError } from './http.js';
import type { HttpContext } from './http.js';
import type { ApiServerHandle } from './handle.js';
import { buildKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { loadObjectFiles } from './load.js';
import { ObjectService } from './objects.js';
import { Registry } from './registry.js';
import { kubernetesService } from './services.js';
import { ApiError } from './status.js';
import { MemoryStorage } from './storage/memory.js';
import type { Storage } from './storage/storage.js';
import type { WatchConnection } from './watch.js';
import { WorkloadSimulator } from './workloads.js';
import { prepareWebhooks } from './webhook-install.js';
import type { WebhookInstallOptions } from './webhook-install.js';

/** Options of {@link startTestApiServer}. */
export interface TestApiServerOptions {
  /** CRDs to install before the server answers: objects, or paths of YAML/JSON files (multi-document YAML allowed). */
  crds?: (KubeObject | string)[];
  /** Other objects to create at start (namespaces first, in order). */
  objects?: KubeObject[];
  /** Port on 127.0.0.1 (default 0: a free port). */
  port?: number;
  /** Serve HTTPS with a generated self-signed certificate (needs `openssl`). */
  https?: boolean;
  /** Simulate the deployment controller: `true` (delay 100 ms) or the delay in ms. */
  simulateWorkloads?: boolean | number;
  /** How many changes are kept for watches from a past resourceVersion (default 10000); older ones get 410. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 10000 ms). */
  bookmarkIntervalMs?: number;
  /**
   * kube-apiserver's feature gates this server follows (`--feature-gates`). `WatchList`
   * (default true, as in kube-apiserver 1.34+): watches may ask for `sendInitialEvents`;
   * false refuses them with the apiserver's 422, as a server with the feature off does.
   */
  featureGates?: { WatchList?: boolean };
  /** Where to write the kubeconfig (default: a temporary file removed by stop()). */
  kubeconfigPath?: string;
  /** One line per request (`GET /api/v1/namespaces 200 1ms "user-agent"`) and per controller error. */
  log?: (line: string) => void;
  /**
   * Keep objects in etcd instead of memory (needs the npm package `etcd3`): resourceVersions
   * are etcd revisions, and a server started again on the same etcd and prefix finds
   * everything (CRDs and objects given in the options that already exist are left as stored).
   */
  etcd?: { endpoints: string[]; prefix?: string };
  /** A storage to use instead (the caller owns it: stop() does not close it). */
  storage?: Storage;
  /**
   * Install admission webhook configurations (envtest's WebhookInstallOptions): a CA and a
   * serving certificate for `host` are written into `certDir`, the configurations (and the
   * CRDs' conversion webhooks) are rewritten to call `https://<host><path>` with the CA as
   * caBundle. Installed after `crds` and `objects`; the handle's `webhooks` says what was.
   */
  webhooks?: WebhookInstallOptions;
}

/** Test-only controls beyond {@link FaultInjector}. */
export interface TestApiServerFaults extends FaultInjector {
  /** Stops listening (open connections and watches drop), waits `downMs`, then listens again on the same port with the same objects. */
  restart(downMs?: number): Promise<void>;
}

/** A running test API server. */
export interface TestApiServer extends ApiServerHandle {
  backend: 'testenv';
  faults: TestApiServerFaults;
  /** Creates objects in-process (as POSTs would), e.g. more CRDs; returns them as stored. */
  create(objects: KubeObject[]): Promise<KubeObject[]>;
  /** Resolves when the in-process controllers (GC, namespace/CRD cleanup) have nothing queued. */
  settle(): Promise<void>;
  /** Stops the server, closes all connections and watches, removes the temporary kubeconfig. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Starts a test API server. */
export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  let closeStorage: (() => Promise<void>) | undefined;
  let storage: Storage;
  if (options.storage) storage = options.storage;
  else if (options.etcd) {
    const { openEtcdStorage } = await import('./storage/etcd.js');
    const etcd = await openEtcdStorage({ ...options.etcd, historyLimit: options.historyLimit });
    closeStorage = () => etcd.close();
    storage = etcd;
  } else storage = new MemoryStorage({ historyLimit: options.historyLimit });
  // A persistent store may already hold the defaults, CRDs and objects of an earlier run.
  const persistent = options.storage !== undefined || options.etcd !== undefined;
  const registry = new Registry();
  const svc = new ObjectService(storage, registry);
  const log = options.log;
  const onError = (e: unknown): void => log?.(`controller error: ${e instanceof Error ? e.message : String(e)}`);
  const watches = new Set<WatchConnection>();
  const faults = new Faults();
  let port = options.port ?? 0;
  const scheme = options.https ? 'https' : 'http';
  const ctx: HttpContext = {
    svc,
    storage,
    registry,
    watches,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 10000,
    watchList: options.featureGates?.WatchList ?? true,
    address: () => `127.0.0.1:${port}`,
  };

  const nsRes = registry.lookup('', 'v1', 'namespaces')!;
  if (persistent) {
    const crdRes = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    for (const crd of (await storage.list(`${crdRes.storagePrefix}/`)).items) svc.afterWrite(crdRes, crd, false);
  }
  for (const ns of DEFAULT_NAMESPACES) {
    if (persistent && (await storage.get(svc.key(nsRes, undefined, ns)))) continue;
    await svc.create(nsRes, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  const hooks = options.webhooks ? await prepareWebhooks(options.webhooks) : undefined;
  const crds = await loadObjectFiles(options.crds ?? [], 'CRD');
  await installAll(svc, registry, hooks ? crds.map((c) => hooks.rewriteCrd(c)) : crds, persistent);
  await installAll(svc, registry, options.objects ?? [], persistent);
  if (hooks) {
    // a persistent store may hold the configurations of an earlier run, with another CA: replaced
    if (persistent) {
      for (const c of hooks.installed.configurations) {
        const res = registry.lookup(
          'admissionregistration.k8s.io',
          'v1',
          c.kind === 'MutatingWebhookConfiguration'
            ? 'mutatingwebhookconfigurations'
            : 'validatingwebhookconfigurations',
        )!;
        const key = svc.key(res, undefined, c.metadata?.name ?? '');
        const cur = await storage.get(key);
        if (cur) await storage.delete(key, Number(cur.metadata?.resourceVersion));
      }
    }
    await installAll(svc, registry, hooks.installed.configurations);
  }

  const controllers = new Controllers(svc, storage, onError);
  await controllers.start();
  // A deleted CRD's watches end, as the apiserver closes them when it stops serving the resource.
  const crdWatch = storage.watch(
    '/apiextensions.k8s.io/customresourcedefinitions/',
    await storage.currentRevision(),
    (e) => {
      if (e.type !== 'DELETED') return;
      const spec = (e.object as { spec?: { group?: string; names?: { plural?: string } } }).spec;
      const prefix = `/${spec?.group ?? ''}/${spec?.names?.plural ?? ''}`;
      for (const w of [...watches]) if (w.resource.storagePrefix === prefix) w.close();
    },
  );
  let simulator: WorkloadSimulator | undefined;
  if (options.simulateWorkloads) {
    const delay = typeof options.simulateWorkloads === 'number' ? options.simulateWorkloads : 100;
    simulator = new WorkloadSimulator(svc, storage, delay, onError);
    await simulator.start();
  }

  let tls: { key: string; cert: string } | undefined;
  if (options.https) {
    const { generateSelfSignedCert } = await import('./tls.js');
    tls = await generateSelfSignedCert();
  }
  const pending = new Set<NodeJS.Timeout>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = Date.now();
    // the user agent last (quoted), so a test can tell an operator's requests from its own
    if (log)
      res.on('finish', () =>
        log(
          `${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms ${JSON.stringify(req.headers['user-agent'] ?? '')}`,
        ),
      );
    const go = (): void => {
      const fault = faults.check(req.url ?? '/');
      if (fault) {
        req.resume();
        sendError(res, fault);
        return;
      }
      void handleRequest(ctx, req, res);
    };
    if (faults.latencyMs > 0) {
      const t = setTimeout(() => {
        pending.delete(t);
        go();
      }, faults.latencyMs);
      pending.add(t);
    } else go();
  };
  let server: Server = await listen(handler, port, tls);
  port = (server.address() as { port: number }).port;
  const url = `${scheme}://127.0.0.1:${port}`;
  // the `kubernetes` Service the apiserver keeps in `default` (10.0.0.1, its port as targetPort)
  const svcRes = registry.lookup('', 'v1', 'services')!;
  if (!(persistent && (await storage.get(svc.key(svcRes, 'default', 'kubernetes'))))) {
    await svc.create(svcRes, 'default', kubernetesService(port), { fieldManager: 'kube-apiserver' });
  }

  let tmpDir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (!kubeconfigPath) {
    tmpDir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-'));
    kubeconfigPath = join(tmpDir, 'kubeconfig');
  }
  const kubeconfig = buildKubeconfig(url, tls?.cert);
  writeKubeconfig(kubeconfigPath, kubeconfig);

  const closeServer = async (): Promise<void> => {
    for (const w of [...watches]) w.close();
    for (const t of pending) clearTimeout(t);
    pending.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  let stopped = false;
  const injector: TestApiServerFaults = {
    failNext: (n, spec) => faults.failNext(n, spec),
    failFraction: (f, spec) => faults.failFraction(f, spec),
    setLatency: (ms) => {
      faults.latencyMs = Math.max(0, ms);
    },
    dropWatches: () => {
      for (const w of [...watches]) w.close();
    },
    expireResourceVersions: () => storage.compact(Number.MAX_SAFE_INTEGER),
    reset: () => faults.reset(),
    restart: async (downMs = 0) => {
      if (stopped) throw new Error('the test API server is stopped');
      await closeServer();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      server = await listen(handler, port, tls);
    },
  };

  const env: TestApiServer = {
    backend: 'testenv',
    url,
    port,
    kubeconfig,
    kubeconfigPath,
    clientConfig: {
      server: url,
      tls: tls ? { caData: tls.cert } : undefined,
      auth: { bearerToken: 'crdgen-testenv' },
      qps: 0,
      namespace: 'default',
      source: kubeconfigPath,
    },
    faults: injector,
    create: (objects) => installAll(svc, registry, objects),
    settle: async () => {
      // Controllers may queue more work while finishing; wait until quiet (bounded).
      for (let i = 0; i < 100; i++) {
        await controllers.idle();
        await new Promise((r) => setImmediate(r));
        if (!controllers.busy()) return;
      }
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      controllers.stop();
      crdWatch.stop();
      simulator?.stop();
      await closeServer();
      await closeStorage?.();
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
      hooks?.cleanup();
    },
  };
  if (tls) env.caCert = tls.cert;
  if (hooks) env.webhooks = hooks.installed;
  return env;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  tls: { key: string; cert: string } | undefined,
): Promise<Server> {
  let server: Server;
  if (tls) {
    const https = await import('node:https');
    server = https.createServer({ key: tls.key, cert: tls.cert }, handler);
  } else server = createHttpServer(handler);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** Creates objects in-process; a clear error (with the apiserver's message) when one is refused. */
async function installAll(
  svc: ObjectService,
  registry: Registry,
  objects: KubeObject[],
  keepExisting = false,
): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const o of objects) {
    const [group, version] = (o.apiVersion ?? '').includes('/')
      ? (o.apiVersion ?? '').split('/')
      : ['', o.apiVersion ?? ''];
    const res = registry.all().find((r) => r.group === group && r.version === version && r.kind === o.kind);
    if (!res)
      throw new Error(
        `cannot create ${o.kind ?? '?'} ${o.metadata?.name ?? ''}: no resource serves ${o.apiVersion ?? '?'} ${o.kind ?? '?'}`,
      );
    try {
      out.push(
        await svc.create(res, res.namespaced ? (o.metadata?.namespace ?? 'default') : undefined, o, {
          fieldManager: 'crdgen-testenv',
        }),
      );
    } catch (e) {
      if (keepExisting && e instanceof ApiError && e.status.code === 409) continue;
      if (e instanceof ApiError)
        throw new Error(`cannot create ${o.kind} ${o.metadata?.name ?? ''}: ${e.status.message}`);
      throw e;
    }
  }
  return out;
}
