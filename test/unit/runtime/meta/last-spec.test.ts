// Judging an object's content from its metadata alone (specAsLastWritten): the record of what a
// controller set, and managedFields; and createOrUpdate on a kind the manager caches as metadata
// only, against crdgen's test server (its field manager keeps managedFields as kube-apiserver does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApiServer } from '../../../../src/testing/index.js';
import {
  LAST_SPEC_ANNOTATION,
  PatchType,
  ServiceResource,
  canonicalJson,
  newManager,
  resourceClient,
  specAsLastWritten,
  type KubeObject,
  type ManagedFieldsEntry,
  type Service,
} from '../../../../src/runtime/index.js';

const content = {
  spec: {
    type: 'ClusterIP',
    selector: { app: 'db' },
    ports: [{ name: 'db', port: 5432, targetPort: 'db', protocol: 'TCP' as const }],
  },
};
/** The FieldsV1 kube-apiserver records for a writer of `content` (map-list items by key). */
const ownSpec = {
  'f:spec': {
    'f:type': {},
    'f:selector': { '.': {}, 'f:app': {} },
    'f:ports': {
      '.': {},
      'k:{"port":5432,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
    },
  },
};
const entry = (manager: string, fieldsV1: Record<string, unknown>, subresource?: string): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...(subresource ? { subresource } : {}),
});
const obj = (annotation: string | undefined, managedFields: ManagedFieldsEntry[]): KubeObject => ({
  metadata: {
    name: 's',
    namespace: 'ns',
    ...(annotation === undefined ? {} : { annotations: { [LAST_SPEC_ANNOTATION]: annotation } }),
    managedFields,
  },
});

test('canonicalJson sorts the keys of every object, keeps arrays in order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  assert.equal(canonicalJson(content), canonicalJson(JSON.parse(JSON.stringify(content))));
});

/** canonicalJson as first written: JSON.stringify with a replacer that rebuilds every object with its keys sorted. */
const sortedStringify = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );

test('canonicalJson writes what JSON.stringify of a key-sorted copy writes (records written before stay valid)', () => {
  // keys that sort differently as strings and as array indices, undefined members, dates, non-finite numbers
  const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '2', '9', '10', '01', '4294967295', '-1', '__proto__'));
  const leaf = fc.oneof(
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: true }),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value')), fc.dictionary(key, tie('value'))),
  }));
  fc.assert(
    fc.property(value, (v) => {
      assert.equal(canonicalJson(v), sortedStringify(v));
    }),
    { numRuns: 2000 },
  );
  assert.equal(canonicalJson({ b: 1, 10: 2, 9: 3, a: [undefined, () => 1] }), '{"9":3,"10":2,"a":[null,null],"b":1}');
  assert.equal(canonicalJson(undefined), undefined);
});

test('specAsLastWritten: the record and managedFields must both say so', () => {
  const rec = canonicalJson(content);
  assert.equal(specAsLastWritten(obj(rec, [entry('op', ownSpec)]), 'op', content), true);
  // others writing metadata or status only do not count
  const others = [entry('kubectl', { 'f:metadata': { 'f:labels': {} } }), entry('kcm', { 'f:status': {} }, 'status')];
  assert.equal(specAsLastWritten(obj(rec, [entry('op', ownSpec), ...others]), 'op', content), true);
  // no record, another record, what is wanted now differs
  assert.equal(specAsLastWritten(obj(undefined, [entry('op', ownSpec)]), 'op', content), false);
  assert.equal(specAsLastWritten(obj('{}', [entry('op', ownSpec)]), 'op', content), false);
  const more = { spec: { ...content.spec, selector: { app: 'other' } } };
  assert.equal(specAsLastWritten(obj(rec, [entry('op', ownSpec)]), 'op', more), false);
  // no managedFields (a cache that drops them): cannot tell
  assert.equal(specAsLastWritten(obj(rec, []), 'op', content), false);
  // another manager changed a field of the spec (also through /scale)
  const changed = entry('kubectl', { 'f:spec': { 'f:selector': { 'f:app': {} } } });
  assert.equal(specAsLastWritten(obj(rec, [entry('op', ownSpec), changed]), 'op', content), false);
  const scaled = entry('hpa', { 'f:spec': { 'f:replicas': {} } }, 'scale');
  assert.equal(specAsLastWritten(obj(rec, [entry('op', ownSpec), scaled]), 'op', content), false);
  // a field removed by someone else: nobody owns it now, the writer's set lost it
  const lost = structuredClone(ownSpec);
  delete (lost['f:spec']['f:selector'] as Record<string, unknown>)['f:app'];
  assert.equal(specAsLastWritten(obj(rec, [entry('op', lost)]), 'op', content), false);
  const noPort = structuredClone(ownSpec);
  noPort['f:spec']['f:ports'] = { '.': {} } as never;
  assert.equal(specAsLastWritten(obj(rec, [entry('op', noPort)]), 'op', content), false);
  // an atomic field is held whole by its leaf
  const atomic = { spec: { selector: { matchLabels: { a: 'b' } } } };
  const atomicSet = { 'f:spec': { 'f:selector': {} } };
  assert.equal(specAsLastWritten(obj(canonicalJson(atomic), [entry('op', atomicSet)]), 'op', atomic), true);
});

