// Webhook certificates without cert-manager, end to end on the real control plane: two replicas of
// the generated DatabaseManager operator (examples/databasemanager-webhooks) run with
// --webhook-cert-mode=self behind one address (a TCP round-robin in front of both: the Service's
// role). No Secret at start: one is created, its CA written into the webhook configurations and the
// CRD's conversion webhook, and kube-apiserver's admission and conversion calls succeed. Then, while
// a driver keeps issuing reads that need conversion and writes that need admission, the serving
// certificate rotates by itself (--webhook-cert-validity 20s) and the CA is rotated on request (the
// Secret's rotate annotation): not one call fails. Only one replica writes (the Lease's holder).
// The example imports crdgen/runtime by name: it runs from the build (dist/), which `npm test` makes first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect as tcpConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import {
  resourceClient,
  restBackend,
  SecretResource,
  LeaseResource,
  CERT_ANNOTATIONS,
  splitPemBundle,
  type KubeObject,
  type Secret,
  type Lease,
} from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { realBackend } from '../support/backends.js';
import { startOperator, waitFor, type OperatorProcess } from './support.js';

const OPERATOR = join(ROOT, 'examples', 'databasemanager-webhooks', 'generated', 'controllers', 'databasemanager');
const NS = 'default';
const SECRET = 'databasemanager-webhook-server-cert';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string; engine?: string; version?: string };
}
const resource = (version: string) => ({
  group: 'coolops.cn',
  version,
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

/** A TCP round-robin over `ports` (TLS passes through): one address for both replicas, as a Service gives. */
function roundRobin(ports: number[]): { server: Server; sockets: Set<Socket> } {
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createServer((down) => {
    const up = tcpConnect(ports[next++ % ports.length], '127.0.0.1');
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        down.destroy();
        up.destroy();
      });
    }
    down.pipe(up).pipe(down);
  });
  return { server, sockets };
}

/** The certificate served at `port`, verified against `ca` for 127.0.0.1. */
function served(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
      const c = s.getPeerX509Certificate();
      s.end();
      if (c) resolve(c.fingerprint256);
      else reject(new Error('no certificate'));
    });
    s.on('error', reject);
  });
}

let server: ApiServerHandle;
let ops: OperatorProcess[] = [];
let proxy: { server: Server; sockets: Set<Socket> } | undefined;
let replicaPorts: number[] = [];
const started = Date.now();

before(async () => {
  replicaPorts = [await freePort(), await freePort()];
  proxy = roundRobin(replicaPorts);
  const port = await listen(proxy.server);
  // the configurations and the CRD call the proxy; their caBundle is the test CA's until the operator writes its own
  server = await realBackend.start({
    crds: [join(OPERATOR, 'config', 'crd.yaml')],
    webhooks: { configurations: [join(OPERATOR, 'config', 'webhooks.yaml')], host: `127.0.0.1:${port}` },
  });
  ops = replicaPorts.map((p) =>
    startOperator(join(OPERATOR, 'main.ts'), [
      '--kubeconfig',
      server.kubeconfigPath,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--leader-elect',
      '--webhook-bind-address',
      `127.0.0.1:${p}`,
      '--webhook-cert-mode',
      'self',
      '--webhook-namespace',
      NS,
      '--webhook-cert-hosts',
      '127.0.0.1',
      '--webhook-cert-validity',
      '20s',
      '--webhook-cert-sync-period',
      '1s',
    ]),
  );
});

after(async () => {
  await Promise.all(ops.map((o) => o.kill()));
  for (const s of proxy?.sockets ?? []) s.destroy();
  proxy?.server.close();
  await server?.stop();
});

