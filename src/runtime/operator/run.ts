// Running a generated operator (controller-runtime's cmd/main.go and manager.Start): flags →
// logger → config → the manager and its controllers → metrics and health endpoints → leader
// election (optional) → the manager, until SIGINT/SIGTERM. The first signal stops
// intake and drains in-flight work (exit 0); a second exits 1; losing the lease exits 1 at once,
// without draining (another replica leads by then).
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RestConfig } from '../client/config.js';
import { loadConfig } from '../client/load-config.js';
import { restBackend } from '../typed/backend.js';
import { FlagError, operatorUsage, parseOperatorFlags, type OperatorFlags } from './flags.js';
import { errorMessage, newLogger, type Logger } from '../log/logger.js';
import {
  noopControllerMetrics,
  newPrometheusMetrics,
  type ControllerMetrics,
  type PrometheusControllerMetrics,
} from '../metrics/controller.js';
import {
  bindFailure,
  parseBindAddress,
  startEndpointServer,
  type EndpointServerOptions,
} from '../http/endpoint-server.js';
import { metricsAuthFilter } from './metrics-auth.js';
import { setupSignalHandler } from './signals.js';
import { LeaderElector } from '../leaderelection/leader-election.js';
import { EventBroadcaster } from '../events/recorder.js';
import { newManager, type Manager } from '../manager/manager.js';
import { ShardLeaseLostError } from '../sharding/shard.js';
import type { WebhookServer } from '../webhook/server.js';
import type { CertRotator, WebhookCertificateTargets } from '../webhook/cert-rotation.js';

/** What the operator's main hands to {@link OperatorSpec.setupWithManager}. */
export interface OperatorContext {
  config: RestConfig;
  flags: OperatorFlags;
  logger: Logger;
  metrics: ControllerMetrics;
  /** Sends the controller's events (component = the operator's name). */
  events: EventBroadcaster;
}

/**
 * The webhooks an operator serves: called with the started server (`--webhook-bind-address`,
 * certificate from `--webhook-cert-dir`) to register its paths. Webhooks are served by every
 * replica, leader or not, from start to shutdown.
 */
export type WebhookSetup = (server: WebhookServer, ctx: OperatorContext) => void | Promise<void>;

/**
 * What a generated main.ts passes to {@link runOperator}: controllers built with
 * `newControllerManagedBy(manager)`. runOperator makes the manager from the flags — `--namespace`
 * limits its cache, `--resync` sets the informers' resync, `--workers` is every controller's
 * default `maxConcurrentReconciles`, the field manager and event source are `name` — and runs it
 * after winning the election with `--leader-elect`, with `/metrics`, `/healthz` and `/readyz`.
 */
export interface OperatorSpec {
  /** Manager name: logger name, field manager, event source, default Lease name prefix. */
  name: string;
  /** Adds the controllers to `manager` (and whatever else the operator needs before it starts). */
  setupWithManager(manager: Manager, ctx: OperatorContext): void | Promise<void>;
  /** Registers the operator's admission and conversion webhooks. */
  webhooks?: WebhookSetup;
  /**
   * What `--webhook-cert-mode=self` writes the CA into, and its default Secret and Service names
   * (config/webhook/manifests.yaml's and config/crd/'s). Without it the mode defaults to `dir`.
   */
  webhookCertificates?: WebhookCertificateTargets;
}

/**
 * The serving certificates of `--webhook-cert-mode=self`: a CertRotator on the Secret, started
 * (the Secret created when absent), writing the caBundles while it holds the writer's Lease.
 */
async function selfCertificates(spec: OperatorSpec, ctx: OperatorContext): Promise<CertRotator> {
  const { flags, config, logger } = ctx;
  const defaults = spec.webhookCertificates;
  const secret = flags.webhookCertSecret ?? defaults?.secret;
  const service = flags.webhookServiceName ?? defaults?.service;
  if (!secret || !service)
    throw new Error('--webhook-cert-mode=self needs --webhook-cert-secret and --webhook-service-name');
  // the pod's namespace: POD_NAMESPACE, else the service-account namespace file (in-cluster config)
  const namespace =
    flags.webhookNamespace ||
    process.env['POD_NAMESPACE'] ||
    (config.source === 'in-cluster' ? config.namespace : undefined) ||
    'default';
  const { CertRotator } = await import('../webhook/cert-rotation.js');
  const rotator = new CertRotator({
    backend: restBackend(config),
    namespace,
    targets: { ...defaults, secret, service },
    hosts: flags.webhookCertHosts,
    ...(flags.webhookCaValidityMs !== undefined ? { caValidityMs: flags.webhookCaValidityMs } : {}),
    ...(flags.webhookCertValidityMs !== undefined ? { servingValidityMs: flags.webhookCertValidityMs } : {}),
    ...(flags.webhookCertSyncPeriodMs !== undefined ? { syncPeriodMs: flags.webhookCertSyncPeriodMs } : {}),
    leaseDurationMs: flags.leaseDurationMs,
    renewDeadlineMs: flags.renewDeadlineMs,
    retryPeriodMs: flags.retryPeriodMs,
    logger,
  });
  await rotator.start();
  logger.info(
    { secret: `${namespace}/${secret}`, service },
    'webhook certificates kept in a Secret (--webhook-cert-mode=self)',
  );
  return rotator;
}

