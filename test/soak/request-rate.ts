// Request accounting for the soak: the test server's `log` option gives one line per request
// (`GET /apis/... 500 3ms "databasemanager-controller"`); the operator's requests are counted in
// 100 ms buckets by the time they started, and each failure window is checked against the bound
// the operator's backoffs allow (requestBound below explains it).

/** A window during which every request to `prefix` was answered with an injected error. */
export interface FailureWindow {
  /** Epoch ms of the first failing request. */
  start: number;
  /** Epoch ms when the failures were turned off. */
  end: number;
  /** The failing path prefix ('/api' = every API request). */
  prefix: string;
  code: 500 | 429;
  /** Operator processes that were alive at some point of the window (each has its own client-side bucket). */
  processes: number;
}

/** The operator's settings the bound depends on. */
export interface BoundParams {
  /** DatabaseManagers alive (the workqueue holds each key at most once). */
  objects: number;
  /** The operator's client-side rate limit (--kube-api-qps, --kube-api-burst; defaults 20 and 30). */
  qps: number;
  burst: number;
  /** Leader-election retry period in seconds (--leader-elect-retry-period). */
  retryPeriodSeconds: number;
  /** Reconcile workers per process (--workers, default 1 in the generated main). */
  workers: number;
}

/** The bound of one window and what the operator sent. */
export interface WindowVerdict {
  window: FailureWindow;
  seconds: number;
  sent: number;
  bound: number;
  /** Which term bounded: the client-side bucket or the backoffs. */
  limitedBy: 'client-bucket' | 'backoff';
}

const BUCKET_MS = 100;
const OPERATOR_UA = /"databasemanager-controller[^"]*"$/;
const LINE = /^(\S+) (\S+) (\d{3}) (\d+)ms "/;

/**
 * The most requests the operator may send to a path prefix that fails every request for `T`
 * seconds (each term is an upper bound; the sum is loose on purpose, the point is that a
 * spinning operator — retrying without waiting — breaks it):
 *
 * - **Client-side bucket.** Every request of a process, retries of 429s included, first takes a
 *   token from the one bucket its RestClient shares between clientset, informers, events and
 *   leader election: at most `burst + qps·T` per process, and a restarted process starts with a
 *   full bucket, so `P·(burst + qps·T)` for the P processes alive in the window.
 * - **Backoffs**, which hold whatever the bucket would allow:
 *   - *workqueue*: a failed reconcile goes back through `addRateLimited`, which waits the max of
 *     the per-item exponential (5 ms·2^n) and the queue-wide bucket (10 qps, burst 100). The
 *     reconciles that start in the window are: keys already queued or waiting at its start (the
 *     queue de-duplicates: at most N = objects), keys added by informer events (only successful
 *     writes make events; while everything fails the only ones are the simulator's in-process
 *     status writes, at most one per Deployment: N), re-adds through the bucket
 *     (`100 + 10·T`), and the `workers` already running. Each failed reconcile sends one request
 *     (its first failing call ends it) and records at most one Event.
 *   - *events*: sent one at a time; each is a patch and possibly a create (2 requests); at most
 *     1000 wait in the broadcaster (its maxPending) plus one per reconcile.
 *   - *reflectors*: three informers per process (DatabaseManagers, Deployments, Services); after a failed list or watch a reflector waits
 *     at least 800 ms (800 ms → 30 s, jittered) or the Retry-After (≥ 1 s): `1 + T/0.8` each.
 *   - *leader election*: every retry period a get and an update: `2·(1 + T/retryPeriod)` per process.
 *
 * bound = min(client bucket, backoffs).
 */
export function requestBound(
  seconds: number,
  processes: number,
  p: BoundParams,
): { bound: number; limitedBy: WindowVerdict['limitedBy'] } {
  const T = seconds;
  const client = processes * (p.burst + p.qps * T);
  const reconciles = 2 * p.objects + (100 + 10 * T) + processes * p.workers;
  const workqueue = reconciles; // one failing request per reconcile
  const events = 2 * (processes * 1000 + reconciles);
  const reflectors = processes * 3 * (1 + T / 0.8);
  const leaderElection = processes * 2 * (1 + T / p.retryPeriodSeconds);
  const backoff = workqueue + events + reflectors + leaderElection;
  return client <= backoff
    ? { bound: Math.ceil(client), limitedBy: 'client-bucket' }
    : { bound: Math.ceil(backoff), limitedBy: 'backoff' };
}

/** Counts the operator's requests per 100 ms bucket and path class. */
export class RequestLog {
  /** bucket index → requests, per path: all, coolops.cn, apps. */
  private readonly buckets = new Map<number, [number, number, number]>();
  /** Requests seen from the operator and from anyone. */
  operatorRequests = 0;
  allRequests = 0;
  /** Highest number of operator requests started in one second (over 1 s buckets). */
  private readonly perSecond = new Map<number, number>();

  /** The `log` option of startTestApiServer. */
  readonly log = (line: string): void => {
    const m = LINE.exec(line);
    if (!m) return;
    this.allRequests++;
    if (!OPERATOR_UA.test(line)) return;
    this.operatorRequests++;
    const startedAt = Date.now() - Number(m[4]);
    const path = m[2];
    const b = Math.floor(startedAt / BUCKET_MS);
    let row = this.buckets.get(b);
    if (!row) this.buckets.set(b, (row = [0, 0, 0]));
    row[0]++;
    if (path.startsWith('/apis/coolops.cn/')) row[1]++;
    else if (path.startsWith('/apis/apps/')) row[2]++;
    const s = Math.floor(startedAt / 1000);
    this.perSecond.set(s, (this.perSecond.get(s) ?? 0) + 1);
  };

  /** Operator requests to `prefix` that started in [from, to). */
  count(prefix: string, from: number, to: number): number {
    const col = prefix.startsWith('/apis/coolops.cn') ? 1 : prefix.startsWith('/apis/apps') ? 2 : 0;
    let n = 0;
    for (let b = Math.floor(from / BUCKET_MS); b < Math.ceil(to / BUCKET_MS); b++) n += this.buckets.get(b)?.[col] ?? 0;
    return n;
  }

  /** The busiest second of operator requests. */
  maxPerSecond(): number {
    let max = 0;
    for (const v of this.perSecond.values()) max = Math.max(max, v);
    return max;
  }

  /** Checks every window against {@link requestBound}. */
  verdicts(windows: FailureWindow[], p: BoundParams): WindowVerdict[] {
    return windows.map((w) => {
      // whole buckets around the window: requests started just before it count too (conservative)
      const seconds = (w.end - w.start) / 1000 + BUCKET_MS / 1000;
      const { bound, limitedBy } = requestBound(seconds, w.processes, p);
      return { window: w, seconds, sent: this.count(w.prefix, w.start, w.end), bound, limitedBy };
    });
  }
}
