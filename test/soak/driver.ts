// The chaos soak: the generated DatabaseManager operator, two replicas with leader
// election, against crdgen's test API server on etcd with simulated workloads, while a driver
// creates, scales, retypes and deletes DatabaseManagers and faults hit everything. Then, with
// faults stopped, the end state must converge within a bound, no object may have been reconciled
// twice at once, and the operator's request rate against failing paths must stay within the
// backoffs' bound. One seeded PRNG makes every choice (see prng.ts).
import { pathToFileURL } from 'node:url';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import { startEtcd, type EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { etcdBinary } from '../support/assets.js';
import { loadKubeconfig, resourceClient, DeploymentResource, type Deployment } from '../../src/runtime/index.js';
import { DM_CRD } from '../e2e/support.js';
import { buildOperator } from './build.js';
import { Chaos, FAULT_KINDS } from './chaos.js';
import { endStateViolations, type Images } from './checks.js';
import type { SoakOptions } from './options.js';
import { createPrng } from './prng.js';
import { dualLeadership, LEASE, OPERATOR_CLIENT, Replicas } from './replicas.js';
import { RequestLog, type FailureWindow } from './request-rate.js';
import { DM_RESOURCE, SOAK_NAMESPACES, Workload, type DM } from './workload.js';

/** What a soak run found. */
export interface SoakResult {
  /** The one-line summary. */
  summary: string;
  /** Everything that went wrong (empty: the soak passed). */
  violations: string[];
  /** Seconds from the end of faults to a clean end state (undefined: never converged). */
  convergedSeconds?: number;
  faults: Record<string, number>;
  /** Overlap count summed over every scraped replica; undefined when the counter is not exposed. */
  overlaps?: number;
  /** Failure windows checked for the request-rate bound, and the highest sent/bound ratio. */
  rateWindows: number;
  worstRateRatio: number;
  /** Reconciles the operator logged, and its requests the server saw. */
  reconciles: number;
  operatorRequests: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs one soak; never throws for a violation (they are in the result), only for a setup failure. */
export async function runSoak(opts: SoakOptions, progress: (line: string) => void = () => {}): Promise<SoakResult> {
  const prng = createPrng(opts.seed);
  const requests = new RequestLog();
  let etcd: EtcdProcess | undefined;
  let env: TestApiServer | undefined;
  let replicas: Replicas | undefined;
  const gen = buildOperator();
  try {
    etcd = await startEtcd({ binary: etcdBinary() });
    env = await startTestApiServer({
      crds: [DM_CRD],
      objects: SOAK_NAMESPACES.filter((n) => n !== 'default').map((name) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      })),
      simulateWorkloads: 100,
      etcd: { endpoints: [etcd.endpoint] },
      log: requests.log,
    });
    const base = await loadKubeconfig({ path: env.kubeconfigPath });
    // the driver: unthrottled, no retries (a failure is counted and the next step goes on)
    const config = { ...base, qps: 0, maxRetries: 0, timeoutMs: 15_000, userAgent: 'crdgen-soak-driver' };
    const dms = resourceClient<DM>(config, DM_RESOURCE);
    const deployments = resourceClient<Deployment>(config, DeploymentResource);
    const images = ((await import(pathToFileURL(gen.reconcile).href)) as { DATABASES: Images }).DATABASES;

    replicas = new Replicas(gen.main, env.kubeconfigPath, progress);
    replicas.start();
    if (!(await replicas.waitReady(60_000)))
      throw new Error(`the operator did not start: ${replicas.all.map((i) => i.tail.join('\n')).join('\n')}`);
    progress('operator ready; load and faults start');

    const workload = new Workload(dms, opts.objects, prng);
    const chaos = new Chaos(env, replicas, workload, deployments, prng, progress);
    const end = Date.now() + opts.minutes * 60_000;
    let nextScrape = Date.now() + 5000;
    let nextProgress = Date.now() + 30_000;
    while (Date.now() < end) {
      await chaos.step(opts.faultEverySeconds);
      await workload.step();
      if (Date.now() >= nextScrape) {
        await replicas.scrapeAll();
        nextScrape = Date.now() + 5000;
      }
      if (Date.now() >= nextProgress) {
        progress(
          `live=${workload.liveKeys().length} ops=${JSON.stringify(workload.counts)} faults=${JSON.stringify(chaos.counts)}`,
        );
        nextProgress = Date.now() + 30_000;
      }
      if (opts.stepMs > 0) await sleep(opts.stepMs);
    }
    chaos.stop();
    const faultsStopped = Date.now();
    progress('faults stopped; waiting for convergence');

    // convergence: both replicas back, then the end state clean, within the bound
    const violations: string[] = [];
    let convergedSeconds: number | undefined;
    let last: string[] = ['not checked'];
    const deadline = faultsStopped + opts.convergeTimeoutMs;
    while (Date.now() < deadline) {
      await env.settle();
      try {
        last = await endStateViolations(dms, deployments, images);
      } catch (e) {
        last = [`listing failed: ${(e as Error).message}`];
      }
      if (last.length === 0 && replicas.running().length === 2) {
        convergedSeconds = (Date.now() - faultsStopped) / 1000;
        break;
      }
      await sleep(2000);
    }
    if (convergedSeconds === undefined) {
      violations.push(
        `not converged within ${opts.convergeTimeoutMs / 1000} s after faults stopped (${last.length} problems; first: ${last.slice(0, 5).join('; ')})`,
      );
      if (replicas.running().length !== 2)
        violations.push(`only ${replicas.running().length} replicas running at the end`);
      for (const i of replicas.running()) {
        progress(
          `replica ${i.id}: leader ${i.leaderFrom ? new Date(i.leaderFrom).toISOString() : '-'} workers ${i.workFrom ? new Date(i.workFrom).toISOString() : '-'}; last lines:\n  ${i.tail.slice(-8).join('\n  ')}`,
        );
      }
    }

    // no object reconciled twice at once: the counter of every process (scraped periodically,
    // before each kill, and now), and no two processes reconciling as leaders at once
    await replicas.scrapeAll();
    const scraped = replicas.all.filter((i) => i.overlaps !== undefined);
    const missing = replicas.all.some((i) => i.counterMissing);
    const overlaps = scraped.length > 0 ? scraped.reduce((s, i) => s + i.overlaps!, 0) : undefined;
    if (overlaps !== undefined && overlaps > 0) {
      violations.push(
        `reconcile overlaps: ${scraped
          .filter((i) => i.overlaps! > 0)
          .map((i) => `replica ${i.id}: ${i.overlaps}`)
          .join(', ')}`,
      );
    }
    if (replicas.clashes.length > 0)
      violations.push(
        `reconciles of one key overlapped in time (from the log lines that end them): ${replicas.clashes.join('; ')}`,
      );
    for (const [a, b] of dualLeadership(replicas.all)) {
      violations.push(
        `replicas ${a.id} and ${b.id} reconciled as leaders at the same time (${new Date(a.workFrom!).toISOString()}–${a.leaderTo ? new Date(a.leaderTo).toISOString() : 'end'} and ${new Date(b.workFrom!).toISOString()}–${b.leaderTo ? new Date(b.leaderTo).toISOString() : 'end'})`,
      );
    }

    // the request rate against failing paths: every window within the backoffs' bound
    const windows: FailureWindow[] = chaos.windows.map((w) => ({
      ...w,
      processes: replicas!.all.filter((i) => i.startedAt <= w.end && (i.exitedAt ?? Infinity) >= w.start).length,
    }));
    const verdicts = requests.verdicts(windows, {
      objects: opts.objects,
      ...OPERATOR_CLIENT,
      retryPeriodSeconds: LEASE.retryPeriodSeconds,
    });
    let worst = 0;
    for (const v of verdicts) {
      worst = Math.max(worst, v.sent / v.bound);
      if (v.sent > v.bound)
        violations.push(
          `request rate: ${v.sent} operator requests to ${v.window.prefix} in a ${v.seconds.toFixed(1)} s window of ${v.window.code}s (bound ${v.bound}, ${v.limitedBy})`,
        );
    }

    const faults = { ...chaos.counts } as Record<string, number>;
    const faultText = FAULT_KINDS.map((k) => `${k}:${faults[k]}`).join(',');
    const c = workload.counts;
    const summary =
      `soak seed=${opts.seed} objects=${opts.objects} minutes=${opts.minutes} ` +
      `ops=create:${c.create},scale:${c.scale},retype:${c.retype},delete:${c.delete},failed:${c.failed} ` +
      `faults=${faultText} (not applied ${chaos.notApplied}) replica-restarts=killed:${replicas.kills},unplanned:${replicas.unplannedExits} ` +
      `converged=${convergedSeconds === undefined ? 'NO' : `${convergedSeconds.toFixed(1)}s`} ` +
      `overlaps=${overlaps === undefined ? 'counter-not-exposed' : overlaps}${missing && overlaps !== undefined ? '(some scrapes lacked it)' : ''} scrapes=${replicas.scrapes}/${replicas.scrapeFailures}failed reconciles=${replicas.reconciles} span-clashes=${replicas.clashes.length} ` +
      `rate-windows=${verdicts.length} worst=${(worst * 100).toFixed(0)}%-of-bound operator-requests=${requests.operatorRequests} peak=${requests.maxPerSecond()}/s ` +
      `violations=${violations.length}`;
    return {
      summary,
      violations,
      ...(convergedSeconds !== undefined ? { convergedSeconds } : {}),
      faults,
      ...(overlaps !== undefined ? { overlaps } : {}),
      rateWindows: verdicts.length,
      worstRateRatio: worst,
      reconciles: replicas.reconciles,
      operatorRequests: requests.operatorRequests,
    };
  } finally {
    await replicas?.stop();
    await env?.stop();
    await etcd?.stop();
    gen.cleanup();
  }
}
