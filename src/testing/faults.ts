// Fault injection for tests: fail the next N requests (or a fraction) with 500 or 429 +
// Retry-After, add latency, drop open watches, expire resourceVersions.
import type { ApiError } from './status.js';
import { internalError, tooManyRequests } from './status.js';

/** How injected failures answer. */
export interface FailureSpec {
  /** 500 (default) or 429. */
  code?: 500 | 429;
  /** For 429: the Retry-After seconds (default 1). */
  retryAfterSeconds?: number;
  /** Only requests whose path starts with this fail (default: all API requests). */
  pathPrefix?: string;
}

/** The controls tests use; `TestApiServer.faults`. */
export interface FaultInjector {
  /** The next `n` matching requests fail. */
  failNext(n: number, spec?: FailureSpec): void;
  /** Each matching request fails with probability `fraction` (0 turns it off). */
  failFraction(fraction: number, spec?: FailureSpec): void;
  /** Every request waits `ms` before it is handled (0 turns it off). */
  setLatency(ms: number): void;
  /** Closes every open watch stream (clients see the connection end). */
  dropWatches(): void;
  /** Forgets the change history: a watch or exact list from any earlier resourceVersion gets 410 Gone. */
  expireResourceVersions(): void;
  /** Clears failures and latency. */
  reset(): void;
}

/** Fault state consulted by the HTTP layer. */
export class Faults {
  private remaining = 0;
  private nextSpec: FailureSpec = {};
  private fraction = 0;
  private fractionSpec: FailureSpec = {};
  /** Added latency in ms. */
  latencyMs = 0;

  /** See {@link FaultInjector.failNext}. */
  failNext(n: number, spec: FailureSpec = {}): void {
    this.remaining = Math.max(0, Math.floor(n));
    this.nextSpec = spec;
  }

  /** See {@link FaultInjector.failFraction}. */
  failFraction(fraction: number, spec: FailureSpec = {}): void {
    this.fraction = Math.min(1, Math.max(0, fraction));
    this.fractionSpec = spec;
  }

  /** See {@link FaultInjector.reset}. */
  reset(): void {
    this.remaining = 0;
    this.fraction = 0;
    this.latencyMs = 0;
  }

  /** The error to answer a request with, if it is to fail. */
  check(path: string): ApiError | undefined {
    if (!path.startsWith('/api')) return undefined;
    if (this.remaining > 0 && matches(path, this.nextSpec)) {
      this.remaining--;
      return toError(this.nextSpec);
    }
    if (this.fraction > 0 && matches(path, this.fractionSpec) && Math.random() < this.fraction)
      return toError(this.fractionSpec);
    return undefined;
  }
}

function matches(path: string, spec: FailureSpec): boolean {
  return !spec.pathPrefix || path.startsWith(spec.pathPrefix);
}

function toError(spec: FailureSpec): ApiError {
  if (spec.code === 429) return tooManyRequests(spec.retryAfterSeconds ?? 1);
  return internalError('injected fault');
}