test('self mode: the Secret is made, the CA written, and kube-apiserver calls both replicas without a failure through a serving-certificate and a CA rotation; one writer', async () => {
  const backend = restBackend(server.clientConfig);
  const secrets = backend.resource<Secret>(SecretResource, NS);
  const crds = backend.resource<KubeObject & { spec?: any }>({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    namespaced: false,
  });
  const v1 = resourceClient<DM>(server.clientConfig, resource('v1')).namespace(NS);
  const v1alpha1 = resourceClient<DM>(server.clientConfig, resource('v1alpha1')).namespace(NS);
  const logs = () =>
    ops
      .map((o, i) => `--- replica ${i}\n${o.logs.map((l) => JSON.stringify(l)).join('\n')}\n${o.other.join('')}`)
      .join('\n');

  for (const o of ops) await o.waitForLog((l) => l.msg === 'serving webhooks', 90_000);
  // both replicas serve the Secret's certificate; the Secret did not exist before them
  const first = await secrets.get(SECRET);
  assert.equal(first.type, 'kubernetes.io/tls');
  const created = ops
    .flatMap((o) => o.logs)
    .filter((l) => String(l.msg).startsWith('webhook certificate Secret created'));
  assert.equal(created.length, 1, 'exactly one replica created the Secret');

  // admission: the mutating hook defaults spec.version once the operator's CA is in the configurations
  const probe = (name: string) =>
    v1.create(
      {
        apiVersion: 'coolops.cn/v1',
        kind: 'DatabaseManager',
        metadata: { name, namespace: NS },
        spec: { deploymentName: `${name}-db`, engine: 'redis' },
      },
      { dryRun: true },
    );
  await waitFor(async () => (await probe('probe')).spec?.version === '7.4', 60_000, 'the webhooks to be trusted', logs);
  await v1.create({
    apiVersion: 'coolops.cn/v1',
    kind: 'DatabaseManager',
    metadata: { name: 'orders', namespace: NS },
    spec: { deploymentName: 'orders-db', replicas: 1, engine: 'postgres' },
  });
  assert.equal((await v1alpha1.get('orders')).spec?.dbtype, 'postgres');

  // one writer: the holder of the writer Lease, and only it wrote the caBundles
  const lease = await backend.resource<Lease>(LeaseResource, NS).get(`${SECRET}-writer`);
  assert.ok(lease.spec?.holderIdentity, 'the writer Lease is held');
  const writers = ops.filter((o) => o.logs.some((l) => l.msg === 'writing the webhook certificates'));
  assert.equal(writers.length, 1, logs());
  const bundleWriters = ops.filter((o) => o.logs.some((l) => l.msg === 'CA bundle written'));
  assert.deepEqual(bundleWriters, writers);

  // the driver: conversion-needing reads and admission-triggering writes, back to back, until told to stop
  const failures: string[] = [];
  const counts = { reads: 0, writes: 0 };
  let driving = true;
  const reader = (async () => {
    while (driving) {
      try {
        const [one, list] = await Promise.all([v1alpha1.get('orders'), v1alpha1.list()]);
        if (one.spec?.dbtype !== 'postgres' || list.items.some((o) => o.apiVersion !== 'coolops.cn/v1alpha1'))
          failures.push(`read: not converted: ${JSON.stringify(one)}`);
        counts.reads += 2;
      } catch (e) {
        failures.push(`read: ${(e as Error).message}`);
      }
    }
  })();
  const writer = (async () => {
    for (let i = 0; driving; i++) {
      try {
        const dry = await probe(`dry-${i}`);
        if (dry.spec?.version !== '7.4') failures.push(`create: not defaulted: ${JSON.stringify(dry.spec)}`);
        // an update through v1alpha1: converted for the hooks, validated, converted back for storage
        await v1alpha1.patch('orders', 'application/merge-patch+json', { spec: { replicas: (i % 5) + 1 } });
        counts.writes += 2;
      } catch (e) {
        failures.push(`write: ${(e as Error).message}`);
      }
    }
  })();

  // the Secret sampled as it changes: which CAs, which serving certificates
  const seen = new Map<string, X509Certificate>(); // serving certificates by fingerprint
  const caOf = (s: Secret) => splitPemBundle(Buffer.from(s.data?.['ca.crt'] ?? '', 'base64').toString('utf8'));
  const sample = async () => {
    const s = await secrets.get(SECRET);
    const c = new X509Certificate(Buffer.from(s.data?.['tls.crt'] ?? '', 'base64').toString('utf8'));
    seen.set(c.fingerprint256, c);
    return s;
  };
  try {
    const firstCa = caOf(await sample())[0];
    // the serving certificate renews itself (20 s, a third left) under the first CA
    await waitFor(
      async () => {
        await sample();
        return [...seen.values()].filter((c) => c.verify(new X509Certificate(firstCa).publicKey)).length >= 2;
      },
      60_000,
      'a serving certificate renewed by the same CA',
      logs,
    );
    // then a CA rotation on request
    const s = await secrets.get(SECRET);
    await secrets.update({
      ...s,
      metadata: { ...s.metadata, annotations: { ...s.metadata?.annotations, [CERT_ANNOTATIONS.rotate]: 'ca' } },
    });
    let sawBoth = false;
    const finalCa = await waitFor(
      async () => {
        const cas = caOf(await sample());
        if (cas.length === 2) sawBoth = true;
        return sawBoth && cas.length === 1 && cas[0] !== firstCa ? cas[0] : undefined;
      },
      90_000,
      'the CA rotation to finish (new CA alone in the bundle)',
      logs,
    );
    // both replicas serve a certificate of the new CA (read directly, not through the proxy)
    for (const p of replicaPorts) await waitFor(() => served(p, finalCa), 30_000, `replica :${p} on the new CA`);
    // and every caBundle holds the new CA only
    await waitFor(
      async () => {
        const c = await crds.get('databasemanagers.coolops.cn');
        return Buffer.from(c.spec.conversion.webhook.clientConfig.caBundle, 'base64').toString('utf8') === finalCa;
      },
      30_000,
      'the CRD caBundle to hold the new CA alone',
    );
    // a few more calls on the new CA
    const until = counts.reads + 10;
    await waitFor(() => counts.reads >= until, 30_000, 'reads after the rotation');
  } finally {
    driving = false;
    await Promise.all([reader, writer]);
  }
  assert.deepEqual(
    failures,
    [],
    `${failures.length} failed calls of ${counts.reads + counts.writes + failures.length}`,
  );
  assert.ok(counts.reads > 20 && counts.writes > 20, JSON.stringify(counts));
  // one writer all along
  assert.equal(ops.filter((o) => o.logs.some((l) => l.msg === 'writing the webhook certificates')).length, 1, logs());
  const issuers = new Set([...seen.values()].map((c) => c.issuer));
  assert.ok(issuers.size >= 2, `serving certificates of ${issuers.size} CA(s) seen`);
  process.stderr.write(
    `# webhook-certs e2e: ${counts.reads} reads and ${counts.writes} writes, ${seen.size} serving certificates, ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
});
