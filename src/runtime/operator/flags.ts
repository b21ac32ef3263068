// The command line of a generated operator (controller-runtime's and sample-controller's
// flags), parsed with node:util's parseArgs: no CLI library in the operator's image.
import { parseArgs } from 'node:util';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../leaderelection/leader-election.js';

/** The operator's settings. Durations in ms. */
export interface OperatorFlags {
  /** Kubeconfig file; default: KUBECONFIG, in-cluster, ~/.kube/config. */
  kubeconfig?: string;
  /** Kubeconfig context; default: current-context. */
  context?: string;
  /** Watch only this namespace; '' (default) watches all. */
  namespace: string;
  /** Parallel reconciles (default 2). */
  workers: number;
  /** Informer resync period (default 10 h, controller-runtime's SyncPeriod; 0 disables). */
  resyncMs: number;
  /** Run leader election on a Lease before reconciling. */
  leaderElect: boolean;
  /** Lease name (default `<controller>-leader`). */
  leaderElectionId: string;
  /** Lease namespace (default: the pod's namespace, else `--namespace`, else `default`). */
  leaderElectionNamespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /**
   * With `leaderElect`: a replica that is not leading starts its informers and fills its caches
   * (and its controllers' queues), so that when it wins it reconciles at once (controller-runtime's
   * EnableWarmup). Default true; `--warm-standby=false` waits for the Lease before listing anything.
   */
  warmStandby: boolean;
  /**
   * Run as one shard of the controller's ring (a shard Lease per replica, the sharder elected on
   * its own Lease; the Leases' namespace and timings are leader election's flags). Not with `leaderElect`.
   */
  sharded: boolean;
  /** This replica's shard name (default: the host name and a random suffix). */
  shardName?: string;
  /** `[host]:port` for `/metrics`; `0` disables (default `:8080`, `:8443` with `metricsSecure`). */
  metricsBindAddress: string;
  /**
   * Serve `/metrics` over HTTPS, each request authenticated (TokenReview) and authorized
   * (SubjectAccessReview, `get` on the non-resource URL `/metrics`). Off by default, as in
   * controller-runtime; the generated manifests turn it on.
   */
  metricsSecure: boolean;
  /** Folder with the metrics serving certificate `tls.crt` and key `tls.key`; '' (default): a self-signed one. */
  metricsCertDir: string;
  /** `[host]:port` for `/healthz` and `/readyz`; `0` disables (default `:8081`). */
  healthProbeBindAddress: string;
  /** Log level: debug, info, warn, error (default info). */
  logLevel: string;
  /** Client-side rate limit to the API server: queries per second and burst (controller-runtime's 20 and 30). */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** `[host]:port` of the webhook server, for an operator that serves webhooks (default `:9443`). */
  webhookBindAddress: string;
  /** Folder with the webhook serving certificate `tls.crt` and key `tls.key` (controller-runtime's default `/tmp/k8s-webhook-server/serving-certs`). */
  webhookCertDir: string;
  /**
   * Where the webhook's certificate comes from: `dir` (the files of `webhookCertDir`, e.g. cert-manager's
   * Secret mounted there) or `self` (the operator keeps a CA and certificate in a Secret and writes the CA
   * into its webhook configurations and CRD). Undefined: `dir` when `--webhook-cert-dir` is given or
   * the operator names no certificate targets, else `self`.
   */
  webhookCertMode?: 'dir' | 'self';
  /** self: the Secret's name (default: the operator's, from its webhooks.ts). */
  webhookCertSecret?: string;
  /** self: the webhook Service's name (default: the operator's); the certificate is for `<service>.<namespace>.svc`. */
  webhookServiceName?: string;
  /** self: the namespace of the Service and the Secret (default: POD_NAMESPACE, the pod's service-account namespace, `default`). */
  webhookNamespace?: string;
  /** self: more DNS names and IP addresses in the serving certificate. */
  webhookCertHosts: string[];
  /** self: the CA's lifetime (default 365 days) and the serving certificate's (default 90 days); renewed with a third left. */
  webhookCaValidityMs?: number;
  webhookCertValidityMs?: number;
  /** self: how often replicas read the Secret and the writer checks what is due (default 10 s). */
  webhookCertSyncPeriodMs?: number;
}

