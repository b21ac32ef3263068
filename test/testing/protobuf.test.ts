// Kubernetes protobuf request bodies (what client-go's typed clientsets send for built-in kinds,
// DeleteOptions and Scale, and kubectl ≥ 1.30 for typed creates), decoded into what Go's
// encoding/json writes for the apiserver's Go types.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeKubeProtobuf, goDuration, protobufKinds } from '../../src/testing/protobuf.js';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { builtinResources } from '../../src/testing/builtins.js';
import { groupVersion } from '../../src/testing/resource.js';
import { request } from 'node:http';
import { goClientsBin } from '../support/assets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLES = join(ROOT, 'test/testing/fixtures/protobuf-samples.json');
const TABLE = join(ROOT, 'schema/kubernetes/v1.37.1/protobuf-messages.json');
const samples = JSON.parse(readFileSync(SAMPLES, 'utf8')) as { name: string; protobuf: string; json: unknown }[];
const sample = (name: string): Buffer => Buffer.from(samples.find((s) => s.name === name)!.protobuf, 'base64');

// A tiny encoder for the test: fields are [number, value] with strings/Buffers length-delimited, numbers as varints.
type F = [number, string | number | Buffer | F[]];
function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
function enc(fields: F[]): Buffer {
  return Buffer.concat(
    fields.map(([no, v]) => {
      if (typeof v === 'number') return Buffer.from([...varint(no << 3), ...varint(v)]);
      const payload = typeof v === 'string' ? Buffer.from(v) : Buffer.isBuffer(v) ? v : enc(v);
      return Buffer.concat([Buffer.from([...varint((no << 3) | 2), ...varint(payload.length)]), payload]);
    }),
  );
}
const envelope = (apiVersion: string, kind: string, raw: F[]): Buffer =>
  Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    enc([
      [
        1,
        [
          [1, apiVersion],
          [2, kind],
        ],
      ],
      [2, enc(raw)],
      [3, ''],
      [4, ''],
    ]),
  ]);

