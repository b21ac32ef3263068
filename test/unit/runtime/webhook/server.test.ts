// The webhook server with a real HTTPS client trusting the generated CA: admission (a defaulting
// hook's JSON patch, a validating hook's 422 with causes and warnings, DELETE), conversion,
// every kind of bad request answered (never a crash), and a certificate rotated on disk served
// to new connections without a restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonPatch from 'fast-json-patch';
import { generateCertificateSet, type CertificateSet } from '../../../../src/testing/index.js';
import {
  startWebhookServer,
  type WebhookServer,
  defaultingHandler,
  validatingHandler,
  AdmissionDenied,
  type AdmissionReview,
  type KubeObject,
} from '../../../../src/runtime/index.js';
import { invalid, forbidden } from '../../../../src/runtime/validation/field-error.js';
import { databaseConversion, v1alpha1 } from './fixtures.js';

type Spec = { engine?: string; version?: string; replicas?: number };
type Db = KubeObject & { spec: Spec };

const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhook-'));
let certs: CertificateSet;
let server: WebhookServer;

function writeCerts(set: CertificateSet): void {
  // as a Secret volume updates: new files written aside, then moved in
  writeFileSync(join(dir, 'tls.crt.new'), set.cert);
  writeFileSync(join(dir, 'tls.key.new'), set.key);
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
}

before(async () => {
  certs = await generateCertificateSet(['127.0.0.1', 'localhost']);
  writeCerts(certs);
  server = await startWebhookServer({
    bindAddress: '127.0.0.1:0',
    certDir: dir,
    maxRequestBytes: 64 * 1024,
    certPollIntervalMs: 200,
  });
  server.admission(
    '/mutate',
    defaultingHandler<Db>((obj) => {
      if (obj.spec.version === undefined) obj.spec.version = obj.spec.engine === 'postgres' ? '16' : '8.0';
    }),
  );
  server.admission(
    '/validate',
    validatingHandler<Db>(
      (obj, old, op) => {
        if (op === 'DELETE')
          return obj.metadata?.labels?.protected ? { denied: 'this database is protected' } : undefined;
        if (obj.spec.engine === 'boom') throw new Error('hook crashed');
        if (obj.spec.engine === 'nope') throw new AdmissionDenied('engines named nope are not allowed');
        if (old && old.spec.engine !== obj.spec.engine)
          return [forbidden('spec.engine', 'a database cannot change engine in place; create a new DatabaseManager')];
        const warnings = obj.spec.replicas === 1 ? ['one replica has no failover'] : [];
        if ((obj.spec.replicas ?? 1) > 5)
          return { errors: [invalid('spec.replicas', obj.spec.replicas, 'at most 5 for this engine')], warnings };
        return { warnings };
      },
      { kind: { group: 'coolops.cn', kind: 'DatabaseManager' } },
    ),
  );
  server.conversion('/convert', [databaseConversion]);
});

after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(
  path: string,
  body: string | Buffer,
  opts: { ca?: string; contentType?: string; method?: string } = {},
): Promise<{ status: number; body: string; peerCert: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: opts.method ?? 'POST',
        ca: opts.ca ?? certs.caCert,
        headers: { 'content-type': opts.contentType ?? 'application/json' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            peerCert: (res.socket as import('node:tls').TLSSocket).getPeerCertificate?.().fingerprint256 ?? '',
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function review(operation: string, object: unknown, oldObject?: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'coolops.cn', version: 'v1', kind: 'DatabaseManager' },
      resource: { group: 'coolops.cn', version: 'v1', resource: 'databasemanagers' },
      name: 'db',
      namespace: 'default',
      operation,
      userInfo: { username: 'admin' },
      object: object ?? null,
      oldObject: oldObject ?? null,
    },
  });
}

const db = (spec: Spec, labels?: Record<string, string>): Db => ({
  apiVersion: 'coolops.cn/v1',
  kind: 'DatabaseManager',
  metadata: { name: 'db', namespace: 'default', ...(labels ? { labels } : {}) },
  spec,
});