/** Thrown for bad flags; the message is meant for the user (print it with the usage, exit 2). */
export class FlagError extends Error {
  override name = 'FlagError';
}

/** Parses `500ms`, `2s`, `10m`, `1h`, `1h30m` or a bare number of seconds into ms. */
export function parseDuration(text: string, flag: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]];
    end = re.lastIndex;
  }
  if (end === 0 || end !== text.length)
    throw new FlagError(`--${flag}: ${JSON.stringify(text)} is not a duration (e.g. 500ms, 15s, 10m, 1h)`);
  return total;
}

/** The usage text of a generated operator named `name`. */
export function operatorUsage(name: string): string {
  return `Usage: ${name} [flags]

  --kubeconfig <path>                  kubeconfig file (default: KUBECONFIG, in-cluster, ~/.kube/config)
  --context <name>                     kubeconfig context (default: current-context)
  --namespace <ns>                     watch only this namespace (default: all namespaces)
  --workers <n>                        parallel reconciles (default 2)
  --resync <duration>                  informer resync period, 0 disables (default 10h)
  --leader-elect                       elect a leader on a coordination.k8s.io/v1 Lease before reconciling
  --leader-election-id <name>          the Lease's name (default ${name}-leader)
  --leader-election-namespace <ns>     the Lease's namespace (default: the pod's namespace)
  --leader-elect-lease-duration <d>    default 15s
  --leader-elect-renew-deadline <d>    default 10s
  --leader-elect-retry-period <d>      default 2s
  --warm-standby=<true|false>          with --leader-elect, fill the caches before leading (default true)
  --sharded                            run as one shard of the controller's ring: every replica reconciles its share
                                       (shard Leases in --leader-election-namespace, timed by the --leader-elect-* flags)
  --shard-name <name>                  this replica's shard (default: host name and a random suffix)
  --metrics-bind-address <addr>        Prometheus /metrics, [host]:port, 0 disables (default :8080, :8443 secure)
  --metrics-secure                     /metrics over HTTPS, callers authenticated by TokenReview and
                                       authorized by SubjectAccessReview (get on /metrics)
  --metrics-cert-dir <dir>             folder of the metrics tls.crt and tls.key (default: self-signed)
  --health-probe-bind-address <addr>   /healthz and /readyz, [host]:port, 0 disables (default :8081)
  --log-level <level>                  debug, info, warn, error (default info)
  --kube-api-qps <n>                   client-side requests per second to the API server (default 20)
  --kube-api-burst <n>                 client-side burst (default 30)
  --webhook-bind-address <addr>        webhook server (HTTPS), [host]:port (default :9443), for an operator with webhooks
  --webhook-cert-dir <dir>             folder of the webhook's tls.crt and tls.key, reloaded when they change
                                       (default /tmp/k8s-webhook-server/serving-certs)
  --webhook-cert-mode <dir|self>       dir: the files of --webhook-cert-dir (e.g. from cert-manager); self: the operator
                                       keeps a CA and certificate in a Secret, writes the CA into its webhook
                                       configurations and CRD, and rotates them (default: dir when --webhook-cert-dir
                                       is given, else self)
  --webhook-cert-secret <name>         self: the Secret (default: the operator's, <kind>-webhook-server-cert)
  --webhook-service-name <name>        self: the webhook Service; the certificate is for <service>.<namespace>.svc
  --webhook-namespace <ns>             self: the Service's and Secret's namespace (default: the pod's)
  --webhook-cert-hosts <a,b>           self: more DNS names and IP addresses in the serving certificate
  --webhook-ca-validity <d>            self: the CA's lifetime (default 8760h), renewed with a third left
  --webhook-cert-validity <d>          self: the serving certificate's lifetime (default 2160h), renewed with a third left
  --webhook-cert-sync-period <d>       self: how often the Secret is read and rotation checked (default 10s)
  -h, --help                           show this help
`;
}

