// kubeconfig loading with client-go's clientcmd rules: KUBECONFIG (a path list, merged,
// first definition of a name wins, missing files skipped), ~/.kube/config, or one
// explicit file; relative paths resolved against the file that names them; a context
// (current-context or an override) resolved into a RestConfig.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { AuthConfig, ExecConfig, RestConfig, TlsConfig } from './config.js';

/** kubeconfig `clusters[].cluster`, as found in the file (kebab-case keys). */
export interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: Array<{ name: string; extension: unknown }>;
}

/** kubeconfig `users[].user`. */
export interface KubeconfigUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  'auth-provider'?: { name: string; config?: Record<string, string> };
  exec?: {
    command: string;
    args?: string[];
    env?: Array<{ name: string; value: string }> | null;
    apiVersion: string;
    installHint?: string;
    provideClusterInfo?: boolean;
    interactiveMode?: string;
  };
}

/** kubeconfig `contexts[].context`. */
export interface KubeconfigContext {
  cluster: string;
  user?: string;
  namespace?: string;
}

/** A merged kubeconfig: named entries, each remembering the file it came from. */
export interface Kubeconfig {
  clusters: Map<string, { cluster: KubeconfigCluster; file: string }>;
  users: Map<string, { user: KubeconfigUser; file: string }>;
  contexts: Map<string, { context: KubeconfigContext; file: string }>;
  currentContext: string | undefined;
  /** The files merged, in precedence order. */
  files: string[];
}

/** Options of loadKubeconfig. */
export interface LoadKubeconfigOptions {
  /** One explicit file (kubectl's --kubeconfig): only it is read, and it must exist. */
  path?: string;
  /** Context to use instead of current-context. */
  context?: string;
  /** Namespace to use instead of the context's. */
  namespace?: string;
  /** Environment (KUBECONFIG, HOME); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** An error in a kubeconfig or in resolving a context from it. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

/** The files the loading rules read: explicit path, else KUBECONFIG's list, else ~/.kube/config. */
export function kubeconfigPaths(options: LoadKubeconfigOptions = {}): { paths: string[]; explicit: boolean } {
  if (options.path) return { paths: [resolve(options.path)], explicit: true };
  const env = options.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list) {
    const seen = new Set<string>();
    const paths = list
      .split(delimiter)
      .filter((p) => p !== '')
      .map((p) => resolve(p))
      .filter((p) => !seen.has(p) && seen.add(p));
    return { paths, explicit: false };
  }
  const home = env.HOME || env.USERPROFILE || homedir();
  return { paths: [join(home, '.kube', 'config')], explicit: false };
}

/** Reads and merges the kubeconfig files of the loading rules (without resolving a context). */
export async function readKubeconfig(options: LoadKubeconfigOptions = {}): Promise<Kubeconfig> {
  const { paths, explicit } = kubeconfigPaths(options);
  const merged: Kubeconfig = {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: undefined,
    files: [],
  };
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !explicit) continue; // client-go skips missing files of the list
      throw new KubeconfigError(
        `cannot read kubeconfig ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
      );
    }
    mergeInto(merged, await parseKubeconfig(text, path), path);
  }
  return merged;
}

/** Parses one kubeconfig file's text; relative paths are resolved against `path`'s folder. */
export async function parseKubeconfig(text: string, path: string): Promise<Kubeconfig> {
  const { parse } = await import('yaml'); // loaded only when a kubeconfig is read
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: true, uniqueKeys: false });
  } catch (e) {
    throw new KubeconfigError(`kubeconfig ${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const out: Kubeconfig = {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: undefined,
    files: [path],
  };
  if (doc === null || doc === undefined) return out; // an empty file is an empty config
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new KubeconfigError(`kubeconfig ${path}: the document must be a mapping`);
  const d = doc as Record<string, unknown>;
  const dir = dirname(path);
  for (const [name, body] of namedEntries(d, 'clusters', 'cluster', path)) {
    out.clusters.set(name, { cluster: resolveClusterPaths(body, dir), file: path });
  }
  for (const [name, body] of namedEntries(d, 'users', 'user', path)) {
    out.users.set(name, { user: resolveUserPaths(body, dir), file: path });
  }
  for (const [name, body] of namedEntries(d, 'contexts', 'context', path)) {
    out.contexts.set(name, { context: body as unknown as KubeconfigContext, file: path });
  }
  const cc = d['current-context'];
  if (typeof cc === 'string' && cc !== '') out.currentContext = cc;
  return out;
}

function namedEntries(
  d: Record<string, unknown>,
  key: string,
  inner: string,
  path: string,
): Array<[string, Record<string, unknown>]> {
  const list = d[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigError(`kubeconfig ${path}: "${key}" must be a list`);
  const out: Array<[string, Record<string, unknown>]> = [];
  list.forEach((e: unknown, i) => {
    const entry = e as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.name !== 'string' || entry.name === '') {
      throw new KubeconfigError(`kubeconfig ${path}: ${key}[${i}] needs a name`);
    }
    const body = entry[inner] ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new KubeconfigError(`kubeconfig ${path}: ${key}[${i}] (${entry.name}): "${inner}" must be a mapping`);
    }
    out.push([entry.name, body as Record<string, unknown>]);
  });
  return out;
}

