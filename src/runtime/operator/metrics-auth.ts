// The secured metrics endpoint's filter (controller-runtime's
// filters.WithAuthenticationAndAuthorization): the caller's bearer token is authenticated with a
// TokenReview and the user it names is authorized with a SubjectAccessReview for the request's
// verb (the lower-cased method) on the non-resource URL (the path), both asked of the API server
// the operator talks to. Decisions are cached as controller-runtime caches them (authentication 1
// minute, allowed 5 minutes, denied 30 seconds), by a hash of the token, never the token itself.
// No token or an unknown one: 401; a user without the permission: 403; the API server failing: 500.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RestConfig } from '../client/config.js';
import { RestClient } from '../client/rest-client.js';
import { errorMessage, type Logger } from '../log/logger.js';
import type { RequestFilter, RouteResponse } from '../http/endpoint-server.js';

/** Who a token belongs to, as a TokenReview's status.user says. */
export interface AuthenticatedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Cache lifetimes (ms), controller-runtime's by default; `now` for tests. */
export interface MetricsAuthOptions {
  authenticationTtlMs?: number;
  allowTtlMs?: number;
  denyTtlMs?: number;
  /** At most this many decisions of each kind are kept (oldest dropped first; default 4096). */
  maxEntries?: number;
  logger?: Logger;
  now?: () => number;
}

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

/** A bounded map of decisions with per-entry expiry; a pending lookup is shared by concurrent requests. */
class DecisionCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  get(key: string, ttl: (v: T) => number, lookup: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > this.now()) return hit.value;
    const value = lookup();
    const entry: Entry<T> = { value, expires: Infinity };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    value.then(
      (v) => void (entry.expires = this.now() + ttl(v)),
      () => this.entries.get(key) === entry && this.entries.delete(key), // errors are not cached
    );
    return value;
  }
}

const text = (status: number, body: string): RouteResponse => ({
  status,
  contentType: 'text/plain',
  body: `${body}\n`,
});

/** The filter of a secured metrics endpoint, asking the API server of `config`. */
export function metricsAuthFilter(config: RestConfig, options: MetricsAuthOptions = {}): RequestFilter {
  const client = RestClient.for(config);
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 4096;
  const authnTtl = options.authenticationTtlMs ?? 60_000;
  const allowTtl = options.allowTtlMs ?? 300_000;
  const denyTtl = options.denyTtlMs ?? 30_000;
  const users = new DecisionCache<AuthenticatedUser | undefined>(max, now);
  const decisions = new DecisionCache<boolean>(max, now);

  const authenticate = (token: string): Promise<AuthenticatedUser | undefined> =>
    users.get(
      createHash('sha256').update(token).digest('hex'),
      () => authnTtl,
      async () => {
        const review = await client.request<{ status?: { authenticated?: boolean; user?: AuthenticatedUser } }>({
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/tokenreviews',
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        });
        const user = review?.status?.user;
        return review?.status?.authenticated === true && user?.username ? user : undefined;
      },
    );

  const authorize = (user: AuthenticatedUser, verb: string, path: string): Promise<boolean> =>
    decisions.get(
      JSON.stringify([user.username, user.uid ?? '', user.groups ?? [], user.extra ?? {}, verb, path]),
      (allowed) => (allowed ? allowTtl : denyTtl),
      async () => {
        const review = await client.request<{ status?: { allowed?: boolean } }>({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: user.username,
              ...(user.uid !== undefined ? { uid: user.uid } : {}),
              ...(user.groups !== undefined ? { groups: user.groups } : {}),
              ...(user.extra !== undefined ? { extra: user.extra } : {}),
              nonResourceAttributes: { path, verb },
            },
          },
        });
        return review?.status?.allowed === true;
      },
    );

  return async (req: IncomingMessage) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return text(401, 'Unauthorized');
    let user: AuthenticatedUser | undefined;
    try {
      user = await authenticate(token);
    } catch (e) {
      options.logger?.error({ err: errorMessage(e) }, 'metrics: authentication failed');
      return text(500, 'Authentication failed');
    }
    if (!user) return text(401, 'Unauthorized');
    const verb = (req.method ?? 'GET').toLowerCase();
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (await authorize(user, verb, path)) return undefined;
    } catch (e) {
      const message = `Authorization for user ${user.username} failed`;
      options.logger?.error({ err: errorMessage(e) }, `metrics: ${message}`);
      return text(500, message);
    }
    options.logger?.debug({ user: user.username, verb, path }, 'metrics: authorization denied');
    return text(403, `Authorization denied for user ${user.username}`);
  };
}
