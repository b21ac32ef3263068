// startControlPlane(): the real Kubernetes control plane for tests, as envtest runs it:
// etcd + kube-apiserver from a folder of binaries (KUBEBUILDER_ASSETS), and with
// `workloads`, kube-controller-manager, kube-scheduler and kwok with fake nodes, so that
// Deployments get ReplicaSets and Pods that are scheduled and become Ready.
// Everything listens on 127.0.0.1, keeps its data in a temporary folder removed by stop(),
// uses certificates generated for the run and a token kubeconfig. The handle is the one
// startTestApiServer() returns, so a suite switches backends with one line.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { accessSync, constants, createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RestConfig } from '../runtime/client/config.js';
import { ApiError } from '../runtime/client/errors.js';
import { RestClient } from '../runtime/client/rest-client.js';
import type { KubeObject } from '../runtime/meta/types.js';
import type { ApiServerHandle } from './handle.js';
import { buildKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { loadObjectFiles } from './load.js';
import { generateCertificateSet } from './tls.js';
import { prepareWebhooks } from './webhook-install.js';
import type { WebhookInstallOptions } from './webhook-install.js';

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /**
   * Folder with the binaries: `etcd` and `kube-apiserver`, and for `workloads` also
   * `kube-controller-manager`, `kube-scheduler`, `kwok` and `kwok-stages.yaml`.
   * Default: `$KUBEBUILDER_ASSETS` (envtest's convention: setup-envtest's folders work).
   */
  assets?: string;
  /** CRDs to install before the handle is returned (objects or YAML/JSON file paths); waits until each is served. */
  crds?: (KubeObject | string)[];
  /** Other objects to create at start (after the CRDs, in order). */
  objects?: KubeObject[];
  /**
   * Run kube-controller-manager (garbage collector, Deployment, ReplicaSet, … controllers),
   * kube-scheduler and kwok with fake nodes: `true` (one node) or `{ nodes, controllers }`
   * (`controllers`: kube-controller-manager's `--controllers` list instead of crdgen's default
   * set, e.g. only `garbage-collector-controller` and `namespace-controller`).
   */
  workloads?: boolean | { nodes?: number; controllers?: string[] };
  /** Where to write the kubeconfig (default: in the temporary folder). */
  kubeconfigPath?: string;
  /** kube-apiserver's `--etcd-compaction-interval` in seconds (default 300, the apiserver's; 0 disables). */
  etcdCompactionIntervalSeconds?: number;
  /** More kube-apiserver flags (`--flag=value`), after crdgen's. */
  apiserverArgs?: string[];
  /**
   * kube-apiserver's `--feature-gates`, e.g. `{ WatchList: false }` (a server that refuses
   * streaming lists); the test server takes the same option.
   */
  featureGates?: Record<string, boolean>;
  /** More kube-controller-manager flags, after crdgen's (with `workloads`), e.g. `--kube-api-qps=1000`. */
  controllerManagerArgs?: string[];
  /** More kube-scheduler flags, after crdgen's (with `workloads`). */
  schedulerArgs?: string[];
  /** How long to wait for each component to be ready (default 120000 ms: a busy 2-core machine is slow). */
  readyTimeoutMs?: number;
  /** Called with progress lines, and with each component's log lines when `verbose`. */
  log?: (line: string) => void;
  /** Pass every component's output to `log` (prefixed with its name). */
  verbose?: boolean;
  /** Install admission webhook configurations, as startTestApiServer()'s option of the same name (after `crds` and `objects`). */
  webhooks?: WebhookInstallOptions;
}

/** Why a component of the control plane ended while it should have been running. */
export interface ComponentExit {
  component: string;
  /** Exit code or signal name. */
  code: number | string;
  /** The last lines of its output. */
  logTail: string;
}

/** A running control plane. */
export interface ControlPlane extends ApiServerHandle {
  backend: 'real';
  /** The kube-apiserver's version (`/version` gitVersion), e.g. `v1.37.1`. */
  version: string;
  /** The folder the binaries came from. */
  assets: string;
  /** The temporary folder with data, certificates and every component's log (`<name>.log`). */
  dir: string;
  /** The etcd client URL. */
  etcdEndpoint: string;
  /** The last lines of a component's output (`etcd`, `kube-apiserver`, `kube-controller-manager`, `kube-scheduler`, `kwok`). */
  logTail(component: string, lines?: number): string;
  /**
   * Resolves when a component ends on its own (it crashed, or was killed from outside): by
   * then the rest has been stopped too. Never resolves for a control plane stopped by stop().
   */
  failed: Promise<ComponentExit>;
}

