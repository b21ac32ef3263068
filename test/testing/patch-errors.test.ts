// Patch bodies the apiserver refuses, with its answers (kube-apiserver v1.37.1): an operation
// that does not apply is the generic 422 with empty details, a body that is not JSON is
// `invalid JSON patch`, and a JSON or merge patch of the wrong shape is `error decoding patch`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { jsonPatch } from '../../src/testing/patch.js';
import { DM_CRD, api, dm } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const CMS = '/api/v1/namespaces/default/configmaps';
const JSONP = { 'Content-Type': 'application/json-patch+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };
const GENERIC = 'the server rejected our request due to an error in our request';

describe('JSON patch operations as evanphx/json-patch v4 applies them', () => {
  it('replace of a missing key of an existing object adds it; of a missing index or parent fails', () => {
    assert.deepEqual(jsonPatch({ data: { a: '1' } }, [{ op: 'replace', path: '/data/b', value: '2' }]), {
      data: { a: '1', b: '2' },
    });
    assert.throws(() => jsonPatch({ l: [1] }, [{ op: 'replace', path: '/l/1', value: 2 }]), new RegExp(GENERIC));
    assert.throws(() => jsonPatch({}, [{ op: 'replace', path: '/x/y', value: 2 }]), new RegExp(GENERIC));
  });

  it('an unknown op and a pointer without a leading slash do not apply (422), they are not a 400', () => {
    for (const op of [
      { op: 'bogus', path: '/a' },
      { op: 'add', path: 'a', value: 1 },
      { op: 'remove', path: '/l/-1' },
    ]) {
      assert.throws(
        () => jsonPatch({ l: [1] }, [op]),
        (e: unknown) => (e as { code?: number }).code === 422,
        JSON.stringify(op),
      );
    }
  });
});

describe('patch errors over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
    await api(env.url, 'POST', DMS, dm('p'));
    await api(env.url, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { a: '1' } });
  });
  after(() => env.stop());

  it('a failed test op or a missing path: 422 with the generic message and empty details, on custom resources and built-ins', async () => {
    for (const [path, ops] of [
      [`${DMS}/p`, [{ op: 'test', path: '/spec/replicas', value: 99 }]],
      [`${DMS}/p`, [{ op: 'remove', path: '/spec/nothing' }]],
      [`${CMS}/p`, [{ op: 'test', path: '/data/a', value: '2' }]],
      [`${CMS}/p`, [{ op: 'add', path: '/nothere/zz', value: 'x' }]],
    ] as const) {
      const r = await api(env.url, 'PATCH', path, ops, JSONP);
      assert.equal(r.status, 422, JSON.stringify(ops));
      assert.equal(r.body.reason, 'Invalid');
      assert.equal(r.body.message, GENERIC);
      assert.deepEqual(r.body.details, {});
    }
  });

  it('a body that is not JSON: 400 invalid JSON patch, for every patch type and before the object is looked up', async () => {
    for (const h of [JSONP, MERGE, SMP]) {
      for (const path of [`${DMS}/p`, `${CMS}/missing`]) {
        const r = await api(env.url, 'PATCH', path, '{not json', h);
        assert.equal(r.status, 400);
        assert.equal(r.body.message, 'invalid JSON patch');
      }
    }
    const empty = await api(env.url, 'PATCH', `${CMS}/p`, '', MERGE);
    assert.equal(empty.body.message, 'invalid JSON patch');
  });

  it('a JSON patch or merge patch of the wrong shape: error decoding patch (Warn, the default), the library message with Ignore', async () => {
    const cases: [string, string, Record<string, string>, string][] = [
      [
        '',
        '{"op":"add"}',
        JSONP,
        'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
      ],
      [
        '',
        '[1]',
        JSONP,
        'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp',
      ],
      [
        '',
        '[{"op":"add","path":5,"value":1}]',
        JSONP,
        'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
      ],
      [
        '?fieldValidation=Ignore',
        '{"op":1}',
        JSONP,
        'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      ],
      [
        '?fieldValidation=Ignore',
        '[1]',
        JSONP,
        'json: cannot unmarshal number into Go value of type jsonpatch.Operation',
      ],
      [
        '',
        '[]',
        MERGE,
        'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
      ],
      [
        '',
        '"x"',
        MERGE,
        'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}',
      ],
    ];
    for (const [q, body, h, message] of cases) {
      const r = await api(env.url, 'PATCH', `${DMS}/p${q}`, body, h);
      assert.equal(r.status, 400, body);
      assert.equal(r.body.message, message);
    }
    const smp = await api(env.url, 'PATCH', `${CMS}/p`, '[]', SMP);
    assert.equal(smp.status, 400);
    assert.equal(smp.body.message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  it('an unknown member of a JSON patch operation is warned about (Warn) and the patch applies', async () => {
    const r = await api(
      env.url,
      'PATCH',
      `${CMS}/p`,
      [{ op: 'replace', path: '/data/a', value: '2', extra: 1 }],
      JSONP,
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.data.a, '2');
    assert.equal(r.headers.warning, '299 - "json patch unknown field \\"[0].extra\\""');
  });
});
