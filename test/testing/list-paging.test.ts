// Paging a large list with limit/continue: every page comes from the snapshot at the first
// page's resourceVersion while objects change in between, remainingItemCount counts down,
// selectors fill pages, and a continue token past the history gets the apiserver's 410.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import type { KubeObject } from '../../src/runtime/index.js';
import { DM_CRD, api, dm } from './helpers.js';

const base = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const TOTAL = 1000;

function labelled(name: string, parity: string): KubeObject {
  const o = dm(name) as KubeObject;
  o.metadata!.labels = { ...o.metadata!.labels, parity };
  return o;
}

const name = (i: number): string => `dm-${String(i).padStart(4, '0')}`;
const summary = (items: { metadata: { name: string; resourceVersion: string } }[]): string[] =>
  items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);

describe('list paging over a large collection', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
    const objs: KubeObject[] = [];
    for (let i = 0; i < TOTAL; i++) objs.push(labelled(name(i), i % 2 ? 'odd' : 'even'));
    await env.create(objs);
  });
  after(() => env.stop());

  it('pages through the snapshot of the first page while objects are created, changed and deleted', async () => {
    const first = await api(env.url, 'GET', `${base}?limit=37`);
    assert.equal(first.status, 200);
    const rv = first.body.metadata.resourceVersion;
    const snapshot = await api(env.url, 'GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(snapshot.body.items.length, TOTAL);
    const seen = [...first.body.items];
    let page = first;
    let pages = 1;
    for (let n = 0; page.body.metadata.continue && n < TOTAL; n++) {
      assert.equal(page.body.metadata.remainingItemCount, TOTAL - seen.length);
      // Writes between pages: a later object deleted, one changed, a new one created.
      const later = 200 + n * 5;
      if (later < TOTAL) {
        await api(env.url, 'DELETE', `${base}/${name(later)}`);
        await api(
          env.url,
          'PATCH',
          `${base}/${name(later + 1)}`,
          { spec: { replicas: 3 } },
          { 'Content-Type': 'application/merge-patch+json' },
        );
      }
      await api(env.url, 'POST', base, labelled(`dm-${String(n).padStart(4, '0')}-new`, 'new'));
      page = await api(env.url, 'GET', `${base}?limit=37&continue=${encodeURIComponent(page.body.metadata.continue)}`);
      assert.equal(page.status, 200);
      assert.equal(page.body.metadata.resourceVersion, rv);
      seen.push(...page.body.items);
      pages++;
    }
    assert.equal(pages, Math.ceil(TOTAL / 37));
    assert.equal(page.body.metadata.continue, '', 'a custom resource list (unstructured) always carries continue');
    assert.equal(page.body.metadata.remainingItemCount, undefined);
    assert.deepEqual(summary(seen), summary(snapshot.body.items));
    assert.ok(
      seen.every((o: { spec: { replicas: number } }) => o.spec.replicas === 2),
      'changes made after the snapshot are not seen',
    );
    const now = await api(env.url, 'GET', `${base}?limit=5000`);
    assert.notDeepEqual(summary(now.body.items), summary(seen));
  });

  it('a label selector fills each page; no remainingItemCount', async () => {
    const even: string[] = [];
    let page = await api(env.url, 'GET', `${base}?limit=50&labelSelector=parity%3Deven`);
    for (let n = 0; n < TOTAL; n++) {
      even.push(...page.body.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      assert.equal(page.body.metadata.remainingItemCount, undefined);
      if (!page.body.metadata.continue) break;
      assert.equal(page.body.items.length, 50);
      page = await api(
        env.url,
        'GET',
        `${base}?limit=50&labelSelector=parity%3Deven&continue=${encodeURIComponent(page.body.metadata.continue)}`,
      );
    }
    const all = await api(env.url, 'GET', `${base}?labelSelector=parity%3Deven`);
    assert.deepEqual(
      even,
      all.body.items.map((o: { metadata: { name: string } }) => o.metadata.name),
    );
    assert.ok(even.length > 400);
  });

  it("a token with revision 0, no start key, another version or that is not JSON is refused with 400, in the apiserver's words", async () => {
    const cases: [unknown, string][] = [
      [{ v: 'meta.k8s.io/v1', rv: 0, start: '/x' }, 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [{ v: 'meta.k8s.io/v1', rv: 5, start: '' }, 'encoded start key empty (version meta.k8s.io/v1)'],
      [{ v: 'v2', rv: 5, start: 'a' }, 'server does not recognize this encoded version v2'],
    ];
    for (const [t, why] of cases) {
      const token = Buffer.from(JSON.stringify(t)).toString('base64url');
      const r = await api(env.url, 'GET', `${base}?limit=2&continue=${token}`);
      assert.equal(r.status, 400);
      assert.equal(r.body.message, `invalid continue token: continue key is not valid: ${why}`);
    }
    const garbage = await api(env.url, 'GET', `${base}?limit=2&continue=garbage`);
    assert.equal(
      garbage.body.message,
      "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value",
    );
  });
});

describe('an expired continue token', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD], historyLimit: 20 });
    await env.create(Array.from({ length: 30 }, (_, i) => dm(name(i)) as KubeObject));
  });
  after(() => env.stop());

  it('gets 410 Expired with a token that continues from the same key at the latest revision', async () => {
    const p1 = await api(env.url, 'GET', `${base}?limit=10`);
    for (let i = 0; i < 25; i++) {
      await api(
        env.url,
        'PATCH',
        `${base}/${name(29)}`,
        { spec: { replicas: (i % 9) + 1 } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
    }
    await api(env.url, 'DELETE', `${base}/${name(15)}`);
    const gone = await api(
      env.url,
      'GET',
      `${base}?limit=10&continue=${encodeURIComponent(p1.body.metadata.continue)}`,
    );
    assert.equal(gone.status, 410);
    const token = gone.body.metadata.continue;
    assert.equal(typeof token, 'string');
    assert.deepEqual(gone.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { continue: token },
      status: 'Failure',
      message:
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      reason: 'Expired',
      code: 410,
    });
    const rest = await api(env.url, 'GET', `${base}?limit=10&continue=${encodeURIComponent(token)}`);
    assert.equal(rest.status, 200);
    const names = rest.body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    assert.deepEqual(
      names,
      [10, 11, 12, 13, 14, 16, 17, 18, 19, 20].map(name),
      'the latest state, from the key after page 1',
    );
    assert.ok(Number(rest.body.metadata.resourceVersion) > Number(p1.body.metadata.resourceVersion));
    assert.equal(rest.body.metadata.remainingItemCount, 9);
  });
});
