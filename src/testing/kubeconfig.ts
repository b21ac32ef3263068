// The kubeconfig of a test server: one cluster, one user with a token, one context that
// names both (client-node ignores the cluster's TLS settings when the context names no
// user), `insecure-skip-tls-verify` for http:// and the CA for https://.
import { writeFileSync } from 'node:fs';

/** A kubeconfig document (the fields we write). */
export interface KubeconfigDoc {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context': string;
  preferences: Record<string, never>;
}

/** Builds the kubeconfig for a server at `url` (with the PEM CA when serving HTTPS). */
export function buildKubeconfig(
  url: string,
  caPem?: string,
  name = 'crdgen-testenv',
  token = 'crdgen-testenv',
): KubeconfigDoc {
  const cluster: Record<string, unknown> = { server: url };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
}

/** Writes a kubeconfig as JSON (valid YAML) with mode 0600. */
export function writeKubeconfig(path: string, doc: KubeconfigDoc): void {
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}
