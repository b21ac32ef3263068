// Kubernetes protobuf request bodies (what kubectl ≥ 1.30 sends for typed creates).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubeProtobuf } from '../../src/testing/protobuf.js';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { request } from 'node:http';

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
  Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), enc([[1, [[1, apiVersion], [2, kind]]], [2, enc(raw)], [3, ''], [4, '']])]);

describe('protobuf bodies', () => {
  it('decodes a ConfigMap as kubectl sends it (empty strings and zero values dropped)', () => {
    const body = envelope('v1', 'ConfigMap', [
      [1, [[1, 'cm1'], [2, ''], [3, ''], [7, 0], [11, [[1, 'app'], [2, 'x']]]]],
      [2, [[1, 'a'], [2, 'b']]],
    ]);
    assert.deepEqual(decodeKubeProtobuf(body), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', labels: { app: 'x' } }, data: { a: 'b' } });
  });

  it('decodes a Deployment: pointer fields keep zero, containers and ports', () => {
    const labels: F = [11, [[1, 'app'], [2, 'd']]];
    const container: F = [2, [[1, 'c'], [2, 'nginx'], [6, [[3, 80]]], [16, 0]]];
    const template: F = [3, [[1, [labels]], [2, [container]]]];
    const selector: F = [2, [[1, [[1, 'app'], [2, 'd']]]]];
    const body = envelope('apps/v1', 'Deployment', [[1, [[1, 'd']]], [2, [[1, 0], selector, template]]]);
    const d = decodeKubeProtobuf(body) as { spec: Record<string, unknown> };
    assert.equal(d.spec.replicas, 0);
    assert.deepEqual(d.spec.template, { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } });
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
      const res = await new Promise<{ status: number; json: { metadata: { name: string }; status: { phase: string } } }>((resolve, reject) => {
        const req = request(`${env.url}/api/v1/namespaces`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf,application/json' }, agent: false }, (r) => {
          let s = '';
          r.on('data', (c: Buffer) => (s += c.toString()));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(s) }));
        });
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(res.status, 201);
      assert.equal(res.json.metadata.name, 'pb-ns');
      assert.equal(res.json.status.phase, 'Active');
    });
  });
});