/** The manager runOperator builds for `spec`. */
async function operatorManager(spec: OperatorSpec, ctx: OperatorContext): Promise<Manager> {
  const manager = newManager({
    client: ctx.config,
    name: spec.name,
    ...(ctx.flags.namespace ? { namespace: ctx.flags.namespace } : {}),
    resyncMs: ctx.flags.resyncMs,
    maxConcurrentReconciles: ctx.flags.workers,
    logger: ctx.logger,
    metrics: ctx.metrics,
    events: ctx.events,
    ...(ctx.flags.sharded
      ? {
          sharding: {
            ...(ctx.flags.shardName !== undefined ? { shard: ctx.flags.shardName } : {}),
            leaseNamespace: ctx.flags.leaderElectionNamespace,
            leaseDurationMs: ctx.flags.leaseDurationMs,
            renewDeadlineMs: ctx.flags.renewDeadlineMs,
            retryPeriodMs: ctx.flags.retryPeriodMs,
            ...(ctx.metrics.sharding ? { metrics: ctx.metrics.sharding } : {}),
          },
        }
      : {}),
  });
  await spec.setupWithManager(manager, ctx);
  if (manager.getControllers().length === 0) throw new Error('setupWithManager added no controller to the manager');
  return manager;
}

/**
 * The TLS and filter of `--metrics-secure`: the certificate of `--metrics-cert-dir` (tls.crt,
 * tls.key) or a self-signed one made at start (as controller-runtime's metrics server does), and
 * TokenReview + SubjectAccessReview for every request.
 */
async function securedMetrics(
  name: string,
  flags: OperatorFlags,
  config: RestConfig,
  logger: Logger,
): Promise<EndpointServerOptions> {
  let tls: { cert: string; key: string };
  if (flags.metricsCertDir !== '') {
    const [cert, key] = await Promise.all(
      ['tls.crt', 'tls.key'].map((f) => readFile(join(flags.metricsCertDir, f), 'utf8')),
    );
    tls = { cert, key };
  } else {
    const { createCertificate } = await import('../http/certificate.js');
    tls = createCertificate({ commonName: name, hosts: [hostname(), 'localhost', '127.0.0.1'] });
  }
  return { tls, filter: metricsAuthFilter(config, { logger }) };
}

/** Exit codes of {@link runOperator}. */
export const OPERATOR_EXIT = { ok: 0, error: 1, usage: 2 } as const;

/**
 * Runs the operator described by `spec` with the command line `argv`; resolves with the
 * exit code. Prints usage for `--help` (0) and bad flags (2); start-up failures are
 * logged as one line and give 1, never a stack trace.
 */
