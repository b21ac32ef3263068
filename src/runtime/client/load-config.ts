// loadConfig: the one call an operator makes to find its API server, in
// controller-runtime's order (GetConfig): explicit kubeconfig, KUBECONFIG, in-cluster,
// ~/.kube/config.
import type { RestConfig } from './config.js';
import { kubeconfigExists, loadKubeconfig, type LoadKubeconfigOptions } from './kubeconfig.js';
import { inClusterConfig, isInCluster, type InClusterOptions } from './in-cluster.js';

/** Options of loadConfig. */
export interface LoadConfigOptions extends LoadKubeconfigOptions {
  /** Service-account folder for the in-cluster case (tests). */
  serviceAccountDir?: string;
  /** Settings applied on top of whatever was loaded (qps, burst, userAgent, timeoutMs, metrics…). */
  overrides?: Partial<RestConfig>;
}

/**
 * Finds the API server: `options.path` (kubectl's --kubeconfig) if given; else the
 * KUBECONFIG files; else the in-cluster service account when running in a pod; else
 * ~/.kube/config. A context override applies to kubeconfig sources only.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<RestConfig> {
  const env = options.env ?? process.env;
  let cfg: RestConfig;
  if (options.path || env.KUBECONFIG) {
    cfg = await loadKubeconfig({ ...options, env });
  } else if (isInCluster(env) && !options.context) {
    const o: InClusterOptions = {
      env,
      ...(options.serviceAccountDir ? { serviceAccountDir: options.serviceAccountDir } : {}),
    };
    cfg = await inClusterConfig(o);
    if (options.namespace) cfg.namespace = options.namespace;
  } else if (kubeconfigExists(env) || options.context) {
    cfg = await loadKubeconfig({ ...options, env });
  } else {
    throw new Error(
      'no Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, or run inside a cluster',
    );
  }
  return { ...cfg, ...options.overrides };
}