test('createOrUpdate of a kind cached as metadata only: judged from its metadata; read whole and put back when changed, also when a field was only removed', async () => {
  const server = await startTestApiServer();
  const manager = newManager({ client: server.clientConfig, name: 'unit' });
  manager.scope(ServiceResource, { keepManagedFields: true });
  const informer = manager.informer(ServiceResource, { metadataOnly: true });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  const services = resourceClient<Service>(server.clientConfig, ServiceResource).namespace('default');
  const key = { namespace: 'default', name: 'db' };
  const set = (s: Service): void => {
    s.spec = { ...s.spec, ...structuredClone(content.spec), type: 'ClusterIP' };
  };
  /** createOrUpdate once the cache has the object at `rv` or later. */
  const write = async (rv?: string) => {
    if (rv)
      for (const t0 = Date.now(); ; await new Promise((r) => setTimeout(r, 10))) {
        const cached = informer.getIndexer().getByKey('default/db');
        if (cached && BigInt(cached.metadata?.resourceVersion ?? '0') >= BigInt(rv)) break;
        if (Date.now() - t0 > 20_000) throw new Error(`the cache did not reach ${rv}`);
      }
    return manager.client.createOrUpdate(ServiceResource, key, set);
  };
  try {
    const created = await write();
    assert.equal(created.operation, 'created');
    assert.equal(created.object.metadata?.annotations?.[LAST_SPEC_ANNOTATION], canonicalJson(content));
    const again = await write(created.object.metadata?.resourceVersion);
    assert.equal(again.operation, 'unchanged');
    assert.deepEqual(again.object.spec, content.spec, 'the metadata with what mutate sets');
    // the result carries the cached managedFields, as a copy; nothing done to it reaches the cache
    const cached = informer.getIndexer().getByKey('default/db')!;
    const before = structuredClone(cached);
    assert.ok(cached.metadata?.managedFields?.length, 'the cache keeps managedFields');
    assert.deepEqual(again.object.metadata?.managedFields, cached.metadata?.managedFields);
    assert.notEqual(again.object.metadata?.managedFields, cached.metadata?.managedFields);
    again.object.metadata.managedFields[0].manager = 'changed by the caller';
    again.object.metadata.labels = { changed: 'by the caller' };
    // a mutate that changes what it is handed in place: the judgement's copy, never the cache
    let calls = 0;
    const inPlace = await manager.client.createOrUpdate(ServiceResource, key, (s) => {
      // first on a copy of the cached metadata (the judgement's), then on the object read whole
      if (calls++ === 0)
        assert.equal(s.metadata?.managedFields, undefined, "the judgement's copy leaves managedFields out");
      (s.metadata!.annotations ??= {})['seen'] = 'x';
      set(s);
    });
    assert.equal(inPlace.operation, 'updated', 'a new annotation is a change');
    assert.equal(calls, 2);
    assert.deepEqual(cached, before, 'the cached object is untouched');
    assert.equal(manager.cache.hasInformer(ServiceResource), false, 'no Service cached whole');
    // changed by another manager
    const edited = await services.patch('db', PatchType.Merge, {
      metadata: { annotations: { seen: null } },
      spec: { selector: { app: 'x' } },
    });
    const fixed = await write(edited.metadata?.resourceVersion);
    assert.equal(fixed.operation, 'updated');
    assert.deepEqual(fixed.object.spec?.selector, { app: 'db' });
    // a field removed by another manager (which then owns nothing)
    const removed = await services.patch('db', PatchType.JSON, [{ op: 'remove', path: '/spec/ports/0/name' }], {
      fieldManager: 'someone',
    });
    assert.equal(
      removed.metadata?.managedFields?.some((e) => e.manager === 'someone'),
      false,
      'the remover owns nothing',
    );
    const back = await write(removed.metadata?.resourceVersion);
    assert.equal(back.operation, 'updated');
    assert.equal(back.object.spec?.ports?.[0]?.name, 'db');
    assert.equal(back.object.spec?.clusterIP, created.object.spec?.clusterIP, 'updated in place');
    assert.equal((await write(back.object.metadata?.resourceVersion)).operation, 'unchanged');
  } finally {
    ac.abort();
    await done;
    await server.stop();
  }
});