/** `true` or `false` (the default when absent). */
function booleanFlag(text: string | undefined, flag: string, dflt: boolean): boolean {
  if (text === undefined) return dflt;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new FlagError(`--${flag}: ${JSON.stringify(text)} is not true or false`);
}

function positiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    throw new FlagError(`--${flag}: ${JSON.stringify(text)} is not a positive integer`);
  return n;
}

/** The flags of --webhook-cert-mode=self. */
function webhookCertFlags(
  values: Record<string, string | boolean | undefined>,
): Pick<
  OperatorFlags,
  | 'webhookCertMode'
  | 'webhookCertSecret'
  | 'webhookServiceName'
  | 'webhookNamespace'
  | 'webhookCertHosts'
  | 'webhookCaValidityMs'
  | 'webhookCertValidityMs'
  | 'webhookCertSyncPeriodMs'
> {
  const text = (k: string): string | undefined => (typeof values[k] === 'string' ? values[k] : undefined);
  const given = text('webhook-cert-mode');
  if (given !== undefined && given !== 'dir' && given !== 'self')
    throw new FlagError(`--webhook-cert-mode: ${JSON.stringify(given)} is not dir or self`);
  // a folder given means its files, unless the mode says otherwise
  const mode = given ?? (text('webhook-cert-dir') !== undefined ? 'dir' : undefined);
  if (mode === 'self' && text('webhook-cert-dir') !== undefined)
    throw new FlagError('--webhook-cert-dir is for --webhook-cert-mode=dir; self keeps its certificate in a Secret');
  const name = (k: string): string | undefined => {
    const v = text(k);
    if (v !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(v))
      throw new FlagError(
        `--${k}: ${JSON.stringify(v)} is not an object name (lowercase letters, digits, '-' and '.')`,
      );
    return v;
  };
  const positive = (k: string): number | undefined => {
    const v = text(k);
    if (v === undefined) return undefined;
    const ms = parseDuration(v, k);
    if (!(ms >= 1)) throw new FlagError(`--${k}: ${JSON.stringify(v)} must be at least 1ms`);
    return ms;
  };
  const secret = name('webhook-cert-secret');
  const service = name('webhook-service-name');
  const ns = name('webhook-namespace');
  const ca = positive('webhook-ca-validity');
  const cert = positive('webhook-cert-validity');
  const sync = positive('webhook-cert-sync-period');
  const hosts = (text('webhook-cert-hosts') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const h of hosts)
    if (!/^[A-Za-z0-9*]([-A-Za-z0-9.*]*[A-Za-z0-9])?$|^[0-9a-fA-F:]+$/.test(h))
      throw new FlagError(`--webhook-cert-hosts: ${JSON.stringify(h)} is not a DNS name or an IP address`);
  return {
    ...(mode !== undefined ? { webhookCertMode: mode } : {}),
    ...(secret !== undefined ? { webhookCertSecret: secret } : {}),
    ...(service !== undefined ? { webhookServiceName: service } : {}),
    ...(ns !== undefined ? { webhookNamespace: ns } : {}),
    webhookCertHosts: hosts,
    ...(ca !== undefined ? { webhookCaValidityMs: ca } : {}),
    ...(cert !== undefined ? { webhookCertValidityMs: cert } : {}),
    ...(sync !== undefined ? { webhookCertSyncPeriodMs: sync } : {}),
  };
}

/**
 * Parses `argv` (without node and the script). Returns `'help'` for `-h`/`--help`.
 * Throws {@link FlagError} for unknown flags or bad values. `env` supplies POD_NAMESPACE.
 */