async function answer(path: string, body: string): Promise<NonNullable<AdmissionReview['response']>> {
  const r = await post(path, body);
  assert.equal(r.status, 200);
  const parsed = JSON.parse(r.body) as AdmissionReview;
  assert.equal(parsed.apiVersion, 'admission.k8s.io/v1');
  assert.equal(parsed.kind, 'AdmissionReview');
  return parsed.response!;
}

test('mutating: the answer is a base64 JSON patch that turns the object sent into the defaulted one', async () => {
  const obj = db({ engine: 'postgres' });
  const res = await answer('/mutate', review('CREATE', obj));
  assert.equal(res.uid, 'uid-1');
  assert.equal(res.allowed, true);
  assert.equal(res.patchType, 'JSONPatch');
  const ops = JSON.parse(Buffer.from(res.patch!, 'base64').toString('utf8')) as jsonPatch.Operation[];
  assert.deepEqual(ops, [{ op: 'add', path: '/spec/version', value: '16' }]);
  assert.deepEqual(
    jsonPatch.applyPatch(structuredClone(obj), ops).newDocument,
    db({ engine: 'postgres', version: '16' }),
  );
  // nothing to change: allowed, no patch
  const same = await answer('/mutate', review('CREATE', db({ engine: 'mysql', version: '5.7' })));
  assert.deepEqual(same, { uid: 'uid-1', allowed: true });
});

test('validating: allowed with warnings; field errors as the apiserver 422; a transition refused', async () => {
  assert.deepEqual(await answer('/validate', review('CREATE', db({ engine: 'mysql', replicas: 1 }))), {
    uid: 'uid-1',
    allowed: true,
    warnings: ['one replica has no failover'],
  });
  const tooMany = await answer('/validate', review('CREATE', db({ engine: 'mysql', replicas: 7 })));
  assert.equal(tooMany.allowed, false);
  assert.deepEqual(tooMany.status, {
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: 'DatabaseManager.coolops.cn "db" is invalid: spec.replicas: Invalid value: 7: at most 5 for this engine',
    details: {
      name: 'db',
      group: 'coolops.cn',
      kind: 'DatabaseManager',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 7: at most 5 for this engine', field: 'spec.replicas' },
      ],
    },
  });
  const changed = await answer('/validate', review('UPDATE', db({ engine: 'postgres' }), db({ engine: 'mysql' })));
  assert.equal(changed.allowed, false);
  assert.equal(
    changed.status?.message,
    'DatabaseManager.coolops.cn "db" is invalid: spec.engine: Forbidden: a database cannot change engine in place; create a new DatabaseManager',
  );
  // DELETE validates the object being deleted (oldObject)
  const del = await answer('/validate', review('DELETE', null, db({ engine: 'mysql' }, { protected: 'yes' })));
  assert.deepEqual(del.status, {
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message: 'this database is protected',
  });
  assert.equal((await answer('/validate', review('DELETE', null, db({ engine: 'mysql' })))).allowed, true);
});

test('a hook that throws: denied with 500 and its message; AdmissionDenied: its code', async () => {
  assert.deepEqual((await answer('/validate', review('CREATE', db({ engine: 'boom' })))).status, {
    status: 'Failure',
    code: 500,
    message: 'hook crashed',
  });
  assert.deepEqual((await answer('/validate', review('CREATE', db({ engine: 'nope' })))).status, {
    status: 'Failure',
    code: 403,
    reason: 'Forbidden',
    message: 'engines named nope are not allowed',
  });
});

