// Webhook certificates without cert-manager: the CA and CA-signed serving certificates our DER
// writer makes (checked by node:crypto's X509Certificate and a real TLS handshake), and the
// CertRotator on the test API server — the Secret created once by two starters, the CA written into
// the webhook configurations and the CRD, every rotation step on a fake clock with the invariant
// that the certificate served always chains to a CA in every caBundle, one writer of two replicas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer, connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  loadKubeconfig,
  restBackend,
  SecretResource,
  CertRotator,
  CERT_ANNOTATIONS,
  splitPemBundle,
  type ClientBackend,
  type KubeObject,
  type Secret,
} from '../../../../src/runtime/index.js';
import { createCertificate } from '../../../../src/runtime/http/certificate.js';
import { ROOT } from '../../../golden/support.js';

const DAY = 24 * 3_600_000;

/** Completes a TLS handshake with `pair` served and `ca` trusted, checking `servername`; rejects on failure. */
async function handshake(pair: { cert: string; key: string }, ca: string, servername: string): Promise<void> {
  const server = createServer(pair, (s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    await new Promise<void>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ca, servername }, () => {
        s.end();
        resolve();
      });
      s.on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('CA and CA-signed serving certificates', () => {
  const ca = createCertificate({ commonName: 'hooks-ca', isCA: true, validForMs: DAY });
  const serving = createCertificate({
    commonName: 'hooks.ns.svc',
    hosts: ['hooks.ns.svc', 'hooks.ns.svc.cluster.local', '127.0.0.1', '::1'],
    issuer: ca,
    validForMs: DAY,
  });

  test('the CA: CA:TRUE, self-signed, its key matches', () => {
    const c = new X509Certificate(ca.cert);
    assert.equal(c.ca, true);
    assert.ok(c.verify(c.publicKey));
    assert.ok(c.checkIssued(c));
    assert.equal(c.subject, 'CN=hooks-ca');
  });

  test('the serving certificate: issued by the CA, not a CA, names its hosts and only them', () => {
    const c = new X509Certificate(serving.cert);
    const issuer = new X509Certificate(ca.cert);
    assert.equal(c.ca, false);
    assert.ok(c.checkIssued(issuer));
    assert.ok(c.verify(issuer.publicKey));
    assert.equal(c.issuer, 'CN=hooks-ca');
    assert.equal(c.checkHost('hooks.ns.svc'), 'hooks.ns.svc');
    assert.equal(c.checkHost('hooks.ns.svc.cluster.local'), 'hooks.ns.svc.cluster.local');
    assert.equal(c.checkHost('other.ns.svc'), undefined);
    assert.equal(c.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(c.checkIP('::1'), '::1');
    assert.deepEqual(c.keyUsage, ['1.3.6.1.5.5.7.3.1']); // extKeyUsage serverAuth
    const other = createCertificate({ commonName: 'hooks-ca', isCA: true });
    assert.equal(c.verify(new X509Certificate(other.cert).publicKey), false);
  });

  test('TLS: a client trusting the CA (alone or in a bundle with another of the same name) accepts it; one trusting another CA refuses', async () => {
    await handshake(serving, ca.cert, 'hooks.ns.svc');
    const sameName = createCertificate({ commonName: 'hooks-ca', isCA: true });
    await handshake(serving, sameName.cert + ca.cert, 'hooks.ns.svc');
    await handshake(serving, ca.cert + sameName.cert, 'hooks.ns.svc');
    await assert.rejects(handshake(serving, sameName.cert, 'hooks.ns.svc'), /unable to verify|self.signed|issuer/i);
    await assert.rejects(handshake(serving, ca.cert, 'elsewhere.ns.svc'), /altnames|Hostname/i);
  });

  test('an issuer that is not a CA, or a validity that ends before it begins, is refused', () => {
    assert.throws(() => createCertificate({ commonName: 'x', issuer: serving }), /not a CA/);
    assert.throws(
      () => createCertificate({ commonName: 'x', notBefore: new Date(2000), notAfter: new Date(1000) }),
      /must end after it begins/,
    );
  });
});

describe('CertRotator on the test API server', () => {
  let server: TestApiServer;
  let backend: ClientBackend;
  const NS = 'hooks-system';
  const targets = {
    secret: 'hooks-cert',
    service: 'hooks',
    mutatingWebhookConfigurations: ['hooks-mutating'],
    validatingWebhookConfigurations: ['hooks-validating'],
    conversionCrds: ['databasemanagers.coolops.cn'],
  };
  const hook = (name: string) => ({
    name,
    admissionReviewVersions: ['v1'],
    clientConfig: { service: { name: 'hooks', namespace: NS, path: '/x', port: 443 } },
    rules: [
      {
        apiGroups: ['coolops.cn'],
        apiVersions: ['v1'],
        operations: ['CREATE'],
        resources: ['databasemanagers'],
      },
    ],
    sideEffects: 'None',
  });

  before(async () => {
    server = await startTestApiServer({
      crds: [
        join(
          ROOT,
          'examples',
          'databasemanager-webhooks',
          'generated',
          'controllers',
          'databasemanager',
          'config',
          'crd',
          'databasemanagers.coolops.cn.yaml',
        ),
      ],
      objects: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: 'hooks-mutating' },
          webhooks: [hook('m.hooks.example.com'), hook('m2.hooks.example.com')],
        } as KubeObject,
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'hooks-validating' },
          webhooks: [hook('v.hooks.example.com')],
        } as KubeObject,
      ],
    });
    backend = restBackend(await loadKubeconfig({ path: server.kubeconfigPath }));
  });
  after(async () => {
    await server?.stop();
  });

  const get = (resource: string, group: string, name: string) =>
    backend
      .resource<KubeObject & Record<string, any>>({
        group,
        version: 'v1',
        resource,
        kind: '',
        listKind: '',
        namespaced: false,
      })
      .get(name);

  /** Every caBundle of the targets, decoded. */
  async function bundles(): Promise<string[]> {
    const m = await get('mutatingwebhookconfigurations', 'admissionregistration.k8s.io', 'hooks-mutating');
    const v = await get('validatingwebhookconfigurations', 'admissionregistration.k8s.io', 'hooks-validating');
    const crd = await get('customresourcedefinitions', 'apiextensions.k8s.io', 'databasemanagers.coolops.cn');
    const all = [
      ...m.webhooks.map((h: any) => h.clientConfig.caBundle),
      ...v.webhooks.map((h: any) => h.clientConfig.caBundle),
      crd.spec.conversion.webhook.clientConfig.caBundle,
    ];
    return all.map((b: string | undefined) => Buffer.from(b ?? '', 'base64').toString('utf8'));
  }

  /** The rotator's served certificate chains to a CA of every caBundle, and names the Service. */
  async function servedIsTrusted(r: CertRotator): Promise<void> {
    const cert = new X509Certificate(r.current().cert);
    assert.ok(cert.checkHost(`hooks.${NS}.svc`));
    for (const bundle of await bundles()) {
      const cas = splitPemBundle(bundle).map((p) => new X509Certificate(p));
      assert.ok(
        cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey)),
        `the served certificate (issuer ${cert.issuer}) is not trusted by a caBundle of ${cas.length} CA(s)`,
      );
    }
  }

  const secret = () => backend.resource<Secret>(SecretResource, NS).get('hooks-cert');
  const caCount = async () => splitPemBundle(Buffer.from((await secret()).data!['ca.crt'], 'base64').toString()).length;

  test('two starters with no Secret agree on one; syncs on a fake clock take every rotation step, the served certificate trusted by every caBundle throughout', async () => {
    let now = Date.now();
    const options = {
      backend,
      namespace: NS,
      targets,
      hosts: ['127.0.0.1'],
      caValidityMs: 30 * DAY,
      servingValidityMs: 9 * DAY,
      syncPeriodMs: 1000,
      now: () => now,
    };
    const a = new CertRotator(options);
    const b = new CertRotator(options);
    await Promise.all([a.start(), b.start()]);
    a.stop();
    b.stop();
    await Promise.all([a.stopped(), b.stopped()]);
    assert.equal(a.current().cert, b.current().cert, 'both starters serve the one Secret');
    assert.equal(await caCount(), 1);

    const steps: string[] = [];
    const step = async () => {
      const what = await a.sync();
      steps.push(what);
      await b.reload();
      if (what !== 'idle') await servedIsTrusted(a);
      await servedIsTrusted(b);
      return what;
    };
    // the writer loop may have published before stop(): then the first pass finds nothing to do
    assert.ok(['published', 'idle'].includes(await step()));
    assert.equal(await step(), 'idle');
    for (const bundle of await bundles()) assert.equal(splitPemBundle(bundle).length, 1);

    // the serving certificate, with a third of its 9 days left, is renewed by the same CA
    const firstServing = a.current().cert;
    now += 6 * DAY + 1000;
    assert.equal(await step(), 'serving certificate renewed');
    assert.notEqual(a.current().cert, firstServing);
    assert.equal(b.current().cert, a.current().cert);
    assert.equal(await step(), 'idle');

    // the CA, with a third of its 30 days left: new CA + old CA in every bundle before anything else
    now += 14 * DAY;
    // 14 days on the serving certificate has ended: renewed first, by the CA still trusted
    assert.equal(await step(), 'serving certificate renewed (it had ended)');
    assert.equal(await step(), 'new CA added to the bundle');
    assert.equal(await caCount(), 2);
    assert.equal(await step(), 'published');
    for (const bundle of await bundles()) assert.equal(splitPemBundle(bundle).length, 2);
    // the serving certificate waits five sync periods after the bundles were written
    assert.equal(await step(), 'idle');
    now += 4000;
    assert.equal(await step(), 'idle');
    const oldIssuer = new X509Certificate(a.current().cert).issuer;
    now += 1000;
    assert.equal(await step(), 'serving certificate issued by the new CA');
    assert.notEqual(new X509Certificate(a.current().cert).issuer, oldIssuer);
    // and the old CA stays until every replica has had five sync periods to read it
    assert.equal(await step(), 'idle');
    assert.equal(await caCount(), 2);
    now += 5000;
    assert.equal(await step(), 'old CA dropped');
    assert.equal(await step(), 'published');
    for (const bundle of await bundles()) assert.equal(splitPemBundle(bundle).length, 1);
    assert.equal(await step(), 'idle');
    assert.ok(!steps.includes('conflict'));
  });

  test('the rotate annotation starts a CA rotation (or a serving one) now, and is removed', async () => {
    let now = Date.now() + 100 * DAY;
    const r = new CertRotator({ backend, namespace: NS, targets, syncPeriodMs: 1000, now: () => now });
    await r.start();
    r.stop();
    await r.stopped();
    while ((await r.sync()) !== 'idle') now += 10_000; // settle whatever the clock jump made due
    const annotate = async (value: string) => {
      const s = await secret();
      await backend.resource<Secret>(SecretResource, NS).update({
        ...s,
        metadata: { ...s.metadata, annotations: { ...s.metadata!.annotations, [CERT_ANNOTATIONS.rotate]: value } },
      });
    };
    const before = r.current().cert;
    await annotate('serving');
    assert.equal(await r.sync(), 'serving certificate renewed (asked)');
    assert.equal((await secret()).metadata?.annotations?.[CERT_ANNOTATIONS.rotate], undefined);
    assert.notEqual(r.current().cert, before);
    await annotate('ca');
    assert.equal(await r.sync(), 'new CA added to the bundle');
    assert.equal((await secret()).metadata?.annotations?.[CERT_ANNOTATIONS.rotate], undefined);
    const seen: string[] = [];
    for (let i = 0; i < 12 && (await caCount()) > 1; i++) {
      seen.push(await r.sync());
      await servedIsTrusted(r);
      now += 2000;
    }
    assert.deepEqual(
      seen.filter((s) => s !== 'idle'),
      ['published', 'serving certificate issued by the new CA', 'old CA dropped'],
    );
  });

  test('a Secret that does not hold a usable CA is replaced at start by a new CA and certificate', async () => {
    const s = await secret();
    const oldCa = s.data!['ca.crt'];
    await backend
      .resource<Secret>(SecretResource, NS)
      .update({ ...s, data: { ...s.data, 'ca.key': Buffer.from('junk').toString('base64') } });
    const r = new CertRotator({ backend, namespace: NS, targets, syncPeriodMs: 1000 });
    await r.start();
    r.stop();
    await r.stopped();
    assert.notEqual((await secret()).data!['ca.crt'], oldCa);
    assert.equal((await secret()).data!['tls.crt'], Buffer.from(r.current().cert).toString('base64'));
    // the new CA published (the writer loop may have done it already), then nothing left to do
    let last = '';
    for (let i = 0; i < 5 && last !== 'idle'; i++) last = await r.sync();
    assert.equal(last, 'idle');
    await servedIsTrusted(r);
  });

  test('two replicas running: one holds the writer Lease, both serve the same certificate', async () => {
    // generous: a loaded machine makes each request slow, and an attempt times out after five retry periods
    const timing = { leaseDurationMs: 10_000, renewDeadlineMs: 8000, retryPeriodMs: 1000, syncPeriodMs: 500 };
    const a = new CertRotator({ backend, namespace: NS, targets, ...timing, identity: 'a' });
    const b = new CertRotator({ backend, namespace: NS, targets, ...timing, identity: 'b' });
    await Promise.all([a.start(), b.start()]);
    try {
      const lease = () =>
        backend
          .resource<KubeObject & { spec?: { holderIdentity?: string } }>(
            {
              group: 'coordination.k8s.io',
              version: 'v1',
              resource: 'leases',
              kind: 'Lease',
              listKind: 'LeaseList',
              namespaced: true,
            },
            NS,
          )
          .get('hooks-cert-writer');
      // watched for a while: never two writers at once, and the writer is the Lease's holder
      const end = Date.now() + 60_000;
      let samples = 0;
      while (samples < 40) {
        assert.ok(Date.now() < end, 'nobody took the writer Lease');
        assert.ok(!(a.isWriter() && b.isWriter()), 'two writers');
        if (a.isWriter() || b.isWriter()) samples++;
        await new Promise((r) => setTimeout(r, 50));
      }
      const holder = (await lease()).spec?.holderIdentity;
      assert.ok(holder === 'a' || holder === 'b', `holder ${holder}`);
      assert.ok((holder === 'a' ? a : b).isWriter() || !(holder === 'a' ? b : a).isWriter());
      assert.equal(a.current().cert, b.current().cert);
    } finally {
      a.stop();
      b.stop();
      await Promise.all([a.stopped(), b.stopped()]);
    }
  });
});
