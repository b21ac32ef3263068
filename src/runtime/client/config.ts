// RestConfig (client-go's rest.Config): everything needed to reach and authenticate
// to an API server. Built by loadKubeConfig / inClusterConfig, or by hand.

/** client.authentication.k8s.io exec credential plugin settings (kubeconfig `user.exec`). */
export interface ExecConfig {
  /** Command to run (looked up on PATH when not absolute). */
  command: string;
  args?: string[];
  /** Extra environment variables for the plugin. */
  env?: Array<{ name: string; value: string }>;
  /** ExecCredential apiVersion, e.g. `client.authentication.k8s.io/v1`. */
  apiVersion: string;
  /** Shown when the command cannot be found. */
  installHint?: string;
  /** Pass cluster info to the plugin in KUBERNETES_EXEC_INFO. */
  provideClusterInfo?: boolean;
  /** `Never`, `IfAvailable` or `Always`; we never attach a TTY, so this is informational. */
  interactiveMode?: string;
  /** The cluster's `extensions["client.authentication.k8s.io/exec"]`, passed as spec.cluster.config. */
  clusterConfig?: unknown;
}

/** Legacy kubeconfig `user.auth-provider` (e.g. oidc); served through @kubernetes/client-node. */
export interface AuthProviderConfig {
  name: string;
  config?: Record<string, string>;
}

/** TLS settings of the connection. Data fields win over file fields. */
export interface TlsConfig {
  /** PEM CA bundle trusted for the server (in addition to nothing: it replaces the system roots). */
  caData?: string | Buffer;
  caFile?: string;
  /** PEM client certificate and key. */
  certData?: string | Buffer;
  certFile?: string;
  keyData?: string | Buffer;
  keyFile?: string;
  /** Do not verify the server's certificate. Dangerous; for tests. */
  insecureSkipTlsVerify?: boolean;
  /** Name to verify the server certificate against (SNI), instead of the URL's host. */
  serverName?: string;
}

/** Credentials. At most one scheme is used: exec > auth-provider > token(file) > basic. */
export interface AuthConfig {
  bearerToken?: string;
  /** File holding the token; re-read periodically so rotated tokens are picked up. */
  bearerTokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  authProvider?: AuthProviderConfig;
}

/**
 * Hooks a controller layer can feed into prom-client (client-go's rest client metrics).
 * `path` is the concrete request path (object names included): fine for logs, too
 * high-cardinality for a metric label; label by `method`, `host` and `code` as client-go does.
 */
export interface ClientMetrics {
  /** Called after each request attempt with its status code (or `'error'`) and duration. */
  requestDone?(info: { method: string; host: string; path: string; code: number | 'error'; seconds: number }): void;
  /** Called with the seconds a request waited on the client-side rate limiter (when it waited). */
  rateLimiterWait?(info: { method: string; host: string; path: string; seconds: number }): void;
  /** Called when a request is retried: 429/5xx with Retry-After, 401 after a credential refresh, or 0 for a reset connection. */
  requestRetry?(info: { method: string; host: string; path: string; code: number }): void;
}

/** A client-side rate limiter (client-go's flowcontrol.RateLimiter): waits for a permit. */
export interface ClientRateLimiter {
  /** Resolves when the caller may send a request; rejects when `signal` aborts. */
  wait(signal?: AbortSignal): Promise<void>;
}

/** Everything needed to reach and authenticate to an API server. */
export interface RestConfig {
  /** Base URL, e.g. `https://10.0.0.1:6443` (a path prefix is kept). */
  server: string;
  tls?: TlsConfig;
  auth?: AuthConfig;
  /** `http://host:port` proxy, reached with CONNECT. Other schemes are refused. */
  proxyUrl?: string;
  /**
   * Without proxyUrl, use HTTPS_PROXY/HTTP_PROXY/NO_PROXY from the environment (client-go's
   * default; localhost and loopback are never proxied). Default true.
   */
  proxyFromEnvironment?: boolean;
  /** Default namespace (kubeconfig context namespace, or the in-cluster namespace file). */
  namespace?: string;
  /** Sustained requests per second of the client-side limiter. Default 5; 0 or less disables it. */
  qps?: number;
  /** Burst of the client-side limiter. Default 10. */
  burst?: number;
  /** Replaces the token bucket built from qps/burst. */
  rateLimiter?: ClientRateLimiter;
  /**
   * User-Agent header. Default `<application>/<crdgen version> (<platform>/<arch>) node/<version>`
   * (see `defaultUserAgent`); the API server names the field manager of writes after its first part.
   */
  userAgent?: string;
  /** Timeout of each non-watch request in milliseconds. Default: none (0). */
  timeoutMs?: number;
  /** How many times a GET answered 429 with Retry-After is retried. Default 10 (client-go's). */
  maxRetries?: number;
  /** Client metrics hooks. */
  metrics?: ClientMetrics;
  /**
   * Called with each `Warning` header the server sends (deprecated APIs, unknown fields
   * with fieldValidation=Warn), as client-go's WarningHandler. Default: ignored.
   */
  onWarning?: (message: string, info: { method: string; path: string }) => void;
  /**
   * client-go's DisableCompression. Default false: GETs ask for gzip, which kube-apiserver sends
   * for responses over 128 KB (a twelfth of a DatabaseManager list's bytes on the wire, unpacked as
   * they arrive). Watches follow `watchCompression`.
   */
  disableCompression?: boolean;
  /**
   * Whether watches, and the streaming lists that start them, ask for gzip too. Default false
   * (client-go asks): kube-apiserver compresses only a watch with `sendInitialEvents=true`
   * (WatchListCompression), and writes a gzip member per flush for that watch's whole life, so
   * once the initial events are through every event is a member of its own, whose unpacking costs
   * several times its JSON.parse — measured on a 10k-object operator backlog: ~11 % of its CPU
   * (docs/bench-runs/notes-issue-36.md). true trades that CPU, on both ends, for a streaming
   * list's bytes on a slow link. No effect with `disableCompression`.
   */
  watchCompression?: boolean;
  /** Extra headers on every request (an array repeats the header, e.g. Impersonate-Group). */
  headers?: Record<string, string | string[]>;
  /** Source of the config, for messages (a kubeconfig path, `in-cluster`). */
  source?: string;
}

/** client-go's default client-side QPS. */
export const DEFAULT_QPS = 5;
/** client-go's default client-side burst. */
export const DEFAULT_BURST = 10;
/** client-go's default number of retries of a request answered with Retry-After. */
export const DEFAULT_MAX_RETRIES = 10;
