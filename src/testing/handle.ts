// What startTestApiServer() and startControlPlane() both return: a suite written against
// this handle runs on the in-process server and on the real control plane alike.
import type { RestConfig } from '../runtime/client/config.js';
import type { KubeObject } from '../runtime/meta/types.js';
import type { KubeconfigDoc } from './kubeconfig.js';
import type { InstalledWebhooks } from './webhook-install.js';

/** A running API server: the in-process one or the real kube-apiserver. */
export interface ApiServerHandle {
  /** `testenv` (crdgen's in-process server) or `real` (kube-apiserver). */
  backend: 'testenv' | 'real';
  /** `https://127.0.0.1:<port>` (or `http://` for the in-process server without `https`). */
  url: string;
  port: number;
  /** The kubeconfig, as an object. */
  kubeconfig: KubeconfigDoc;
  /** The kubeconfig file (KUBECONFIG). */
  kubeconfigPath: string;
  /** The CA certificate (PEM) clients trust, when serving HTTPS. */
  caCert?: string;
  /** The same connection as a crdgen/runtime RestConfig (no client-side rate limit). */
  clientConfig: RestConfig;
  /** With the `webhooks` option: the host the installed configurations call, the certificate folder and the CA. */
  webhooks?: InstalledWebhooks;
  /** Creates objects through the server (CRDs are served when this resolves); returns them as stored. */
  create(objects: KubeObject[]): Promise<KubeObject[]>;
  /** Stops the server and everything it started, removes temporary files. Idempotent. */
  stop(): Promise<void>;
}