export async function runOperator(
  spec: OperatorSpec,
  argv: readonly string[] = process.argv.slice(2),
): Promise<number> {
  let flags: OperatorFlags | 'help';
  try {
    flags = parseOperatorFlags(argv, spec.name);
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    process.stderr.write(`${spec.name}: ${e.message}\n\n${operatorUsage(spec.name)}`);
    return OPERATOR_EXIT.usage;
  }
  if (flags === 'help') {
    process.stdout.write(operatorUsage(spec.name));
    return OPERATOR_EXIT.ok;
  }
  // the logger, the config and the metrics load their modules and files concurrently (start-up time)
  const configLoad = loadConfig({
    ...(flags.kubeconfig !== undefined ? { path: flags.kubeconfig } : {}),
    ...(flags.context !== undefined ? { context: flags.context } : {}),
    overrides: { qps: flags.kubeApiQps, burst: flags.kubeApiBurst, userAgent: spec.name },
  });
  const metricsLoad: Promise<ControllerMetrics | PrometheusControllerMetrics> =
    flags.metricsBindAddress === '0' ? Promise.resolve(noopControllerMetrics) : newPrometheusMetrics();
  // awaited below; a failure is reported there (or dropped when the log level is bad)
  configLoad.catch(() => undefined);
  metricsLoad.catch(() => undefined);
  let logger: Logger;
  try {
    logger = await newLogger({ name: spec.name, level: flags.logLevel });
  } catch (e) {
    process.stderr.write(`${spec.name}: ${errorMessage(e)}\n`);
    return OPERATOR_EXIT.usage;
  }
  const servers: { close(): Promise<void> }[] = [];
  const signals = setupSignalHandler({
    onFirstSignal: (sig) => logger.info({ signal: sig }, 'shutting down: stopping intake, draining in-flight work'),
    onSecondSignal: (sig) => {
      logger.warn({ signal: sig }, 'second signal: exiting now');
      process.exit(OPERATOR_EXIT.error);
    },
  });
  try {
    const config = await configLoad;
    const metrics = await metricsLoad;
    const events = new EventBroadcaster(restBackend(config), { component: spec.name, host: hostname(), logger });
    const ctx: OperatorContext = { config, flags, logger, metrics, events };
    const manager = await operatorManager(spec, ctx);
    if (spec.webhooks) {
      const { startWebhookServer } = await import('../webhook/server.js');
      const mode = flags.webhookCertMode ?? (spec.webhookCertificates ? 'self' : 'dir');
      const certificates = mode === 'self' ? await selfCertificates(spec, ctx) : undefined;
      // stopped at exit: the writer gives its Lease up
      if (certificates) servers.push({ close: () => (certificates.stop(), certificates.stopped()) });
      const webhookServer = await startWebhookServer({
        bindAddress: flags.webhookBindAddress,
        ...(certificates ? { certificates } : { certDir: flags.webhookCertDir }),
        logger,
      }).catch((e: unknown) => Promise.reject(bindFailure('--webhook-bind-address', flags.webhookBindAddress, e)));
      servers.push(webhookServer);
      await spec.webhooks(webhookServer, ctx);
    }
    let standby = flags.leaderElect;
    const metricsBind = parseBindAddress(flags.metricsBindAddress);
    if (metricsBind && 'scrape' in metrics) {
      const m = metrics;
      const secure = flags.metricsSecure ? await securedMetrics(spec.name, flags, config, logger) : {};
      const s = await startEndpointServer(
        metricsBind,
        { '/metrics': async () => ({ status: 200, contentType: m.contentType, body: await m.scrape() }) },
        secure,
      ).catch((e: unknown) =>
        Promise.reject(bindFailure('--metrics-bind-address', flags.metricsBindAddress, e, 'metrics')),
      );
      servers.push(s);
      logger.info({ url: `${s.url}/metrics`, secure: flags.metricsSecure }, 'serving metrics');
    }
    const healthBind = parseBindAddress(flags.healthProbeBindAddress);
    if (healthBind) {
      const ok = (body: string) => ({ status: 200, contentType: 'text/plain', body });
      const s = await startEndpointServer(healthBind, {
        '/healthz': () => ok('ok'),
        // ready once the caches synced; a standby replica (not the leader) is ready too, so rollouts complete
        '/readyz': () =>
          standby || manager.hasSynced()
            ? ok('ok')
            : { status: 503, contentType: 'text/plain', body: 'informer caches not synced\n' },
      }).catch((e: unknown) =>
        Promise.reject(bindFailure('--health-probe-bind-address', flags.healthProbeBindAddress, e, 'health probes')),
      );
      servers.push(s);
      logger.info({ url: s.url }, 'serving health probes');
    }
    const run = async (signal: AbortSignal): Promise<void> => {
      standby = false;
      logger.info({ workers: flags.workers, namespace: flags.namespace || '(all)' }, 'starting controller');
      await manager.start(signal);
      logger.info({}, 'controller stopped');
    };
    if (flags.leaderElect) {
      if (flags.warmStandby) {
        // a warm standby: its caches (and queues) fill while another replica leads; it reconciles as soon as it wins
        manager.warmUp(signals.signal);
        logger.info({}, 'warm standby: informers started before leading');
      }
      const identity = `${hostname()}_${randomUUID()}`;
      const elector = new LeaderElector({
        backend: restBackend(config),
        namespace: flags.leaderElectionNamespace,
        name: flags.leaderElectionId,
        identity,
        leaseDurationMs: flags.leaseDurationMs,
        renewDeadlineMs: flags.renewDeadlineMs,
        retryPeriodMs: flags.retryPeriodMs,
        logger,
      });
      const outcome = await elector.run(signals.signal, run);
      if (outcome.kind === 'Lost') {
        // Exit at once, as sample-controller (klog.Fatalf in OnStoppedLeading) and controller-runtime
        // do: a drain would go on reconciling queued keys while the new leader already does (two
        // leaders at work on the same objects). The log is written synchronously, so this line is not lost.
        logger.error({ reason: outcome.reason }, 'leader election lost: exiting');
        process.exit(OPERATOR_EXIT.error);
      }
    } else {
      try {
        await run(signals.signal);
      } catch (e) {
        if (!(e instanceof ShardLeaseLostError)) throw e;
        // as a lost leader: the sharder takes the Lease and moves the objects; this replica is done
        logger.error({ reason: e.message }, 'shard lease lost: exiting');
        process.exit(OPERATOR_EXIT.error);
      }
    }
    await events.shutdown();
    return OPERATOR_EXIT.ok;
  } catch (e) {
    logger.error({ err: errorMessage(e) }, 'operator failed');
    return OPERATOR_EXIT.error;
  } finally {
    signals.dispose();
    await Promise.all(servers.map((s) => s.close()));
  }
}
