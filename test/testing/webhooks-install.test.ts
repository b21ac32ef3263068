// The `webhooks` option's preparation: URL and Service references rewritten, the default
// temporary certificate folder removed by stop(), a rotation keeping the CA, a persistent store
// started again getting the new CA, and the errors for a bad host or file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryStorage, startTestApiServer } from '../../src/testing/index.js';
import { parseWebhookHost } from '../../src/testing/webhook-install.js';
import type { KubeObject } from '../../src/runtime/index.js';

const config = (name: string, clientConfig: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        clientConfig,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        objectSelector: { matchLabels: { never: 'matches' } },
      },
    ],
  }) as KubeObject;

test('URL and Service references point at the host; the temporary certificate folder goes with stop()', async () => {
  const env = await startTestApiServer({
    webhooks: {
      configurations: [
        config('by-url', { url: 'https://webhook.example.com:8443/validate' }),
        config('by-service', { service: { name: 's', namespace: 'n', path: '/v' } }),
        config('by-root', { service: { name: 's', namespace: 'n' } }),
      ],
      host: 'localhost:9555',
    },
  });
  const dir = env.webhooks!.certDir;
  try {
    const urls = env.webhooks!.configurations.map(
      (c) => (c as { webhooks: { clientConfig: { url: string } }[] }).webhooks[0].clientConfig.url,
    );
    assert.deepEqual(urls, ['https://localhost:9555/validate', 'https://localhost:9555/v', 'https://localhost:9555']);
    const cert = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
    assert.ok(cert.checkHost('localhost') && cert.checkIP('127.0.0.1'));
    const before = readFileSync(join(dir, 'tls.crt'), 'utf8');
    await env.webhooks!.rotateCertificate();
    const after = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
    assert.notEqual(after.toString(), before);
    assert.ok(after.verify(new X509Certificate(env.webhooks!.caCert).publicKey), 'signed by the same CA');
    assert.ok(
      after.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'tls.key')))),
      'the key matches the certificate',
    );
  } finally {
    await env.stop();
  }
  assert.equal(existsSync(dir), false);
});

test('a persistent store started again holds the configurations with the new CA', async () => {
  const storage = new MemoryStorage();
  const opts = { storage, webhooks: { configurations: [config('kept', { url: 'https://x/v' })] } };
  const first = await startTestApiServer(opts);
  const firstCa = first.webhooks!.caCert;
  await first.stop();
  const second = await startTestApiServer(opts);
  try {
    assert.notEqual(second.webhooks!.caCert, firstCa);
    const stored = (await storage.get(
      '/admissionregistration.k8s.io/validatingwebhookconfigurations/kept',
    )) as unknown as { webhooks: { clientConfig: { caBundle: string } }[] };
    assert.equal(Buffer.from(stored.webhooks[0].clientConfig.caBundle, 'base64').toString(), second.webhooks!.caCert);
  } finally {
    await second.stop();
  }
});

test('a bad host, a file without configurations, another apiVersion', async () => {
  assert.throws(() => parseWebhookHost('9443'), /webhook host "9443" is not host:port \(e\.g\. 127\.0\.0\.1:9443\)/);
  assert.throws(() => parseWebhookHost('127.0.0.1:0'), /is not host:port/);
  assert.deepEqual(parseWebhookHost('[::1]:9443'), { host: '::1', port: 9443 });
  await assert.rejects(
    startTestApiServer({
      webhooks: { configurations: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } }] },
    }),
    /no MutatingWebhookConfiguration or ValidatingWebhookConfiguration in the objects given/,
  );
  await assert.rejects(
    startTestApiServer({
      webhooks: {
        configurations: [
          { ...config('old', { url: 'https://x' }), apiVersion: 'admissionregistration.k8s.io/v1beta1' },
        ],
      },
    }),
    /ValidatingWebhookConfiguration old: apiVersion "admissionregistration\.k8s\.io\/v1beta1" is not served; use admissionregistration\.k8s\.io\/v1/,
  );
  // a configuration the apiserver refuses fails the start with its message
  await assert.rejects(
    startTestApiServer({
      webhooks: {
        configurations: [
          {
            ...config('bad', { url: 'https://x' }),
            webhooks: [
              { name: 'bad', clientConfig: { url: 'https://x' }, sideEffects: 'None', admissionReviewVersions: ['v1'] },
            ],
          } as KubeObject,
        ],
      },
    }),
    /cannot create ValidatingWebhookConfiguration bad: ValidatingWebhookConfiguration\.admissionregistration\.k8s\.io "bad" is invalid: webhooks\[0\]\.name: Invalid value: "bad": should be a domain with at least three segments separated by dots/,
  );
});
