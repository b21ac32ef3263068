// Webhooks installed for a test run, as envtest's WebhookInstallOptions does: a CA and a
// serving certificate for the webhook host written into a folder (tls.crt, tls.key, ca.crt),
// the Mutating- and ValidatingWebhookConfigurations of the given files rewritten to call
// `https://<host><path>` (a Service reference becomes that URL, a URL keeps its path) with the
// CA as caBundle, and the CRDs' conversion webhooks rewritten the same way. Both servers
// (testenv and the real control plane) install what this prepares.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubeObject } from '../runtime/meta/types.js';
import { loadObjectFiles } from './load.js';
import { isObject } from './meta.js';
import { generateCertificateSet, signServingCert } from './tls.js';

type Rec = Record<string, unknown>;

/** Options of the `webhooks` option of startTestApiServer() and startControlPlane(). */
export interface WebhookInstallOptions {
  /**
   * Mutating- and ValidatingWebhookConfigurations: objects or YAML/JSON files (a generated
   * `config/webhook/manifests.yaml`). Other kinds in the files (the Service, cert-manager's Issuer and
   * Certificate) are not installed: the host below stands for the Service.
   */
  configurations: (KubeObject | string)[];
  /** `host:port` the webhook server listens on (default `127.0.0.1:9443`); the certificate is for this host. */
  host?: string;
  /** Where `tls.crt`, `tls.key` and `ca.crt` are written (created if missing; default: a temporary folder removed by stop()). */
  certDir?: string;
}

/** What was installed, on the handle as `webhooks`. */
export interface InstalledWebhooks {
  /** `host:port` the configurations call. */
  host: string;
  /** The folder with `tls.crt` and `tls.key` (the webhook server's `--webhook-cert-dir`) and `ca.crt`. */
  certDir: string;
  /** The CA (PEM) the configurations' caBundle holds. */
  caCert: string;
  /** The configurations as installed (rewritten). */
  configurations: KubeObject[];
  /** Writes a new serving certificate (and key) signed by the same CA into certDir, as a rotation does. */
  rotateCertificate(): Promise<void>;
}

/** The prepared installation: the rewritten objects and the cleanup. */
export interface WebhookInstallation {
  installed: InstalledWebhooks;
  /** Rewrites a CRD's conversion webhook (Webhook strategy) to call the host; other objects unchanged. */
  rewriteCrd(crd: KubeObject): KubeObject;
  /** Removes the temporary certificate folder (when none was given). */
  cleanup(): void;
}

const CONFIG_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/** Splits `host:port` (`[::1]:9443` too); a clear error for anything else. */
export function parseWebhookHost(hostPort: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(hostPort);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port < 1 || port > 65535)
    throw new Error(`webhook host "${hostPort}" is not host:port (e.g. 127.0.0.1:9443)`);
  return { host: m[1] ?? m[2], port };
}

function writeAtomic(path: string, content: string, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, path);
}

function rewriteClientConfig(cc: unknown, base: string, caBundle: string): Rec {
  const c = isObject(cc) ? cc : {};
  let path = '';
  if (typeof c.url === 'string') {
    try {
      const u = new URL(c.url);
      path = `${u.pathname === '/' && !c.url.endsWith('/') ? '' : u.pathname}${u.search}`;
    } catch {
      path = '';
    }
  } else if (isObject(c.service) && typeof c.service.path === 'string') path = c.service.path;
  const out: Rec = { ...c, url: `${base}${path}`, caBundle };
  delete out.service;
  return out;
}

/**
 * Generates the certificates and reads and rewrites the configurations. A file without any
 * webhook configuration is an error (it is most likely the wrong file).
 */
export async function prepareWebhooks(options: WebhookInstallOptions): Promise<WebhookInstallation> {
  const hostPort = options.host ?? '127.0.0.1:9443';
  const { host } = parseWebhookHost(hostPort);
  const loaded = await loadObjectFiles(options.configurations, 'webhook configuration');
  const configs = loaded.filter((o) => isObject(o) && CONFIG_KINDS.has(String(o.kind)));
  if (configs.length === 0) {
    const files = options.configurations.filter((c): c is string => typeof c === 'string');
    throw new Error(
      `no MutatingWebhookConfiguration or ValidatingWebhookConfiguration in ${files.length ? files.join(', ') : 'the objects given'}`,
    );
  }
  for (const c of configs) {
    if (c.apiVersion !== 'admissionregistration.k8s.io/v1') {
      throw new Error(
        `${String(c.kind)} ${c.metadata?.name ?? ''}: apiVersion ${JSON.stringify(c.apiVersion ?? '')} is not served; use admissionregistration.k8s.io/v1`,
      );
    }
  }
  const hosts = host === '127.0.0.1' || host === 'localhost' ? ['127.0.0.1', 'localhost'] : [host];
  const set = await generateCertificateSet(hosts, { commonName: 'crdgen-webhook', days: 7 });
  let tmp: string | undefined;
  let certDir: string;
  if (options.certDir) {
    certDir = resolve(options.certDir);
    mkdirSync(certDir, { recursive: true });
  } else {
    tmp = mkdtempSync(join(tmpdir(), 'crdgen-webhook-certs-'));
    certDir = tmp;
  }
  const writePair = (pair: { cert: string; key: string }): void => {
    // the key first: a watcher that reads between the two sees a mismatch and keeps the old pair
    writeAtomic(join(certDir, 'tls.key'), pair.key, 0o600);
    writeAtomic(join(certDir, 'tls.crt'), pair.cert, 0o644);
  };
  writeAtomic(join(certDir, 'ca.crt'), set.caCert, 0o644);
  writePair(set);
  const caBundle = Buffer.from(set.caCert).toString('base64');
  const base = `https://${hostPort}`;
  const rewritten = configs.map((c) => {
    const copy = structuredClone(c) as KubeObject & Rec;
    if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) {
      // cert-manager's CA injection has no cert-manager here
      delete copy.metadata.annotations['cert-manager.io/inject-ca-from'];
      if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
    }
    if (Array.isArray(copy.webhooks)) {
      copy.webhooks = copy.webhooks.map((h: unknown) =>
        isObject(h) ? { ...h, clientConfig: rewriteClientConfig(h.clientConfig, base, caBundle) } : h,
      );
    }
    return copy;
  });
  const installed: InstalledWebhooks = {
    host: hostPort,
    certDir,
    caCert: set.caCert,
    configurations: rewritten,
    rotateCertificate: async () =>
      writePair(await signServingCert(set, hosts, { commonName: 'crdgen-webhook', days: 7 })),
  };
  return {
    installed,
    rewriteCrd: (crd) => {
      const spec = (crd as { spec?: unknown }).spec;
      if (
        crd.kind !== 'CustomResourceDefinition' ||
        !isObject(spec) ||
        !isObject(spec.conversion) ||
        spec.conversion.strategy !== 'Webhook'
      )
        return crd;
      const copy = structuredClone(crd) as KubeObject & { spec: Rec & { conversion: Rec } };
      const webhook = isObject(copy.spec.conversion.webhook) ? copy.spec.conversion.webhook : {};
      copy.spec.conversion.webhook = {
        ...webhook,
        clientConfig: rewriteClientConfig(webhook.clientConfig, base, caBundle),
      };
      if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) {
        delete copy.metadata.annotations['cert-manager.io/inject-ca-from'];
        if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
      }
      return copy;
    },
    cleanup: () => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
}
