// --webhook-cert-mode=self: webhook certificates without cert-manager. The operator keeps a CA and
// a serving certificate in a Secret of its namespace, writes the CA bundle into its
// Mutating/ValidatingWebhookConfigurations and its CRD's conversion caBundle, serves with the
// Secret's certificate, and rotates before expiry without a failed call:
//   CA:      bundle = new CA + old CA, written into every caBundle → after a propagation delay the
//            serving certificate is re-issued by the new CA → after another, the old CA is dropped;
//   serving: re-issued by the current CA (trusted everywhere already).
// Replicas share the Secret; one writes (elected on a Lease), the others read it every sync period
// and serve what it holds. Every write carries the resourceVersion read, so two writers (or two
// starters creating the Secret) cannot both win; a loser reads again.
import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import { hostname } from 'node:os';
import type { ClientBackend } from '../typed/backend.js';
import type { ResourceDescriptor } from '../client/resource.js';
import type { KubeObject } from '../meta/types.js';
import { SecretResource, type Secret } from '../builtin/index.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { createCertificate, type CertificateKeyPair } from '../http/certificate.js';
import { LeaderElector } from '../leaderelection/leader-election.js';
import { sleep } from '../leaderelection/sleep.js';
import type { KeyPair, ServingCertificates } from './certwatcher.js';

/** What the CA is written into; names as the generated config/webhook/manifests.yaml and config/crd/ give them. */
export interface WebhookCertificateTargets {
  /** The Secret holding the CA and serving certificate (default of `--webhook-cert-secret`). */
  secret: string;
  /** The webhook Service (default of `--webhook-service-name`): the certificate is for `<service>.<namespace>.svc`. */
  service: string;
  mutatingWebhookConfigurations?: readonly string[];
  validatingWebhookConfigurations?: readonly string[];
  /** CRDs (`<plural>.<group>`) whose conversion webhook's caBundle is written. */
  conversionCrds?: readonly string[];
}

/** Options of a {@link CertRotator}. Durations in ms. */
export interface CertRotatorOptions {
  backend: ClientBackend;
  /** The namespace of the Secret, the Service and the writer's Lease. */
  namespace: string;
  targets: WebhookCertificateTargets;
  /** More names and IP addresses in the serving certificate besides the Service's. */
  hosts?: readonly string[];
  /** The CA's lifetime (default 365 days); a new one is made when a third of it remains. */
  caValidityMs?: number;
  /** The serving certificate's lifetime (default 90 days, never past the CA's end); renewed when a third remains. */
  servingValidityMs?: number;
  /**
   * How often every replica reads the Secret and the writer checks what is due (default 10 s).
   * A step that others must have seen first (a new bundle before the new serving certificate, the
   * new serving certificate before the old CA goes) waits five sync periods.
   */
  syncPeriodMs?: number;
  /** The writer's Lease (default `<secret>-writer`) and its timings (client-go's defaults). */
  leaseName?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** This replica's identity on the Lease (default host name and a UUID). */
  identity?: string;
  logger?: Logger;
  /** Wall-clock ms (tests). */
  now?: () => number;
}

/** The Secret's keys: `tls.crt`/`tls.key` (serving), `ca.crt` (the bundle, newest CA first), `ca.key` (the newest CA's). */
export const CERT_SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt', caKey: 'ca.key' } as const;

/** Annotations of the Secret: the rotation's state, and the operator's trigger. */
export const CERT_ANNOTATIONS = {
  /** `<sha256 of ca.crt>` once every caBundle held it. */
  publishedBundle: 'webhook.crdgen.io/published-bundle',
  /** When (RFC 3339) that was seen. */
  publishedAt: 'webhook.crdgen.io/published-at',
  /** When (RFC 3339) the current serving certificate was written. */
  servingSince: 'webhook.crdgen.io/serving-since',
  /** Set to `ca` (a new CA, then a new serving certificate) or `serving` to rotate now; the writer removes it. */
  rotate: 'webhook.crdgen.io/rotate',
} as const;

const DAY = 24 * 3_600_000;
const PROPAGATION_PERIODS = 5;

const MUTATING: ResourceDescriptor = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  listKind: 'MutatingWebhookConfigurationList',
  namespaced: false,
};
const VALIDATING: ResourceDescriptor = {
  ...MUTATING,
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  listKind: 'ValidatingWebhookConfigurationList',
};
const CRDS: ResourceDescriptor = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
};

/** What a caBundle is written into: a webhook configuration or a CRD. */
type Target = KubeObject & {
  webhooks?: { clientConfig?: { caBundle?: string } }[];
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } };
};