function abs(p: string | undefined, dir: string): string | undefined {
  return p === undefined || p === '' || isAbsolute(p) ? p : resolve(dir, p);
}

function resolveClusterPaths(c: KubeconfigCluster, dir: string): KubeconfigCluster {
  const ca = abs(c['certificate-authority'], dir);
  return { ...c, ...(ca ? { 'certificate-authority': ca } : {}) };
}

function resolveUserPaths(u: KubeconfigUser, dir: string): KubeconfigUser {
  const out: KubeconfigUser = { ...u };
  for (const k of ['client-certificate', 'client-key', 'tokenFile'] as const) {
    const p = abs(u[k], dir);
    if (p) out[k] = p;
  }
  // An exec command is resolved only when it names a path, not a PATH lookup (client-go).
  if (u.exec && typeof u.exec.command === 'string' && (u.exec.command.includes('/') || u.exec.command.includes(sep))) {
    out.exec = { ...u.exec, command: abs(u.exec.command, dir) ?? u.exec.command };
  }
  return out;
}

/** client-go's merge: the first file defining a name or current-context wins. */
function mergeInto(into: Kubeconfig, from: Kubeconfig, path: string): void {
  for (const [k, v] of from.clusters) if (!into.clusters.has(k)) into.clusters.set(k, v);
  for (const [k, v] of from.users) if (!into.users.has(k)) into.users.set(k, v);
  for (const [k, v] of from.contexts) if (!into.contexts.has(k)) into.contexts.set(k, v);
  into.currentContext ??= from.currentContext;
  into.files.push(path);
}

function b64(what: string, data: string | undefined): Buffer | undefined {
  if (data === undefined || data === '') return undefined;
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new KubeconfigError(`${what} is not valid base64`);
  return Buffer.from(clean, 'base64');
}