test('bad reviews get a well-formed AdmissionReview with allowed false and code 400; the server keeps serving', async () => {
  const cases: [string | Buffer, string | undefined, RegExp][] = [
    ['', undefined, /request body is empty/],
    ['{not json', undefined, /not JSON/],
    ['[]', undefined, /not a JSON object/],
    [
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }),
      undefined,
      /expected an admission\.k8s\.io\/v1 AdmissionReview/,
    ],
    [JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), undefined, /has no request/],
    [
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x', operation: 'EXPLODE' },
      }),
      undefined,
      /unknown operation "EXPLODE"/,
    ],
    [
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x', operation: 'CREATE', object: 'str' },
      }),
      undefined,
      /object is not an object/,
    ],
    [
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x', operation: 'CREATE' },
      }),
      undefined,
      /no object to validate/,
    ],
    [review('CREATE', db({})), 'text/plain', /contentType=text\/plain, expected application\/json/],
    [Buffer.alloc(70 * 1024, 0x20), undefined, /larger than 65536 bytes/],
  ];
  for (const [body, ct, re] of cases) {
    const r = await post('/validate', body, ct ? { contentType: ct } : {});
    assert.equal(r.status, 200, `HTTP 200 for ${String(body).slice(0, 40)}`);
    const parsed = JSON.parse(r.body) as AdmissionReview;
    assert.equal(parsed.kind, 'AdmissionReview');
    assert.equal(parsed.response?.allowed, false);
    assert.ok(parsed.response?.status?.code === 400, `code 400 for ${String(body).slice(0, 40)}: ${r.body}`);
    assert.match(parsed.response?.status?.message ?? '', re);
  }
  assert.equal((await post('/nowhere', '{}')).status, 404);
  assert.equal((await post('/validate', '', { method: 'GET' })).status, 405);
  assert.equal((await answer('/validate', review('CREATE', db({ engine: 'mysql' })))).allowed, true);
});

test('conversion over HTTPS: a ConversionReview converted; a bad one a Failure result', async () => {
  const r = await post(
    '/convert',
    JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c1', desiredAPIVersion: 'coolops.cn/v1', objects: [v1alpha1({ dbtype: 'mysql' })] },
    }),
  );
  const parsed = JSON.parse(r.body) as {
    response: { uid: string; result: { status: string }; convertedObjects: { apiVersion: string; spec: unknown }[] };
  };
  assert.equal(parsed.response.uid, 'c1');
  assert.equal(parsed.response.result.status, 'Success');
  assert.deepEqual(
    parsed.response.convertedObjects.map((o) => [o.apiVersion, o.spec]),
    [['coolops.cn/v1', { engine: 'mysql' }]],
  );
  const bad = JSON.parse((await post('/convert', '{oops')).body) as {
    kind: string;
    response: { result: { status: string; message: string } };
  };
  assert.equal(bad.kind, 'ConversionReview');
  assert.equal(bad.response.result.status, 'Failure');
  assert.match(bad.response.result.message, /not JSON/);
});

test('a certificate rotated on disk is served to new connections without a restart; a broken pair is not taken', async () => {
  const before = await post('/validate', review('CREATE', db({ engine: 'mysql' })));
  const next = await generateCertificateSet(['127.0.0.1']);
  writeCerts(next);
  // picked up by the watch or the 200 ms poll; bounded wait, no fixed sleep
  const deadline = Date.now() + 30_000;
  let served = '';
  for (;;) {
    try {
      served = (await post('/validate', review('CREATE', db({ engine: 'mysql' })), { ca: next.caCert })).peerCert;
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.notEqual(served, before.peerCert);
  // the old CA no longer verifies the server
  await assert.rejects(
    post('/validate', review('CREATE', db({})), { ca: certs.caCert }),
    /self-signed|unable to verify|certificate/i,
  );
  // a key that does not match the certificate: kept out, the last good pair serves on
  writeFileSync(join(dir, 'tls.key'), certs.key);
  await server.certs.reload();
  assert.equal(server.certs.current().cert, next.cert);
  assert.equal((await post('/validate', review('CREATE', db({ engine: 'mysql' })), { ca: next.caCert })).status, 200);
  writeFileSync(join(dir, 'tls.key'), next.key);
  certs = next;
});

test('a certificate folder without the files: a clear start-up error', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'crdgen-webhook-empty-'));
  try {
    await assert.rejects(
      startWebhookServer({ bindAddress: '127.0.0.1:0', certDir: empty }),
      /cannot read the webhook serving certificate: .*tls\.crt and tls\.key/,
    );
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
