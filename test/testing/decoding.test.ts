// Request bodies decoded as kube-apiserver v1.37.1 decodes them: a built-in's unknown fields
// (from the committed OpenAPI) dropped, warned about or refused; duplicate JSON members on
// every resource; the type errors of Go's JSON decoder; the same for the result of a patch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { base64Error, decodeBuiltinJson, duplicateFields, unknownMetadataFields } from '../../src/testing/decode.js';
import { DM_CRD, api, deployment, dm } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const CMS = '/api/v1/namespaces/default/configmaps';
const DEPS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };

/** The Warning header's texts (testenv joins them in one header, as Node reads several). */
function warnings(h: Record<string, string | string[] | undefined>): string[] {
  const w = h.warning;
  if (w === undefined) return [];
  return [...String(w).matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
}

describe('decoding functions', () => {
  it('unknown and duplicate fields of a built-in in document order; a duplicate inside an unknown field is not seen', () => {
    const r = decodeBuiltinJson(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","bogus":1,"name":"y"},"data":{"a":"1","a":"2"},"zz":1,"bogus":{"q":1,"q":2}}',
      '',
      'v1',
      'ConfigMap',
    );
    assert.deepEqual(r, {
      strict: [
        'unknown field "metadata.bogus"',
        'duplicate field "metadata.name"',
        'duplicate field "data.a"',
        'unknown field "zz"',
        'unknown field "bogus"',
      ],
    });
    const d = decodeBuiltinJson(
      '{"spec":{"template":{"spec":{"containers":[{"name":"c","bogus":1,"name":"d"}]}}}}',
      'apps',
      'v1',
      'Deployment',
    );
    assert.deepEqual(d.strict, [
      'unknown field "spec.template.spec.containers[0].bogus"',
      'duplicate field "spec.template.spec.containers[0].name"',
    ]);
  });

  it('the first type error as encoding/json words it; an IntOrString error aborts at once', () => {
    const dep = (spec: unknown): string | undefined =>
      decodeBuiltinJson(JSON.stringify({ spec }), 'apps', 'v1', 'Deployment').error;
    assert.equal(
      dep({ replicas: '3' }),
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    assert.equal(
      decodeBuiltinJson('{"spec":{"replicas":3.5}}', 'apps', 'v1', 'Deployment').error,
      'json: cannot unmarshal number 3.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    assert.equal(
      dep({ replicas: 2 ** 31 }),
      `json: cannot unmarshal number ${2 ** 31} into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    assert.equal(
      dep({ template: { spec: { containers: [{ ports: [{ containerPort: '80' }] }] } } }),
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
    assert.equal(
      dep({ template: { spec: { containers: { name: 'c' } } } }),
      'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    );
    const cm = (o: unknown): string | undefined => decodeBuiltinJson(JSON.stringify(o), '', 'v1', 'ConfigMap').error;
    assert.equal(
      cm({ metadata: { labels: { a: 1 } } }),
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    assert.equal(
      cm({ data: [1] }),
      'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
    );
    assert.equal(
      cm({ immutable: 'true' }),
      'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool',
    );
    assert.equal(cm({ binaryData: { b: 'not base64!' } }), 'illegal base64 data at input byte 3');
    assert.equal(cm({ data: { a: null } }), undefined, 'null is any type');
    const svc = decodeBuiltinJson(
      JSON.stringify({ spec: { ports: [{ port: '80', targetPort: true }] } }),
      '',
      'v1',
      'Service',
    );
    assert.equal(
      svc.error,
      'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
  });

  it('base64 errors at the byte Go reports', () => {
    const cases: [string, number | undefined][] = [
      ['', undefined],
      ['YQ==', undefined],
      ['YWJj', undefined],
      ['ab\ncd', undefined],
      ['YQ=', 3],
      ['YQ', 0],
      ['YQ==x', 4],
      ['Y=Q=', 1],
      ['YQ=x', 2],
      ['not base64!', 3],
    ];
    for (const [s, at] of cases) assert.equal(base64Error(s), at, JSON.stringify(s));
  });

  it('duplicates of unstructured content at any depth; unknown metadata fields in sorted order, nested too', () => {
    assert.deepEqual(duplicateFields('{"a":{"b":1,"b":2,"l":[{"x":1,"x":2}]},"a":{}}'), [
      'duplicate field "a.b"',
      'duplicate field "a.l[0].x"',
      'duplicate field "a"',
    ]);
    const m = unknownMetadataFields({
      name: 'x',
      zz: 1,
      bogus: 1,
      ownerReferences: [{ apiVersion: 'v1', kind: 'A', name: 'n', uid: 'u', q: 1 }],
    });
    assert.deepEqual(m.paths, ['metadata.bogus', 'metadata.ownerReferences[0].q', 'metadata.zz']);
    assert.deepEqual(m.value, { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'A', name: 'n', uid: 'u' }] });
  });

  it('duplicates with the parsed document given (no scan when its members add up) are the scanned ones', () => {
    const texts = [
      '{"a":{"b":1,"b":2,"l":[{"x":1,"x":2}]},"a":{}}',
      '{"a":1,"b":{"c":[1,{"d":2}]},"e":"x"}',
      // a value holding `":` counts as a member once more: the text is scanned, and holds a duplicate
      '{"a":"q\\":","a":1}',
      '{"a":"q\\":","b":1}',
      // whitespace before the colon, escapes that name the same member
      '{"a" :1, "b"\n: {"c" : 2, "\\u0063": 3}}',
      '{ "s": "\\"\\":", "t": [ {"u":1}, {"u":1, "u":2} ] }',
      '{"__proto__":1,"__proto__":2}',
      '{}',
      '[{"a":1},{"a":1,"a":1}]',
    ];
    for (const t of texts) assert.deepEqual(duplicateFields(t, JSON.parse(t)), duplicateFields(t), t);
    assert.deepEqual(
      duplicateFields(
        '{"a" :1, "b"\n: {"c" : 2, "\\u0063": 3}}',
        JSON.parse('{"a" :1, "b"\n: {"c" : 2, "\\u0063": 3}}'),
      ),
      ['duplicate field "b.c"'],
    );
  });
});

describe('decoding over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('a built-in with unknown fields: Warn (the default) warns and drops them; Strict refuses with the decoder message', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'u1', extra: 1 },
      data: { a: '1' },
      bogus: true,
    };
    const w = await api(env.url, 'POST', CMS, body);
    assert.equal(w.status, 201);
    assert.deepEqual(warnings(w.headers), ['unknown field "metadata.extra"', 'unknown field "bogus"']);
    assert.equal(w.body.bogus, undefined);
    assert.equal(w.body.metadata.extra, undefined);
    assert.equal((await api(env.url, 'GET', `${CMS}/u1`)).body.bogus, undefined, 'not stored either');
    const s = await api(env.url, 'POST', `${CMS}?fieldValidation=Strict`, { ...body, metadata: { name: 'u2' } });
    assert.equal(s.status, 400);
    assert.equal(
      s.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    );
    const i = await api(env.url, 'POST', `${CMS}?fieldValidation=Ignore`, { ...body, metadata: { name: 'u3' } });
    assert.equal(i.status, 201);
    assert.deepEqual(warnings(i.headers), []);
    assert.equal(i.body.bogus, undefined, 'dropped silently');
  });

  it('duplicate fields: Strict refuses (built-in and custom resource), Warn warns and keeps the last', async () => {
    const cmDup = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d1"},"data":{"a":"1","a":"2"}}';
    const s = await api(env.url, 'POST', `${CMS}?fieldValidation=Strict`, cmDup);
    assert.equal(
      s.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
    );
    const w = await api(env.url, 'POST', CMS, cmDup);
    assert.equal(w.status, 201);
    assert.deepEqual(warnings(w.headers), ['duplicate field "data.a"']);
    assert.equal(w.body.data.a, '2');
    const dmDup =
      '{"apiVersion":"coolops.cn/v1alpha1","kind":"DatabaseManager","metadata":{"name":"d2","bogus":1},"spec":{"replicas":2,"replicas":3,"extra":1}}';
    const cs = await api(env.url, 'POST', `${DMS}?fieldValidation=Strict`, dmDup);
    assert.equal(cs.status, 400);
    assert.equal(
      cs.body.message,
      'DatabaseManager in version "v1alpha1" cannot be handled as a DatabaseManager: strict decoding error: duplicate field "spec.replicas", unknown field "metadata.bogus", unknown field "spec.extra"',
    );
    const cw = await api(env.url, 'POST', DMS, dmDup);
    assert.equal(cw.status, 201);
    assert.deepEqual(warnings(cw.headers), [
      'duplicate field "spec.replicas"',
      'unknown field "metadata.bogus"',
      'unknown field "spec.extra"',
    ]);
    assert.equal(cw.body.spec.replicas, 3);
    assert.equal(cw.body.metadata.bogus, undefined, 'unknown metadata fields are dropped from custom resources too');
  });

  it('a built-in field of the wrong type is a 400 whatever fieldValidation says', async () => {
    for (const q of ['', '?fieldValidation=Ignore']) {
      const d = deployment('t1') as { spec: Record<string, unknown> };
      const r = await api(env.url, 'POST', `${DEPS}${q}`, { ...d, spec: { ...d.spec, replicas: '2' } });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.message,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
    }
    const sec = await api(env.url, 'POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: 'not base64!' },
    });
    assert.equal(sec.status, 400);
    assert.equal(
      sec.body.message,
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    );
  });

  it("a patch's result: unknown fields warned (Warn) or a 422 on `patch` (Strict); a patch that only adds an unknown field changes nothing", async () => {
    const c = await api(env.url, 'POST', DMS, dm('p1'));
    const w = await api(env.url, 'PATCH', `${DMS}/p1`, { spec: { bogus: 1 } }, MERGE);
    assert.equal(w.status, 200);
    assert.deepEqual(warnings(w.headers), ['unknown field "spec.bogus"']);
    assert.equal(
      w.body.metadata.resourceVersion,
      c.body.metadata.resourceVersion,
      'a no-op: the field is pruned before the write',
    );
    assert.equal(w.body.metadata.generation, 1);
    const s = await api(env.url, 'PATCH', `${DMS}/p1?fieldValidation=Strict`, { spec: { bogus: 1 } }, MERGE);
    assert.equal(s.status, 422);
    assert.equal(s.body.details.causes[0].field, 'patch');
    assert.match(
      s.body.message,
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"coolops.cn\/v1alpha1\\",\\"kind\\":\\"DatabaseManager\\",.*\\"spec\\":\{\\"bogus\\":1,.*\}": strict decoding error: unknown field "spec.bogus"$/,
    );
    const dup = await api(env.url, 'PATCH', `${DMS}/p1`, '{"spec":{"replicas":4,"replicas":5}}', MERGE);
    assert.deepEqual(warnings(dup.headers), ['duplicate field "spec.replicas"']);
    assert.equal(dup.body.spec.replicas, 5);
    await api(env.url, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p2' } });
    const smp = await api(env.url, 'PATCH', `${CMS}/p2?fieldValidation=Strict`, { bogus: 1 }, SMP);
    assert.equal(smp.status, 422);
    assert.equal(
      smp.body.message,
      ' "" is invalid: patch: Invalid value: "map[bogus:1]": strict decoding error: unknown field "bogus"',
    );
    const typed = await api(env.url, 'PATCH', `${CMS}/p2`, { data: { n: 1 } }, MERGE);
    assert.equal(typed.status, 422);
    assert.match(
      typed.body.message,
      /: json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/,
    );
  });

  it('an update that leaves out a defaulted field keeps the generation (the spec is compared as defaulted)', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gens.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Gen', plural: 'gens' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'integer', default: 3 }, color: { type: 'string' } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    await env.create([crd]);
    const path = '/apis/example.com/v1/namespaces/default/gens';
    const c = await api(env.url, 'POST', path, {
      apiVersion: 'example.com/v1',
      kind: 'Gen',
      metadata: { name: 'g' },
      spec: { color: 'red' },
    });
    assert.equal(c.body.spec.size, 3);
    const u = await api(env.url, 'PUT', `${path}/g`, { ...c.body, spec: { color: 'red' } });
    assert.equal(u.status, 200);
    assert.equal(u.body.metadata.generation, 1);
    assert.equal(u.body.metadata.resourceVersion, c.body.metadata.resourceVersion);
  });
});