/** Resolves a context of a merged kubeconfig into a RestConfig. */
export function restConfigFromKubeconfig(
  kc: Kubeconfig,
  options: Pick<LoadKubeconfigOptions, 'context' | 'namespace'> = {},
): RestConfig {
  const files = kc.files.join(', ') || '(no kubeconfig file)';
  const contextName = options.context || kc.currentContext;
  if (!contextName) {
    throw new KubeconfigError(
      `no current-context set in ${files}; pass a context or run \`kubectl config use-context <name>\``,
    );
  }
  const ctx = kc.contexts.get(contextName);
  if (!ctx) throw new KubeconfigError(`context "${contextName}" does not exist in ${files}`);
  if (!ctx.context.cluster) throw new KubeconfigError(`context "${contextName}" names no cluster`);
  const cl = kc.clusters.get(ctx.context.cluster);
  if (!cl)
    throw new KubeconfigError(
      `cluster "${ctx.context.cluster}" of context "${contextName}" does not exist in ${files}`,
    );
  const c = cl.cluster;
  if (!c.server) throw new KubeconfigError(`cluster "${ctx.context.cluster}" has no server`);
  let u: KubeconfigUser = {};
  if (ctx.context.user) {
    const found = kc.users.get(ctx.context.user);
    if (!found)
      throw new KubeconfigError(`user "${ctx.context.user}" of context "${contextName}" does not exist in ${files}`);
    u = found.user;
  }
  const where = `cluster "${ctx.context.cluster}"`;
  const caData = b64(`${where} certificate-authority-data`, c['certificate-authority-data']);
  if (c['insecure-skip-tls-verify'] && (caData || c['certificate-authority'])) {
    throw new KubeconfigError(`${where}: specifying a root certificate with insecure-skip-tls-verify is not allowed`);
  }
  const tls: TlsConfig = {};
  if (caData) tls.caData = caData;
  else if (c['certificate-authority']) tls.caFile = c['certificate-authority'];
  if (c['insecure-skip-tls-verify']) tls.insecureSkipTlsVerify = true;
  if (c['tls-server-name']) tls.serverName = c['tls-server-name'];
  const uw = `user "${ctx.context.user}"`;
  const certData = b64(`${uw} client-certificate-data`, u['client-certificate-data']);
  const keyData = b64(`${uw} client-key-data`, u['client-key-data']);
  if (certData) tls.certData = certData;
  else if (u['client-certificate']) tls.certFile = u['client-certificate'];
  if (keyData) tls.keyData = keyData;
  else if (u['client-key']) tls.keyFile = u['client-key'];

  const auth: AuthConfig = {};
  if (u.token) auth.bearerToken = u.token;
  if (u.tokenFile) auth.bearerTokenFile = u.tokenFile;
  if (u.username !== undefined) auth.username = u.username;
  if (u.password !== undefined) auth.password = u.password;
  if (u['auth-provider'])
    auth.authProvider = {
      name: u['auth-provider'].name,
      ...(u['auth-provider'].config ? { config: u['auth-provider'].config } : {}),
    };
  if (u.exec) auth.exec = execConfig(u.exec, uw, c);
  const schemes = [
    auth.bearerToken || auth.bearerTokenFile ? 'token' : '',
    auth.username !== undefined ? 'basic' : '',
    auth.exec ? 'exec' : '',
    auth.authProvider ? 'auth-provider' : '',
  ].filter(Boolean);
  if (schemes.includes('token') && schemes.includes('basic')) {
    throw new KubeconfigError(`${uw}: more than one authentication method found (token and basic auth); choose one`);
  }
  if (auth.exec && auth.authProvider) throw new KubeconfigError(`${uw}: exec and auth-provider cannot both be set`);

  const headers: Record<string, string | string[]> = {};
  if (u.as) headers['Impersonate-User'] = u.as;
  if (u['as-uid']) headers['Impersonate-Uid'] = u['as-uid'];
  if (u['as-groups']?.length) headers['Impersonate-Group'] = u['as-groups'].map(String);
  for (const [k, vs] of Object.entries(u['as-user-extra'] ?? {}))
    headers[`Impersonate-Extra-${encodeURIComponent(k)}`] = vs.map(String);

  const cfg: RestConfig = {
    server: c.server,
    namespace: options.namespace || ctx.context.namespace || 'default',
    source: `${ctx.file} (context ${contextName})`,
  };
  if (Object.keys(tls).length) cfg.tls = tls;
  if (Object.keys(auth).length) cfg.auth = auth;
  if (c['proxy-url']) cfg.proxyUrl = c['proxy-url'];
  // client-go's cluster.disable-compression: no gzip asked for (lists and streaming lists come uncompressed)
  if (c['disable-compression'] === true) cfg.disableCompression = true;
  if (Object.keys(headers).length) cfg.headers = headers;
  return cfg;
}

function execConfig(x: NonNullable<KubeconfigUser['exec']>, where: string, c: KubeconfigCluster): ExecConfig {
  if (!x.command) throw new KubeconfigError(`${where}: exec.command is required`);
  if (!x.apiVersion) throw new KubeconfigError(`${where}: exec.apiVersion is required`);
  const ext = c.extensions?.find((e) => e.name === 'client.authentication.k8s.io/exec');
  return {
    command: x.command,
    apiVersion: x.apiVersion,
    ...(x.args ? { args: x.args.map(String) } : {}),
    ...(x.env ? { env: x.env.map((e) => ({ name: String(e.name), value: String(e.value ?? '') })) } : {}),
    ...(x.installHint ? { installHint: x.installHint } : {}),
    ...(x.provideClusterInfo ? { provideClusterInfo: true } : {}),
    ...(x.interactiveMode ? { interactiveMode: x.interactiveMode } : {}),
    ...(ext ? { clusterConfig: ext.extension } : {}),
  };
}

/**
 * Loads a RestConfig from kubeconfig files by client-go's rules: `options.path` alone if
 * given; else the files of KUBECONFIG merged; else ~/.kube/config.
 */
export async function loadKubeconfig(options: LoadKubeconfigOptions = {}): Promise<RestConfig> {
  const kc = await readKubeconfig(options);
  if (kc.files.length === 0) {
    const { paths } = kubeconfigPaths(options);
    throw new KubeconfigError(`no kubeconfig found (looked for ${paths.join(', ')})`);
  }
  return restConfigFromKubeconfig(kc, options);
}

/** True when a kubeconfig file of the default rules (KUBECONFIG or ~/.kube/config) exists. */
export function kubeconfigExists(env: NodeJS.ProcessEnv = process.env): boolean {
  return kubeconfigPaths({ env }).paths.some((p) => existsSync(p));
}