describe('protobuf bodies', () => {
  it('decodes a ConfigMap as kubectl sends it (empty strings and zero values dropped)', () => {
    const body = envelope('v1', 'ConfigMap', [
      [
        1,
        [
          [1, 'cm1'],
          [2, ''],
          [3, ''],
          [7, 0],
          [
            11,
            [
              [1, 'app'],
              [2, 'x'],
            ],
          ],
        ],
      ],
      [
        2,
        [
          [1, 'a'],
          [2, 'b'],
        ],
      ],
    ]);
    assert.deepEqual(decodeKubeProtobuf(body), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', labels: { app: 'x' } },
      data: { a: 'b' },
    });
  });

  it('decodes a Deployment: pointer fields keep zero, containers and ports', () => {
    const labels: F = [
      11,
      [
        [1, 'app'],
        [2, 'd'],
      ],
    ];
    const container: F = [
      2,
      [
        [1, 'c'],
        [2, 'nginx'],
        [6, [[3, 80]]],
        [16, 0],
      ],
    ];
    const template: F = [
      3,
      [
        [1, [labels]],
        [2, [container]],
      ],
    ];
    const selector: F = [
      2,
      [
        [
          1,
          [
            [1, 'app'],
            [2, 'd'],
          ],
        ],
      ],
    ];
    const body = envelope('apps/v1', 'Deployment', [
      [1, [[1, 'd']]],
      [2, [[1, 0], selector, template]],
    ]);
    const d = decodeKubeProtobuf(body) as { spec: Record<string, unknown> };
    assert.equal(d.spec.replicas, 0);
    // as encoding/json writes the Go struct: resources is a struct (always written)
    assert.deepEqual(d.spec.template, {
      metadata: { labels: { app: 'd' } },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] },
    });
    assert.deepEqual(d.spec.strategy, {});
  });

  for (const s of samples) {
    it(`decodes client-go's ${s.name} exactly as Go's encoding/json writes it`, () => {
      assert.deepEqual(decodeKubeProtobuf(Buffer.from(s.protobuf, 'base64')), s.json);
    });
  }

  it('has a message for every built-in kind the server serves, DeleteOptions and Scale', () => {
    const kinds = new Set(protobufKinds());
    for (const r of builtinResources())
      assert.ok(kinds.has(`${groupVersion(r)}/${r.kind}`), `${groupVersion(r)} ${r.kind}`);
    assert.ok(kinds.has('*/DeleteOptions') && kinds.has('autoscaling/v1/Scale'));
  });

  it('the table and the samples are what test/clientgo/protobuf-messages writes (scripts/gen-protobuf-messages.sh)', () => {
    const bin = join(goClientsBin(), 'protobuf-messages');
    const source = (JSON.parse(readFileSync(TABLE, 'utf8')) as { source: string }).source;
    assert.equal(
      execFileSync(bin, ['-table', '-source', source], { encoding: 'utf8', maxBuffer: 64 << 20 }),
      readFileSync(TABLE, 'utf8'),
      'run scripts/gen-protobuf-messages.sh',
    );
    assert.equal(
      execFileSync(bin, ['-samples'], { encoding: 'utf8', maxBuffer: 64 << 20 }),
      readFileSync(SAMPLES, 'utf8'),
      'run scripts/gen-protobuf-messages.sh',
    );
  });

  it("Go's Duration strings", () => {
    assert.equal(goDuration(0n), '0s');
    assert.equal(goDuration(1500n), '1.5µs');
    assert.equal(goDuration(2_000_000n), '2ms');
    assert.equal(goDuration(90_000_000_000n), '1m30s');
    assert.equal(goDuration(3_600_000_000_001n), '1h0m0.000000001s');
    assert.equal(goDuration(-5_000_000_000n), '-5s');
  });

  it('refuses other kinds with 415 and a message that says what to send', () => {
    assert.throws(() => decodeKubeProtobuf(envelope('v1', 'Pod', [])), /send application\/json/);
    assert.throws(() => decodeKubeProtobuf(Buffer.from('nope')), /lacks the k8s envelope/);
  });

  describe('over HTTP', () => {
    let env: TestApiServer;
    before(async () => {
      env = await startTestApiServer();
    });
    after(() => env.stop());

    it('creates a Namespace from a protobuf body and answers JSON', async () => {
      const body = envelope('v1', 'Namespace', [[1, [[1, 'pb-ns']]]]);
      const res = await new Promise<{
        status: number;
        json: { metadata: { name: string }; status: { phase: string } };
      }>((resolve, reject) => {
        const req = request(
          `${env.url}/api/v1/namespaces`,
          {
            method: 'POST',
            headers: {
              'Content-Type': 'application/vnd.kubernetes.protobuf',
              Accept: 'application/vnd.kubernetes.protobuf,application/json',
            },
            agent: false,
          },
          (r) => {
            let s = '';
            r.on('data', (c: Buffer) => (s += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(s) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(res.status, 201);
      assert.equal(res.json.metadata.name, 'pb-ns');
      assert.equal(res.json.status.phase, 'Active');
    });

    const send = (method: string, path: string, body: Buffer): Promise<{ status: number; json: any }> =>
      new Promise((resolve, reject) => {
        const req = request(
          `${env.url}${path}`,
          {
            method,
            headers: {
              'Content-Type': 'application/vnd.kubernetes.protobuf',
              'Content-Length': String(body.length),
              Accept: 'application/vnd.kubernetes.protobuf,application/json',
            },
            agent: false,
          },
          (r) => {
            let s = '';
            r.on('data', (c: Buffer) => (s += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(s) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    it("takes a Deployment's status, a Scale and DeleteOptions in protobuf (client-go's UpdateStatus, UpdateScale, Delete)", async () => {
      const d = await send('POST', '/apis/apps/v1/namespaces/default/deployments', sample('deployment'));
      assert.equal(d.status, 201, d.json.message);
      assert.equal(d.json.spec.template.spec.containers[0].livenessProbe.httpGet.port, 'http');
      assert.deepEqual(
        d.json.spec.template.spec.volumes.map((v: { name: string }) => v.name),
        ['config', 'scratch', 'creds'],
      );
      const st = await send('PUT', '/apis/apps/v1/namespaces/default/deployments/web/status', sample('deployment'));
      assert.equal(st.status, 200, st.json.message);
      assert.equal(st.json.status.availableReplicas, 1);
      assert.equal(st.json.status.conditions[0].lastTransitionTime, '2026-01-02T03:04:05Z');
      // the sample Scale names Deployment "d" and asks for 0 replicas
      assert.equal(
        (await send('POST', '/apis/apps/v1/namespaces/default/deployments', sample('empty deployment'))).status,
        422,
        'an empty Deployment is invalid',
      );
      const made = await new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'd' },
          spec: {
            replicas: 2,
            selector: { matchLabels: { a: 'b' } },
            template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          },
        });
        const req = request(
          `${env.url}/apis/apps/v1/namespaces/default/deployments`,
          { method: 'POST', headers: { 'Content-Type': 'application/json' }, agent: false },
          (r) => (r.resume(), resolve(r.statusCode ?? 0)),
        );
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(made, 201);
      const sc = await send('PUT', '/apis/apps/v1/namespaces/default/deployments/d/scale', sample('scale'));
      assert.equal(sc.status, 200, sc.json.message);
      assert.equal(sc.json.kind, 'Scale');
      assert.equal(sc.json.spec.replicas, 0);
      const del = await send('DELETE', '/apis/apps/v1/namespaces/default/deployments/web', sample('delete options'));
      assert.equal(del.status, 200, del.json.message);
      assert.equal(del.json.status, 'Success');
    });
  });
});