/** The Secret's contents, read. */
interface CertState {
  /** The bundle, newest first. */
  cas: X509Certificate[];
  caPem: string[];
  caKey: string;
  serving: KeyPair;
  servingCert: X509Certificate;
  annotations: Record<string, string>;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => (s === undefined ? '' : Buffer.from(s, 'base64').toString('utf8'));

/** The PEM certificates of a bundle, in order. */
export function splitPemBundle(pem: string): string[] {
  return (
    pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g)?.map((c) => c.trimEnd() + '\n') ?? []
  );
}

function bundleHash(bundle: string): string {
  return createHash('sha256').update(bundle).digest('hex').slice(0, 32);
}

/** Reads a Secret's certificates; undefined when anything is missing or does not parse. */
function readState(secret: Secret): CertState | undefined {
  const data = secret.data ?? {};
  try {
    const caPem = splitPemBundle(unb64(data[CERT_SECRET_KEYS.ca]));
    const caKey = unb64(data[CERT_SECRET_KEYS.caKey]);
    const serving = { cert: unb64(data[CERT_SECRET_KEYS.cert]), key: unb64(data[CERT_SECRET_KEYS.key]) };
    if (caPem.length === 0 || !caKey || !serving.cert || !serving.key) return undefined;
    const cas = caPem.map((p) => new X509Certificate(p));
    const servingCert = new X509Certificate(serving.cert);
    createSecureContext(serving); // the key matches the certificate
    if (!cas[0].ca || !cas[0].checkPrivateKey(createPrivateKey(caKey))) return undefined;
    return { cas, caPem, caKey, serving, servingCert, annotations: { ...(secret.metadata?.annotations ?? {}) } };
  } catch {
    return undefined;
  }
}

function validity(c: X509Certificate): { from: number; to: number } {
  return { from: Date.parse(c.validFrom), to: Date.parse(c.validTo) };
}

/** Less than a third of `lifetimeMs` (the configured lifetime) is left, or the certificate has ended. */
function due(c: X509Certificate, lifetimeMs: number, now: number): boolean {
  return now >= validity(c).to - lifetimeMs / 3;
}

