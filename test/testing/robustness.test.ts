// The server never crashes and never loses objects on bad requests: random methods,
// paths, content types and bodies get a Status (never a 5xx; a path no API serves gets the
// apiserver's text 404), and stored objects survive.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, dm, watch } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

describe('robustness', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
    await api(env.url, 'POST', DMS, dm('anchor'));
  });
  after(() => env.stop());

  it('random requests get a JSON answer below 500, and stored objects survive', async () => {
    const segment = fc.constantFrom(
      'api',
      'apis',
      'v1',
      'coolops.cn',
      'v1alpha1',
      'namespaces',
      'default',
      'databasemanagers',
      'anchor',
      'status',
      'scale',
      'watch',
      '%',
      '%zz',
      '..',
      'x',
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.json(),
      fc.constant(
        '{"apiVersion":"coolops.cn/v1alpha1","kind":"DatabaseManager","metadata":{"name":"anchor"},"spec":{"replicas":"many"}}',
      ),
      fc.constant('[{"op":"remove","path":"/metadata"}]'),
      fc.constant('{"metadata":null}'),
    );
    const ct = fc.constantFrom(
      'application/json',
      'application/yaml',
      'application/merge-patch+json',
      'application/json-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
      'application/vnd.kubernetes.protobuf',
      'text/plain',
    );
    const query = fc.constantFrom(
      '',
      '?watch=false',
      '?limit=-1',
      '?labelSelector=%28%28',
      '?fieldSelector=x',
      '?resourceVersion=abc',
      '?continue=zzz',
      '?fieldManager=t&force=true',
      '?dryRun=All',
      '?propagationPolicy=Nope',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        fc.array(segment, { maxLength: 8 }),
        query,
        ct,
        body,
        async (method, segs, q, type, b) => {
          if (method === 'GET' && q === '' && segs.includes('watch')) return; // a valid watch stays open
          const path = `/${segs.join('/')}${q}`;
          if (/watch=true|\/watch\//.test(path) && method === 'GET') return;
          const r = await api(
            env.url,
            method,
            path,
            b === undefined ? undefined : typeof b === 'string' ? b : JSON.stringify(b),
            b === undefined ? {} : { 'Content-Type': type },
          );
          assert.ok(r.status < 500, `${method} ${path} (${type}) → ${r.status} ${JSON.stringify(r.body)}`);
          if (r.status === 404 && r.body === '404 page not found\n') return;
          if (r.status >= 400) assert.equal(r.body.kind, 'Status', `${method} ${path}: ${JSON.stringify(r.body)}`);
        },
      ),
      { numRuns: 150, seed: 4 },
    );
    const anchor = await api(env.url, 'GET', `${DMS}/anchor`);
    assert.ok(anchor.status === 200 || anchor.status === 404);
    const list = await api(env.url, 'GET', DMS);
    assert.equal(list.status, 200);
  });

  it('a client that disconnects mid-watch does not disturb the server', async () => {
    for (let i = 0; i < 20; i++) {
      const w = await watch(env.url, `${DMS}?watch=true`);
      w.close();
    }
    assert.equal((await api(env.url, 'POST', DMS, dm('after-watches'))).status, 201);
  });
});
