// The apiserver's size limits: annotations (keys and values) at most 256 KiB in total on
// every write path (422 with a FieldValueTooLong cause), request bodies at most 3 MiB (413).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, deployment, dm } from './helpers.js';
import type { Res } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const LIMIT = 262144;
const KEY = 'example.com/blob';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

/** Annotations whose keys and values take exactly `bytes` bytes. */
function annotations(bytes: number, value = 'x'): Record<string, string> {
  const unit = Buffer.byteLength(value);
  const n = Math.floor((bytes - KEY.length) / unit);
  return { [KEY]: value.repeat(n) + 'y'.repeat(bytes - KEY.length - n * unit) };
}

function tooLong(kind: string, group: string, name: string): unknown {
  const qualified = group ? `${kind}.${group}` : kind;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${qualified} "${name}" is invalid: metadata.annotations: Too long: must have at most ${LIMIT} bytes`,
    reason: 'Invalid',
    details: {
      name,
      group,
      kind,
      causes: [
        {
          reason: 'FieldValueTooLong',
          message: `Too long: must have at most ${LIMIT} bytes`,
          field: 'metadata.annotations',
        },
      ],
    },
    code: 422,
  };
}

const TOO_LARGE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Request entity too large: limit is 3145728',
  reason: 'RequestEntityTooLarge',
  code: 413,
};

/** Sends a body in chunks without Content-Length (Transfer-Encoding: chunked). */
function chunked(base: string, method: string, path: string, text: string, contentType: string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      { method, headers: { 'Content-Type': contentType, Accept: 'application/json' }, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(parts).toString('utf8')),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', (e) => {
      // The server may answer and close before the whole body is sent.
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE' && (e as NodeJS.ErrnoException).code !== 'ECONNRESET')
        reject(e);
    });
    for (let i = 0; i < text.length; i += 256 * 1024) req.write(text.slice(i, i + 256 * 1024));
    req.end();
  });
}

describe('annotation size limit (256 KiB)', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('create: exactly 262144 bytes is accepted, one byte more is 422 with the apiserver Status', async () => {
    const ok = await api(env.url, 'POST', DMS, {
      ...dm('at-limit'),
      metadata: { name: 'at-limit', annotations: annotations(LIMIT) },
    });
    assert.equal(ok.status, 201);
    const r = await api(env.url, 'POST', DMS, {
      ...dm('big'),
      metadata: { name: 'big', annotations: annotations(LIMIT + 1) },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, tooLong('DatabaseManager', 'coolops.cn', 'big'));
    assert.equal((await api(env.url, 'GET', `${DMS}/big`)).status, 404);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const r = await api(env.url, 'POST', DMS, {
      ...dm('utf8'),
      metadata: { name: 'utf8', annotations: { [KEY]: 'é'.repeat(LIMIT / 2) } },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, tooLong('DatabaseManager', 'coolops.cn', 'utf8'));
  });

  it('update, merge patch, JSON patch and apply patch are refused the same way; the object is unchanged', async () => {
    const created = await api(env.url, 'POST', DMS, dm('grow'));
    assert.equal(created.status, 201);
    const put = await api(env.url, 'PUT', `${DMS}/grow`, {
      ...created.body,
      metadata: { ...created.body.metadata, annotations: annotations(LIMIT + 1) },
    });
    assert.deepEqual([put.status, put.body], [422, tooLong('DatabaseManager', 'coolops.cn', 'grow')]);
    const merge = await api(
      env.url,
      'PATCH',
      `${DMS}/grow`,
      { metadata: { annotations: annotations(LIMIT + 1) } },
      MERGE,
    );
    assert.deepEqual([merge.status, merge.body], [422, tooLong('DatabaseManager', 'coolops.cn', 'grow')]);
    const json = await api(
      env.url,
      'PATCH',
      `${DMS}/grow`,
      [{ op: 'add', path: '/metadata/annotations', value: annotations(LIMIT + 1) }],
      {
        'Content-Type': 'application/json-patch+json',
      },
    );
    assert.deepEqual([json.status, json.body], [422, tooLong('DatabaseManager', 'coolops.cn', 'grow')]);
    const apply = await api(
      env.url,
      'PATCH',
      `${DMS}/grow?fieldManager=test`,
      { ...dm('grow'), metadata: { name: 'grow', annotations: annotations(LIMIT + 1) } },
      {
        'Content-Type': 'application/apply-patch+yaml',
      },
    );
    assert.deepEqual([apply.status, apply.body], [422, tooLong('DatabaseManager', 'coolops.cn', 'grow')]);
    const now = await api(env.url, 'GET', `${DMS}/grow`);
    assert.equal(now.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    assert.equal(now.body.metadata.annotations, undefined);
  });

  it('built-in kinds too: a strategic merge patch on a Deployment', async () => {
    assert.equal((await api(env.url, 'POST', DEPLOYS, deployment('web'))).status, 201);
    const r = await api(
      env.url,
      'PATCH',
      `${DEPLOYS}/web`,
      { metadata: { annotations: annotations(LIMIT + 1) } },
      {
        'Content-Type': 'application/strategic-merge-patch+json',
      },
    );
    assert.deepEqual([r.status, r.body], [422, tooLong('Deployment', 'apps', 'web')]);
  });

  it('annotation keys must be qualified names (case ignored)', async () => {
    const ok = await api(env.url, 'POST', DMS, {
      ...dm('keys'),
      metadata: { name: 'keys', annotations: { 'Example.COM/Some-Key': 'v' } },
    });
    assert.equal(ok.status, 201);
    const r = await api(env.url, 'POST', DMS, {
      ...dm('badkey'),
      metadata: { name: 'badkey', annotations: { 'bad key!': 'v' } },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
        field: 'metadata.annotations',
      },
    ]);
  });
});

describe('request body limit (3 MiB)', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('POST, PUT and PATCH over 3 MiB get 413 with the apiserver Status, with or without Content-Length', async () => {
    const huge = JSON.stringify({ ...dm('huge'), spec: { pad: 'x'.repeat(3 * 1024 * 1024) } });
    const post = await api(env.url, 'POST', DMS, huge);
    assert.deepEqual([post.status, post.body], [413, TOO_LARGE]);
    const created = await api(env.url, 'POST', DMS, dm('target'));
    assert.equal(created.status, 201);
    const put = await api(env.url, 'PUT', `${DMS}/target`, huge);
    assert.deepEqual([put.status, put.body], [413, TOO_LARGE]);
    const patch = await chunked(env.url, 'PATCH', `${DMS}/target`, huge, 'application/merge-patch+json');
    assert.deepEqual([patch.status, patch.body], [413, TOO_LARGE]);
    const chunkedPost = await chunked(env.url, 'POST', DMS, huge, 'application/json');
    assert.deepEqual([chunkedPost.status, chunkedPost.body], [413, TOO_LARGE]);
    const after = await api(env.url, 'GET', `${DMS}/target`);
    assert.equal(after.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  it('a body of exactly 3 MiB is read (and judged on its content)', async () => {
    const base = JSON.stringify({
      ...dm('exact'),
      metadata: { name: 'exact' },
      spec: { deploymentName: 'exact', replicas: 1, dbtype: 'mysql', pad: '' },
    });
    const text = base.replace('"pad":""', `"pad":"${'x'.repeat(3 * 1024 * 1024 - base.length)}"`);
    assert.equal(Buffer.byteLength(text), 3 * 1024 * 1024);
    const r = await api(env.url, 'POST', DMS, text);
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    assert.equal(r.body.spec.pad, undefined, 'the unknown field is pruned');
  });
});
