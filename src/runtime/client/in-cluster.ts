// In-cluster configuration (client-go's rest.InClusterConfig): the API server from
// KUBERNETES_SERVICE_HOST/PORT, the mounted service-account token (a token file, re-read
// as the kubelet rotates it), CA and namespace. CRDGEN_SERVICE_ACCOUNT_DIR moves the mount
// point (client-go and kube-rs have no such switch): a test runs an operator process exactly as
// its pod, with the files of a TokenRequest token in a folder of its own.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RestConfig } from './config.js';

/** Where the kubelet mounts the service account. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The environment variable that moves the mount point away from SERVICE_ACCOUNT_DIR. */
export const SERVICE_ACCOUNT_DIR_ENV = 'CRDGEN_SERVICE_ACCOUNT_DIR';

/** Options of inClusterConfig, for tests and unusual mounts. */
export interface InClusterOptions {
  /** Environment; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Folder holding `token`, `ca.crt` and `namespace`; default $CRDGEN_SERVICE_ACCOUNT_DIR, else SERVICE_ACCOUNT_DIR. */
  serviceAccountDir?: string;
}

/** True when the in-cluster environment variables are set. */
export function isInCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);
}

/**
 * The RestConfig of a pod: server from the service env vars, the token as a token file
 * (so rotation is picked up), the mounted CA, and the pod's namespace (namespace file,
 * else POD_NAMESPACE, else `default`). Fails clearly outside a cluster.
 */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<RestConfig> {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? (env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR);
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error(
      'unable to load in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
  }
  const tokenFile = join(dir, 'token');
  try {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    if (!token) throw new Error('the file is empty');
  } catch (e) {
    throw new Error(
      `unable to load in-cluster configuration: cannot read the service account token ${tokenFile}: ${(e as Error).message}`,
    );
  }
  const caFile = join(dir, 'ca.crt');
  let ca: Buffer;
  try {
    ca = await readFile(caFile);
  } catch (e) {
    throw new Error(
      `unable to load in-cluster configuration: cannot read the service account CA ${caFile}: ${(e as Error).message}`,
    );
  }
  let namespace = env.POD_NAMESPACE || 'default';
  try {
    const ns = (await readFile(join(dir, 'namespace'), 'utf8')).trim();
    if (ns) namespace = ns;
  } catch {
    /* keep POD_NAMESPACE or default */
  }
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    tls: { caData: ca },
    auth: { bearerTokenFile: tokenFile },
    namespace,
    source: 'in-cluster',
  };
}