/** The serving certificate was issued by `ca` (its signature verifies with the CA's key). */
function issuedBy(cert: X509Certificate, ca: X509Certificate): boolean {
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

/** The serving certificate names every one of `hosts`. */
function covers(cert: X509Certificate, hosts: readonly string[]): boolean {
  return hosts.every((h) => (/^[\d.]+$|:/.test(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
}

/**
 * Keeps the webhook's CA and serving certificate in a Secret, the CA in the configurations'
 * caBundles, and serves the Secret's certificate (a {@link ServingCertificates} for the webhook
 * server). `start()` returns once a certificate is there to serve.
 */
export class CertRotator implements ServingCertificates {
  private pair: KeyPair | undefined;
  private context: SecureContext | undefined;
  private readonly listeners = new Set<(pair: KeyPair) => void>();
  private readonly stopController = new AbortController();
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly syncPeriodMs: number;
  private readonly hosts: string[];
  private loops: Promise<void>[] = [];
  private readonly caValidityMs: number;
  private readonly servingValidityMs: number;
  private elector: LeaderElector | undefined;

  constructor(private readonly options: CertRotatorOptions) {
    this.logger = options.logger ?? noopLogger;
    this.now = options.now ?? Date.now;
    this.syncPeriodMs = options.syncPeriodMs ?? 10_000;
    this.caValidityMs = options.caValidityMs ?? 365 * DAY;
    this.servingValidityMs = Math.min(options.servingValidityMs ?? 90 * DAY, this.caValidityMs);
    const { service } = options.targets;
    const ns = options.namespace;
    if (!service || !ns || !options.targets.secret)
      throw new Error('webhook certificates: the Secret, the Service and the namespace must be named');
    this.hosts = [...new Set([`${service}.${ns}.svc`, `${service}.${ns}.svc.cluster.local`, ...(options.hosts ?? [])])];
  }

  /** Reads (or creates) the Secret and serves its certificate; then keeps it fresh until {@link stop}. */
  async start(): Promise<void> {
    let state = readState(await this.ensureSecret());
    if (!state) {
      // a Secret without a usable CA (emptied, or written by other hands): replaced, as the writer would
      // (two starters doing it at once: one update wins, the other reads the winner's)
      const what = await this.sync();
      this.logger.warn({ secret: this.secretRef(), what }, 'the webhook certificate Secret was not usable');
      state = readState(await this.secrets().get(this.options.targets.secret));
    }
    if (!state)
      throw new Error(`webhook certificates: the Secret ${this.secretRef()} does not hold a usable CA and certificate`);
    this.accept(state.serving);
    const signal = this.stopController.signal;
    this.loops.push(this.followLoop(signal), this.writerLoop(signal));
  }

  /** True while this replica is the one writing the Secret and the caBundles. */
  isWriter(): boolean {
    return this.elector?.holds() ?? false;
  }

  current(): KeyPair {
    if (!this.pair) throw new Error('the webhook certificates have not started');
    return this.pair;
  }

  secureContext(): SecureContext {
    if (!this.context) throw new Error('the webhook certificates have not started');
    return this.context;
  }

  onChange(listener: (pair: KeyPair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the Secret now and serves what it holds. */
  async reload(): Promise<void> {
    try {
      const state = readState(await this.secrets().get(this.options.targets.secret));
      if (state) this.accept(state.serving);
    } catch (e) {
      this.logger.warn(
        { err: errorMessage(e), secret: this.secretRef() },
        'cannot read the webhook certificate Secret',
      );
    }
  }

  /** Stops the loops (the writer gives its Lease up); resolves when they have ended. */
  stop(): void {
    this.stopController.abort();
  }

  /** Resolves when the loops have ended after {@link stop}. */
  async stopped(): Promise<void> {
    await Promise.all(this.loops);
  }

  /**
   * One writer's pass (exposed for tests): reads the Secret, takes the step that is due, writes
   * the bundle into every caBundle. Returns what it did. Throws on API errors other than a
   * conflict (a conflict is a no-op: the next pass reads again).
   */
  async sync(): Promise<string> {
    let secret: Secret;
    try {
      secret = await this.secrets().get(this.options.targets.secret);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      secret = await this.ensureSecret();
    }
    const state = readState(secret);
    const now = this.now();
    try {
      if (!state) {
        this.logger.warn(
          { secret: this.secretRef() },
          'the webhook certificate Secret is not usable: issuing a new CA',
        );
        const fresh = this.freshData(now);
        await this.write(secret, fresh.data, fresh.annotations, []);
        return 'reset';
      }
      const step = this.nextStep(state, now);
      if (step) {
        await this.write(secret, step.data, step.annotations, step.remove);
        this.logger.info({ secret: this.secretRef(), step: step.what }, 'webhook certificates: rotation step');
        return step.what;
      }
      const bundle = state.caPem.join('');
      const hash = bundleHash(bundle);
      const written = await this.publish(bundle);
      if (state.annotations[CERT_ANNOTATIONS.publishedBundle] !== hash) {
        await this.write(
          secret,
          {},
          { [CERT_ANNOTATIONS.publishedBundle]: hash, [CERT_ANNOTATIONS.publishedAt]: iso(now) },
          [],
        );
        return 'published';
      }
      return written > 0 ? 'published' : 'idle';
    } catch (e) {
      if (isConflict(e)) return 'conflict';
      throw e;
    }
  }

  // --- the steps --------------------------------------------------------------------------

  private nextStep(
    s: CertState,
    now: number,
  ): { what: string; data: Record<string, string>; annotations: Record<string, string>; remove: string[] } | undefined {
    const ca = s.cas[0];
    const signer = { cert: s.caPem[0], key: s.caKey };
    const waited = PROPAGATION_PERIODS * this.syncPeriodMs;
    const bundle = s.caPem.join('');
    const published =
      s.annotations[CERT_ANNOTATIONS.publishedBundle] === bundleHash(bundle) &&
      now - Date.parse(s.annotations[CERT_ANNOTATIONS.publishedAt] ?? '') >= waited;
    // a Secret written by other hands has no time: its serving certificate counts as old
    const servingAge = now - (Date.parse(s.annotations[CERT_ANNOTATIONS.servingSince] ?? '') || 0);
    const trigger = s.annotations[CERT_ANNOTATIONS.rotate];
    const serve = (what: string) => ({
      what,
      data: this.servingData(signer, ca, now),
      annotations: { [CERT_ANNOTATIONS.servingSince]: iso(now) },
      remove: trigger === 'serving' ? [CERT_ANNOTATIONS.rotate] : [],
    });
    if (now >= validity(ca).to) {
      // the CA has ended: nothing it signed is trusted any more, start over at once
      const fresh = this.freshData(now);
      return {
        what: 'ca expired: new CA and certificate',
        data: fresh.data,
        annotations: fresh.annotations,
        remove: [],
      };
    }
    if (s.cas.length > 1) {
      // a CA rotation under way: the serving certificate moves to the new CA once every caBundle trusts it
      if (!issuedBy(s.servingCert, ca))
        return published ? serve('serving certificate issued by the new CA') : undefined;
      // then the old CAs go, once every replica serves the new certificate (and any ended CA at once)
      if (!(servingAge >= waited) && s.cas.slice(1).every((c) => now < validity(c).to)) return undefined;
      return {
        what: 'old CA dropped',
        data: { [CERT_SECRET_KEYS.ca]: b64(s.caPem[0]) },
        annotations: {},
        remove: [],
      };
    }
    // a serving certificate the CA's bundle does not vouch for (or that has ended) first: the CA is still trusted
    if (!issuedBy(s.servingCert, ca)) return serve('serving certificate re-issued by the CA');
    if (!covers(s.servingCert, this.hosts)) return serve('serving certificate re-issued for its host names');
    if (now >= validity(s.servingCert).to) return serve('serving certificate renewed (it had ended)');
    if (trigger === 'ca' || due(ca, this.caValidityMs, now)) {
      const next = createCertificate({
        commonName: `${this.options.targets.service}-ca@${Math.floor(now / 1000)}`,
        isCA: true,
        ...this.span(now, this.caValidityMs),
      });
      return {
        what: 'new CA added to the bundle',
        data: { [CERT_SECRET_KEYS.ca]: b64(next.cert + s.caPem[0]), [CERT_SECRET_KEYS.caKey]: b64(next.key) },
        annotations: {},
        remove: trigger !== undefined ? [CERT_ANNOTATIONS.rotate] : [],
      };
    }
    if (trigger === 'serving') return serve('serving certificate renewed (asked)');
    // never due merely for being cut at the CA's end: the CA is renewed first (a serving lifetime is at most the CA's)
    if (due(s.servingCert, this.servingValidityMs, now)) return serve('serving certificate renewed');
    if (trigger !== undefined)
      return {
        what: `unknown ${CERT_ANNOTATIONS.rotate} value ignored`,
        data: {},
        annotations: {},
        remove: [CERT_ANNOTATIONS.rotate],
      };
    return undefined;
  }

  /** notBefore an hour back (clocks differ), notAfter `validForMs` from now. */
  private span(now: number, validForMs: number): { notBefore: Date; notAfter: Date } {
    return { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + validForMs) };
  }

  private servingData(signer: CertificateKeyPair, ca: X509Certificate, now: number): Record<string, string> {
    const end = Math.min(now + this.servingValidityMs, validity(ca).to);
    const pair = createCertificate({
      commonName: this.hosts[0],
      hosts: this.hosts,
      issuer: signer,
      notBefore: new Date(now - 3_600_000),
      notAfter: new Date(end),
    });
    return { [CERT_SECRET_KEYS.cert]: b64(pair.cert), [CERT_SECRET_KEYS.key]: b64(pair.key) };
  }

  /** A new CA and serving certificate. */
  private freshData(now: number): { data: Record<string, string>; annotations: Record<string, string> } {
    const ca = createCertificate({
      commonName: `${this.options.targets.service}-ca@${Math.floor(now / 1000)}`,
      isCA: true,
      ...this.span(now, this.caValidityMs),
    });
    return {
      data: {
        [CERT_SECRET_KEYS.ca]: b64(ca.cert),
        [CERT_SECRET_KEYS.caKey]: b64(ca.key),
        ...this.servingData(ca, new X509Certificate(ca.cert), now),
      },
      annotations: { [CERT_ANNOTATIONS.servingSince]: iso(now) },
    };
  }

  // --- the API ----------------------------------------------------------------------------

  private secretRef(): string {
    return `${this.options.namespace}/${this.options.targets.secret}`;
  }

  private secrets() {
    return this.options.backend.resource<Secret>(SecretResource, this.options.namespace);
  }

  /** The Secret, created with a new CA and certificate when absent (a starter that loses the race reads the winner's). */
  private async ensureSecret(): Promise<Secret> {
    const name = this.options.targets.secret;
    try {
      return await this.secrets().get(name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const fresh = this.freshData(this.now());
    try {
      const created = await this.secrets().create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: this.options.namespace, annotations: fresh.annotations },
        type: 'kubernetes.io/tls',
        data: fresh.data,
      });
      this.logger.info(
        { secret: this.secretRef() },
        'webhook certificate Secret created (new CA and serving certificate)',
      );
      return created;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return this.secrets().get(name);
    }
  }

  /** Updates the Secret with `data` and `annotations` merged in (resourceVersion of the read: a conflict throws). */
  private async write(
    secret: Secret,
    data: Record<string, string>,
    annotations: Record<string, string>,
    remove: readonly string[],
  ): Promise<void> {
    const merged: Record<string, string> = { ...(secret.metadata?.annotations ?? {}), ...annotations };
    for (const k of remove) delete merged[k];
    const updated = await this.secrets().update({
      ...secret,
      metadata: { ...secret.metadata, annotations: merged },
      data: { ...(secret.data ?? {}), ...data },
    });
    const state = readState(updated);
    if (state) this.accept(state.serving);
  }

  /** Writes `bundle` into every caBundle that differs; returns how many objects it updated. */
  private async publish(bundle: string): Promise<number> {
    const caBundle = b64(bundle);
    const t = this.options.targets;
    let written = 0;
    const each = async (d: ResourceDescriptor, names: readonly string[] | undefined, set: (o: Target) => boolean) => {
      for (const name of names ?? []) {
        const client = this.options.backend.resource<Target>(d);
        const obj = await client.get(name);
        if (!set(obj)) continue;
        await client.update(obj);
        written++;
        this.logger.info({ kind: d.kind, name }, 'CA bundle written');
      }
    };
    const hooks = (o: Target): boolean => {
      let changed = false;
      for (const h of o.webhooks ?? []) {
        h.clientConfig ??= {};
        if (h.clientConfig.caBundle !== caBundle) {
          h.clientConfig.caBundle = caBundle;
          changed = true;
        }
      }
      return changed;
    };
    await each(MUTATING, t.mutatingWebhookConfigurations, hooks);
    await each(VALIDATING, t.validatingWebhookConfigurations, hooks);
    await each(CRDS, t.conversionCrds, (o: Target) => {
      const conv = o.spec?.conversion;
      if (conv?.strategy !== 'Webhook' || !conv.webhook) return false;
      conv.webhook.clientConfig ??= {};
      if (conv.webhook.clientConfig.caBundle === caBundle) return false;
      conv.webhook.clientConfig.caBundle = caBundle;
      return true;
    });
    return written;
  }

  private accept(pair: KeyPair): void {
    if (this.pair && this.pair.cert === pair.cert && this.pair.key === pair.key) return;
    const context = createSecureContext(pair);
    const first = this.pair === undefined;
    this.pair = { cert: pair.cert, key: pair.key };
    this.context = context;
    if (!first) this.logger.info({ secret: this.secretRef() }, 'serving certificate reloaded');
    for (const l of this.listeners) l(this.pair);
  }

  // --- the loops --------------------------------------------------------------------------

  /** Every replica: reads the Secret every sync period and serves what it holds. */
  private async followLoop(signal: AbortSignal): Promise<void> {
    while (await sleep(this.syncPeriodMs, signal)) await this.reload();
  }

  /** Campaigns for the writer's Lease; the holder syncs every sync period. A lost Lease is campaigned for again. */
  private async writerLoop(signal: AbortSignal): Promise<void> {
    const identity = this.options.identity ?? `${hostname()}_${randomUUID()}`;
    while (!signal.aborted) {
      const elector = new LeaderElector({
        backend: this.options.backend,
        namespace: this.options.namespace,
        name: this.options.leaseName ?? `${this.options.targets.secret}-writer`,
        identity,
        ...(this.options.leaseDurationMs !== undefined ? { leaseDurationMs: this.options.leaseDurationMs } : {}),
        ...(this.options.renewDeadlineMs !== undefined ? { renewDeadlineMs: this.options.renewDeadlineMs } : {}),
        ...(this.options.retryPeriodMs !== undefined ? { retryPeriodMs: this.options.retryPeriodMs } : {}),
        logger: this.logger,
      });
      this.elector = elector;
      await elector.run(signal, async (lead) => {
        this.logger.info({ secret: this.secretRef(), identity }, 'writing the webhook certificates');
        while (!lead.aborted) {
          // a pass only on a fresh renewal: past the renew deadline another replica may be writing
          if (elector.holds()) {
            try {
              await this.sync();
            } catch (e) {
              this.logger.warn({ err: errorMessage(e), secret: this.secretRef() }, 'webhook certificates: sync failed');
            }
          }
          if (!(await sleep(this.syncPeriodMs, lead))) break;
        }
      });
    }
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