const WORKLOAD_CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'pod-garbage-collector-controller',
  'serviceaccount-controller',
  'endpointslice-controller',
  // removes the not-ready taint once kwok reports the fake node Ready
  'node-lifecycle-controller',
];

const SERVICE_CIDR = '10.0.0.0/24';

/** `--feature-gates=A=true,B=false` (nothing for no gates); a gate name must be a Go identifier. */
function featureGatesFlag(gates: Record<string, boolean> | undefined): string[] {
  const entries = Object.entries(gates ?? {});
  if (entries.length === 0) return [];
  for (const [name, on] of entries) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || typeof on !== 'boolean')
      throw new Error(`featureGates: ${JSON.stringify(name)}: want a gate name (letters and digits) and true or false`);
  }
  return [`--feature-gates=${entries.map(([name, on]) => `${name}=${String(on)}`).join(',')}`];
}

/** The folder of binaries from `assets` or $KUBEBUILDER_ASSETS, checked; a clear error when something is missing. */
export function resolveAssets(assets: string | undefined, workloads: boolean): string {
  const dir = assets ?? process.env.KUBEBUILDER_ASSETS;
  const hint =
    "crdgen's scripts/ensure-control-plane.sh builds them (its last line is the folder), controller-runtime's setup-envtest downloads etcd and kube-apiserver";
  if (!dir) throw new Error(`no control-plane binaries: pass assets (--assets DIR) or set KUBEBUILDER_ASSETS; ${hint}`);
  const need = ['etcd', 'kube-apiserver', ...(workloads ? ['kube-controller-manager', 'kube-scheduler', 'kwok'] : [])];
  const missing = need.filter((b) => {
    try {
      accessSync(join(dir, b), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
  if (workloads && !existsSync(join(dir, 'kwok-stages.yaml'))) missing.push('kwok-stages.yaml');
  if (missing.length) throw new Error(`${resolve(dir)} lacks ${missing.join(', ')}; ${hint}`);
  return resolve(dir);
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

/** A child process with its output in a log file and the last part kept for messages. */
class Component {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  private tail = '';
  private readonly file: WriteStream;

  constructor(
    readonly name: string,
    binary: string,
    args: string[],
    dir: string,
    private readonly onLine?: (line: string) => void,
  ) {
    this.file = createWriteStream(join(dir, `${name}.log`));
    this.child = spawn(binary, args, {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '' },
    });
    const take = (d: Buffer): void => {
      const s = d.toString();
      this.file.write(s);
      this.tail = (this.tail + s).slice(-16_000);
      if (this.onLine) for (const line of s.split('\n')) if (line.trim()) this.onLine(`${name}: ${line}`);
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
    this.exited = new Promise((done) => {
      this.child.once('error', (e) => {
        this.tail += `\n${e.message}`;
        done('spawn-error');
      });
      this.child.once('exit', (code, sig) => done(code ?? sig ?? -1));
    });
    live.add(this);
    void this.exited.then(() => {
      live.delete(this);
      this.file.end();
    });
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  logTail(lines = 30): string {
    return this.tail.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves on exit. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.running()) {
      this.child.kill('SIGTERM');
      const t = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(t);
    } else await this.exited;
  }
}

// Children never outlive this process: killed on exit (also after an uncaught error).
const live = new Set<Component>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) c.child.kill('SIGKILL');
  });
}

/** Polls `probe` until it is truthy; fails after `timeoutMs`, or at once when `abort` settles first. */
async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  abort: Promise<unknown>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let aborted = false;
  void abort.then(() => (aborted = true));
  let last: unknown;
  for (;;) {
    if (aborted) throw new Error(`stopped while waiting for ${what}`);
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts etcd and kube-apiserver (and the workload components); resolves once all are ready and the CRDs are served. */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const workloads =
    options.workloads === undefined || options.workloads === false
      ? undefined
      : options.workloads === true
        ? {}
        : options.workloads;
  const assets = resolveAssets(options.assets, workloads !== undefined);
  const readyTimeout = options.readyTimeoutMs ?? 120_000;
  const log = options.log;
  const onLine = options.verbose ? log : undefined;
  installExitHook();

  const dir = mkdtempSync(join(tmpdir(), 'crdgen-control-plane-'));
  const components: Component[] = [];
  let stopping = false;
  let resolveFailed!: (e: ComponentExit) => void;
  const failed = new Promise<ComponentExit>((r) => (resolveFailed = r));
  let stopped: Promise<void> | undefined;
  const cleanups: (() => void)[] = [];

  const stopAll = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true;
      // dependents first, etcd last
      for (const c of [...components].reverse()) await c.stop();
      rmSync(dir, { recursive: true, force: true });
      for (const f of cleanups) f();
    })();
    return stopped;
  };
  const launch = (name: string, args: string[]): Component => {
    const c = new Component(name, join(assets, name), args, dir, onLine);
    components.push(c);
    void c.exited.then((code) => {
      if (stopping) return;
      const exit = { component: name, code, logTail: c.logTail() };
      log?.(`${name} exited (${code}); stopping the control plane`);
      void stopAll().then(() => resolveFailed(exit));
    });
    return c;
  };
  const dead = failed.then((e) => {
    throw new Error(`${e.component} exited (${e.code}) while starting:\n${e.logTail}`);
  });
  dead.catch(() => undefined);
  const waitFor = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
    Promise.race([until(what, readyTimeout, probe, failed), dead]);

  try {
    // Certificates: one CA signs the apiserver's serving certificate; a key pair signs
    // service-account tokens; one random token is the admin (system:masters).
    const certs = await generateCertificateSet(
      [
        '127.0.0.1',
        'localhost',
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
        'kubernetes.default.svc.cluster.local',
        '10.0.0.1',
      ],
      { commonName: 'kube-apiserver' },
    );
    const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = randomBytes(24).toString('hex');
    const file = (name: string, content: string): string => {
      const p = join(dir, name);
      writeFileSync(p, content, { mode: 0o600 });
      return p;
    };
    const caFile = file('ca.crt', certs.caCert);
    const certFile = file('apiserver.crt', certs.cert);
    const keyFile = file('apiserver.key', certs.key);
    const saKey = file('sa.key', sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    const saPub = file('sa.pub', sa.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const tokens = file('tokens.csv', `${token},crdgen-admin,crdgen-admin,system:masters\n`);

    // etcd
    const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
    const etcdEndpoint = `http://127.0.0.1:${etcdClient}`;
    const etcdPeerUrl = `http://127.0.0.1:${etcdPeer}`;
    launch('etcd', [
      '--name=crdgen',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdEndpoint}`,
      `--advertise-client-urls=${etcdEndpoint}`,
      `--listen-peer-urls=${etcdPeerUrl}`,
      `--initial-advertise-peer-urls=${etcdPeerUrl}`,
      `--initial-cluster=crdgen=${etcdPeerUrl}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    log?.(`etcd starting on ${etcdEndpoint}`);
    await waitFor('etcd to be healthy', async () => {
      const res = await fetch(`${etcdEndpoint}/health`, { signal: AbortSignal.timeout(2000) });
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    });

    // kube-apiserver
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    launch('kube-apiserver', [
      `--etcd-servers=${etcdEndpoint}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      // the endpoint reconciler refuses a loopback address; envtest turns it off too
      '--endpoint-reconciler-type=none',
      `--tls-cert-file=${certFile}`,
      `--tls-private-key-file=${keyFile}`,
      `--client-ca-file=${caFile}`,
      `--token-auth-file=${tokens}`,
      '--authorization-mode=RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--allow-privileged=true',
      // as envtest: pods need no ServiceAccount object
      '--disable-admission-plugins=ServiceAccount',
      `--etcd-compaction-interval=${options.etcdCompactionIntervalSeconds ?? 300}s`,
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      ...featureGatesFlag(options.featureGates),
      ...(options.apiserverArgs ?? []),
    ]);
    log?.(`kube-apiserver starting on ${url}`);
    const kubeconfig = buildKubeconfig(url, certs.caCert, 'crdgen-control-plane', token);
    const kubeconfigPath = options.kubeconfigPath ? resolve(options.kubeconfigPath) : join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfigPath, kubeconfig);
    // the components read their own copy: the user's path may be moved or edited
    const componentKubeconfig = join(dir, 'components.kubeconfig');
    writeKubeconfig(componentKubeconfig, kubeconfig);
    const clientConfig: RestConfig = {
      server: url,
      tls: { caData: certs.caCert },
      auth: { bearerToken: token },
      qps: 0,
      namespace: 'default',
      source: kubeconfigPath,
    };
    const client = new RestClient(clientConfig);
    await waitFor(
      'kube-apiserver to be ready (/readyz)',
      async () => (await client.requestText({ method: 'GET', path: '/readyz', timeoutMs: 5000 })) === 'ok',
    );
    const version =
      (await client.request<{ gitVersion?: string }>({ method: 'GET', path: '/version' })).gitVersion ?? 'unknown';

    if (workloads) {
      const kc = `--kubeconfig=${componentKubeconfig}`;
      const auth = [
        `--authentication-kubeconfig=${componentKubeconfig}`,
        `--authorization-kubeconfig=${componentKubeconfig}`,
      ];
      launch('kube-controller-manager', [
        kc,
        ...auth,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--leader-elect=false',
        `--controllers=${(workloads.controllers ?? WORKLOAD_CONTROLLERS).join(',')}`,
        `--service-account-private-key-file=${saKey}`,
        `--root-ca-file=${caFile}`,
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        ...(options.controllerManagerArgs ?? []),
      ]);
      launch('kube-scheduler', [
        kc,
        ...auth,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--leader-elect=false',
        ...(options.schedulerArgs ?? []),
      ]);
      // as kwokctl runs it: only nodes annotated kwok.x-k8s.io/node=fake, stages from kwok's own defaults
      launch('kwok', [
        kc,
        `--config=${join(assets, 'kwok-stages.yaml')}`,
        '--manage-all-nodes=false',
        '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
        '--node-ip=127.0.0.1',
        `--server-address=127.0.0.1:${await freePort()}`,
        `--cidr=10.244.0.0/16`,
      ]);
      const nodes = Math.max(1, workloads.nodes ?? 1);
      for (let i = 0; i < nodes; i++)
        await client.request({ method: 'POST', path: '/api/v1/nodes', body: fakeNode(`kwok-node-${i}`) });
      log?.(`waiting for ${nodes} kwok node(s) to be Ready and schedulable`);
      // without the node lifecycle controller the not-ready taint stays: Ready is all there is to wait for
      const untainted = (workloads.controllers ?? WORKLOAD_CONTROLLERS).includes('node-lifecycle-controller');
      await waitFor(untainted ? 'the kwok nodes to be Ready and untainted' : 'the kwok nodes to be Ready', async () => {
        const list = await client.request<{ items: Obj[] }>({ method: 'GET', path: '/api/v1/nodes' });
        const ready = list.items.filter((n) => {
          const status = n.status as { conditions?: { type: string; status: string }[] } | undefined;
          const spec = n.spec as { taints?: unknown[] } | undefined;
          return (
            status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
            (!untainted || !spec?.taints?.length)
          );
        });
        return ready.length >= nodes;
      });
      // pods of namespace `default` are created by the ReplicaSet controller, which needs the namespace's ServiceAccount only with the admission plugin on
    }

    const create = (objects: KubeObject[]): Promise<KubeObject[]> =>
      createAll(client, objects, (what, probe) => waitFor(what, probe));
    const hooks = options.webhooks ? await prepareWebhooks(options.webhooks) : undefined;
    if (hooks) cleanups.push(() => hooks.cleanup());
    const crds = await loadObjectFiles(options.crds ?? [], 'CRD');
    await create(hooks ? crds.map((c) => hooks.rewriteCrd(c)) : crds);
    await create(options.objects ?? []);
    if (hooks) await create(hooks.installed.configurations);
    log?.(`control plane ${version} ready at ${url}`);

    return {
      backend: 'real',
      url,
      port,
      version,
      assets,
      dir,
      etcdEndpoint,
      kubeconfig,
      kubeconfigPath,
      caCert: certs.caCert,
      ...(hooks ? { webhooks: hooks.installed } : {}),
      clientConfig,
      create,
      logTail: (name, lines) => components.find((c) => c.name === name)?.logTail(lines) ?? '',
      failed,
      stop: async () => {
        await stopAll();
        if (options.kubeconfigPath) rmSync(kubeconfigPath, { force: true });
        client.close();
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

function fakeNode(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
    },
    spec: {},
    status: {
      allocatable: { cpu: '32', memory: '256Gi', pods: '250' },
      capacity: { cpu: '32', memory: '256Gi', pods: '250' },
    },
  } as KubeObject;
}

/** An object with the parts read here. */
type Obj = KubeObject & { spec?: unknown; status?: unknown };

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/** Creates objects through the API, waiting for each CRD to be Established and served by discovery (as envtest does). */
async function createAll(
  client: RestClient,
  objects: KubeObject[],
  waitFor: <T>(what: string, probe: () => Promise<T | undefined>) => Promise<T>,
): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  const discovery = new Map<string, ApiResourceList>();
  for (const o of objects) {
    const apiVersion = o.apiVersion ?? '';
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let list = discovery.get(apiVersion);
    if (!list) {
      try {
        list = await client.request<ApiResourceList>({ method: 'GET', path: base });
      } catch (e) {
        throw new Error(
          `cannot create ${o.kind ?? '?'} ${o.metadata?.name ?? ''}: no resource serves ${apiVersion || '?'} (${(e as Error).message})`,
        );
      }
      discovery.set(apiVersion, list);
    }
    const res = list.resources.find((r) => r.kind === o.kind && !r.name.includes('/'));
    if (!res)
      throw new Error(
        `cannot create ${o.kind ?? '?'} ${o.metadata?.name ?? ''}: no resource serves ${apiVersion} ${o.kind ?? '?'}`,
      );
    const path = res.namespaced
      ? `${base}/namespaces/${encodeURIComponent(o.metadata?.namespace ?? 'default')}/${res.name}`
      : `${base}/${res.name}`;
    let created: KubeObject;
    try {
      created = await client.request<KubeObject>({
        method: 'POST',
        path,
        query: { fieldManager: 'crdgen-testenv' },
        body: o,
      });
    } catch (e) {
      if (e instanceof ApiError) throw new Error(`cannot create ${o.kind} ${o.metadata?.name ?? ''}: ${e.message}`);
      throw e;
    }
    if (o.kind === 'CustomResourceDefinition' && apiVersion === 'apiextensions.k8s.io/v1')
      created = await waitServed(client, created, waitFor);
    out.push(created);
  }
  return out;
}

async function waitServed(
  client: RestClient,
  crd: KubeObject,
  waitFor: <T>(what: string, probe: () => Promise<T | undefined>) => Promise<T>,
): Promise<KubeObject> {
  const name = crd.metadata?.name ?? '';
  const spec = (crd as Obj).spec as {
    group: string;
    names: { plural: string };
    versions: { name: string; served: boolean }[];
  };
  const established = await waitFor(`CRD ${name} to be Established`, async () => {
    const cur = await client.request<Obj>({
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
    });
    const conds = (cur.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
    return conds.some((c) => c.type === 'Established' && c.status === 'True') ? cur : undefined;
  });
  for (const v of spec.versions.filter((x) => x.served)) {
    await waitFor(`${spec.names.plural}.${spec.group}/${v.name} in discovery`, async () => {
      const list = await client.request<ApiResourceList>({ method: 'GET', path: `/apis/${spec.group}/${v.name}` });
      return list.resources.some((r) => r.name === spec.names.plural);
    });
    // Discovery serves it before its watch cache is ready (lists answer 429 "storage is
    // (re)initializing" meanwhile): wait for a list, so the first request of a test succeeds.
    await waitFor(`${spec.names.plural}.${spec.group}/${v.name} to answer a list`, async () => {
      await client.request({
        method: 'GET',
        path: `/apis/${spec.group}/${v.name}/${spec.names.plural}`,
        query: { limit: 1 },
        timeoutMs: 5000,
      });
      return true;
    });
  }
  return established;
}