export function parseOperatorFlags(
  argv: readonly string[],
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): OperatorFlags | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string' },
        workers: { type: 'string' },
        resync: { type: 'string' },
        'leader-elect': { type: 'boolean' },
        'leader-election-id': { type: 'string' },
        'leader-election-namespace': { type: 'string' },
        'leader-elect-lease-duration': { type: 'string' },
        'leader-elect-renew-deadline': { type: 'string' },
        'leader-elect-retry-period': { type: 'string' },
        'warm-standby': { type: 'string' },
        sharded: { type: 'boolean' },
        'shard-name': { type: 'string' },
        'metrics-bind-address': { type: 'string' },
        'metrics-secure': { type: 'boolean' },
        'metrics-cert-dir': { type: 'string' },
        'health-probe-bind-address': { type: 'string' },
        'log-level': { type: 'string' },
        'kube-api-qps': { type: 'string' },
        'kube-api-burst': { type: 'string' },
        'webhook-bind-address': { type: 'string' },
        'webhook-cert-dir': { type: 'string' },
        'webhook-cert-mode': { type: 'string' },
        'webhook-cert-secret': { type: 'string' },
        'webhook-service-name': { type: 'string' },
        'webhook-namespace': { type: 'string' },
        'webhook-cert-hosts': { type: 'string' },
        'webhook-ca-validity': { type: 'string' },
        'webhook-cert-validity': { type: 'string' },
        'webhook-cert-sync-period': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
  if (values.help) return 'help';
  const namespace = values.namespace ?? '';
  const flags: OperatorFlags = {
    namespace,
    workers: values.workers === undefined ? 2 : positiveInt(values.workers, 'workers'),
    resyncMs: values.resync === undefined ? 36_000_000 : parseDuration(values.resync, 'resync'),
    leaderElect: values['leader-elect'] ?? false,
    leaderElectionId: values['leader-election-id'] ?? `${name}-leader`,
    leaderElectionNamespace: values['leader-election-namespace'] ?? env['POD_NAMESPACE'] ?? (namespace || 'default'),
    leaseDurationMs:
      values['leader-elect-lease-duration'] === undefined
        ? DEFAULT_LEASE_DURATION_MS
        : parseDuration(values['leader-elect-lease-duration'], 'leader-elect-lease-duration'),
    renewDeadlineMs:
      values['leader-elect-renew-deadline'] === undefined
        ? DEFAULT_RENEW_DEADLINE_MS
        : parseDuration(values['leader-elect-renew-deadline'], 'leader-elect-renew-deadline'),
    retryPeriodMs:
      values['leader-elect-retry-period'] === undefined
        ? DEFAULT_RETRY_PERIOD_MS
        : parseDuration(values['leader-elect-retry-period'], 'leader-elect-retry-period'),
    warmStandby: booleanFlag(values['warm-standby'], 'warm-standby', true),
    sharded: values.sharded ?? false,
    ...(values['shard-name'] !== undefined ? { shardName: values['shard-name'] } : {}),
    metricsBindAddress: values['metrics-bind-address'] ?? (values['metrics-secure'] ? ':8443' : ':8080'),
    metricsSecure: values['metrics-secure'] ?? false,
    metricsCertDir: values['metrics-cert-dir'] ?? '',
    healthProbeBindAddress: values['health-probe-bind-address'] ?? ':8081',
    logLevel: values['log-level'] ?? 'info',
    kubeApiQps: values['kube-api-qps'] === undefined ? 20 : positiveInt(values['kube-api-qps'], 'kube-api-qps'),
    kubeApiBurst: values['kube-api-burst'] === undefined ? 30 : positiveInt(values['kube-api-burst'], 'kube-api-burst'),
    webhookBindAddress: values['webhook-bind-address'] ?? ':9443',
    webhookCertDir: values['webhook-cert-dir'] ?? '/tmp/k8s-webhook-server/serving-certs',
    ...webhookCertFlags(values),
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
  };
  if (flags.sharded && flags.leaderElect)
    throw new FlagError(
      '--sharded and --leader-elect exclude each other: every shard reconciles its share, no leader is elected',
    );
  if (flags.shardName !== undefined && !flags.sharded) throw new FlagError('--shard-name needs --sharded');
  if (flags.shardName !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(flags.shardName))
    throw new FlagError(
      `--shard-name: ${JSON.stringify(flags.shardName)} is not a shard name (lowercase letters, digits and '-', at most 63)`,
    );
  return flags;
}
