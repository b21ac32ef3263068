// The fidelity scenarios: what operators, kubectl and client libraries send, each run on
// both backends in a namespace of its own. Every `req` is one compared response.
import type { Scenario, ScenarioContext } from './harness.js';
import { MANAGED_FIELDS_SCENARIOS } from './scenarios-managed-fields.js';

const G = '/apis/fidelity.crdgen.dev/v1';
const widgets = (ns: string): string => `${G}/namespaces/${ns}/widgets`;
const widget = (ns: string, name: string): string => `${widgets(ns)}/${name}`;
const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const deploys = (ns: string): string => `/apis/apps/v1/namespaces/${ns}/deployments`;

type Json = Record<string, unknown>;
const w = (name: string, spec: Json = {}, extra: Json = {}): Json => ({
  apiVersion: 'fidelity.crdgen.dev/v1',
  kind: 'Widget',
  metadata: { name, ...(extra.metadata ?? {}) },
  spec: { color: 'red', ...spec },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});
const cm = (name: string, data: Json = { a: '1' }, metadata: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...metadata },
  data,
});
const deployment = (name: string, replicas = 1): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'db', image: 'mysql:8' }] } },
  },
});
const rvOf = (b: unknown): string =>
  String((b as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '');
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

export const SCENARIOS: Scenario[] = [
  {
    name: 'custom resource CRUD',
    async run({ ns, req }) {
      await req('create', 'POST', widgets(ns), { body: w('a', { size: 2 }) });
      await req('create again: 409 AlreadyExists', 'POST', widgets(ns), { body: w('a') });
      const got = await req('get', 'GET', widget(ns, 'a'));
      await req('get missing: 404', 'GET', widget(ns, 'missing'));
      await req('list', 'GET', widgets(ns));
      const upd = await req('update', 'PUT', widget(ns, 'a'), {
        body: { ...got.body, spec: { ...got.body.spec, color: 'blue' } },
      });
      await req('update with a stale resourceVersion: 409 Conflict', 'PUT', widget(ns, 'a'), {
        body: { ...got.body, spec: { ...got.body.spec, color: 'green' } },
      });
      const { resourceVersion: _rv, ...meta } = upd.body.metadata;
      await req('update without resourceVersion', 'PUT', widget(ns, 'a'), {
        body: { ...upd.body, metadata: meta, spec: { ...upd.body.spec, color: 'green' } },
      });
      await req('update of a missing object: 404', 'PUT', widget(ns, 'nope'), { body: w('nope') });
      await req('update with a name that differs from the URL: 400', 'PUT', widget(ns, 'a'), {
        body: { ...upd.body, metadata: { ...upd.body.metadata, name: 'b' } },
      });
      await req('create in a namespace that does not exist: 404', 'POST', widgets('no-such-ns'), { body: w('x') });
      await req('create with the wrong kind: 400', 'POST', widgets(ns), { body: { ...w('x'), kind: 'Gadget' } });
      await req('create with a body namespace that differs: 400', 'POST', widgets(ns), {
        body: w('x', {}, { metadata: { namespace: 'other' } }),
      });
      await req('create without a name: 422', 'POST', widgets(ns), {
        body: { apiVersion: 'fidelity.crdgen.dev/v1', kind: 'Widget', metadata: {}, spec: { color: 'red' } },
      });
      await req('create with an invalid name: 422', 'POST', widgets(ns), { body: w('Not_Valid') });
      await req('delete', 'DELETE', widget(ns, 'a'));
      await req('delete missing: 404', 'DELETE', widget(ns, 'a'));
      await req('list after delete', 'GET', widgets(ns));
    },
  },
  {
    name: 'generateName',
    async run({ ns, req }) {
      await req('create with generateName', 'POST', widgets(ns), {
        body: {
          apiVersion: 'fidelity.crdgen.dev/v1',
          kind: 'Widget',
          metadata: { generateName: 'gen-' },
          spec: { color: 'red' },
        },
      });
      await req('configmap with generateName', 'POST', cms(ns), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } },
      });
    },
  },
  {
    name: 'defaulting and pruning',
    async run({ ns, req }) {
      await req('defaults applied, unknown fields pruned', 'POST', widgets(ns), {
        body: w(
          'd',
          { unknown: 1, extra: { kept: { deep: true } } },
          { status: { replicas: 5 }, topLevelUnknown: 'x' },
        ),
      });
      await req('get', 'GET', widget(ns, 'd'));
    },
  },
  {
    name: 'OpenAPI and CEL validation: 422 with causes',
    async run({ ns, req }) {
      await req('enum', 'POST', widgets(ns), { body: w('v1', { color: 'purple' }) });
      await req('required', 'POST', widgets(ns), {
        body: { apiVersion: 'fidelity.crdgen.dev/v1', kind: 'Widget', metadata: { name: 'v2' }, spec: {} },
      });
      await req('maximum and minimum', 'POST', widgets(ns), { body: w('v3', { replicas: 11 }) });
      await req('pattern and maxLength', 'POST', widgets(ns), { body: w('v4', { name: 'ABCDEFGHIJ' }) });
      await req('type', 'POST', widgets(ns), { body: w('v5', { replicas: 'three' }) });
      await req('CEL rule', 'POST', widgets(ns), { body: w('v6', { size: 5, maxSize: 4 }) });
      await req('duplicate set item', 'POST', widgets(ns), { body: w('v7', { tags: ['a', 'a'] }) });
      await req('duplicate map-list key', 'POST', widgets(ns), {
        body: w('v8', {
          ports: [
            { name: 'http', port: 80 },
            { name: 'http', port: 81 },
          ],
        }),
      });
      await req('several errors at once', 'POST', widgets(ns), {
        body: w('v9', { color: 'purple', replicas: -1, size: 9, maxSize: 1 }),
      });
      await req('valid', 'POST', widgets(ns), {
        body: w('ok', { size: 2, maxSize: 4, tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }] }),
      });
    },
  },
  {
    name: 'fieldValidation Strict and Warn',
    async run({ ns, req, send }) {
      await req('Strict: unknown field refused', 'POST', `${widgets(ns)}?fieldValidation=Strict`, {
        body: w('s1', { unknown: 1 }),
      });
      await req('Warn: unknown field warned and pruned', 'POST', `${widgets(ns)}?fieldValidation=Warn`, {
        body: w('s2', { unknown: 1 }),
      });
      await req('Ignore: dropped silently', 'POST', `${widgets(ns)}?fieldValidation=Ignore`, {
        body: w('s3', { unknown: 1 }),
      });
      const dup =
        '{"apiVersion":"fidelity.crdgen.dev/v1","kind":"Widget","metadata":{"name":"s4"},"spec":{"color":"red","color":"blue"}}';
      await req('Strict: duplicate field refused', 'POST', `${widgets(ns)}?fieldValidation=Strict`, { body: dup });
      await req('Warn: duplicate field warned', 'POST', `${widgets(ns)}?fieldValidation=Warn`, { body: dup });
      await req('Strict on a built-in', 'POST', `${cms(ns)}?fieldValidation=Strict`, {
        body: { ...cm('s5'), bogus: true },
      });
      await req('Warn on a built-in: warned and dropped', 'POST', cms(ns), {
        body: { ...cm('s5'), bogus: true, metadata: { name: 's5', extra: 1 } },
      });
      const cmDup =
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s7","name":"s7"},"data":{"a":"1","a":"2"},"zz":1}';
      await req(
        'Strict on a built-in: duplicate and unknown fields in document order',
        'POST',
        `${cms(ns)}?fieldValidation=Strict`,
        { body: cmDup },
      );
      await req('Warn on a built-in: duplicates warned, the last one kept', 'POST', cms(ns), { body: cmDup });
      await req('a built-in field of the wrong type: 400', 'POST', deploys(ns), {
        body: { ...deployment('s8'), spec: { ...(deployment('s8').spec as Json), replicas: '2' } },
      });
      await req('a container port of the wrong type: 400', 'POST', deploys(ns), {
        body: {
          ...deployment('s9'),
          spec: {
            selector: { matchLabels: { app: 's9' } },
            template: {
              metadata: { labels: { app: 's9' } },
              spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }] },
            },
          },
        },
      });
      await req('secret data that is not base64: 400', 'POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's10' }, data: { k: 'not base64!' } },
      });
      await req(
        'Strict: unknown metadata and nested fields of a custom resource',
        'POST',
        `${widgets(ns)}?fieldValidation=Strict`,
        {
          body: w(
            's11',
            { unknown: 1 },
            {
              metadata: {
                name: 's11',
                bogus: 1,
                ownerReferences: [
                  {
                    apiVersion: 'v1',
                    kind: 'ConfigMap',
                    name: 'o',
                    uid: '00000000-0000-0000-0000-000000000001',
                    zz: 1,
                  },
                ],
              },
            },
          ),
        },
      );
      const s2 = await req('get the Warn-created widget', 'GET', `${widgets(ns)}/s2`);
      await req('Strict update with an unknown field: 400', 'PUT', `${widgets(ns)}/s2?fieldValidation=Strict`, {
        body: { ...s2.body, spec: { ...s2.body.spec, bogus: 1 } },
      });
      await req('merge patch with an unknown field, Warn: warned', 'PATCH', `${widgets(ns)}/s2`, {
        body: { spec: { bogus: 1 } },
        contentType: MERGE_PATCH,
      });
      await req(
        'merge patch with an unknown field, Strict: 422 on patch',
        'PATCH',
        `${widgets(ns)}/s2?fieldValidation=Strict`,
        { body: { spec: { bogus: 1 } }, contentType: MERGE_PATCH },
      );
      await req('merge patch with a duplicate field, Warn: warned', 'PATCH', `${widgets(ns)}/s2`, {
        body: '{"spec":{"color":"blue","color":"green"}}',
        contentType: MERGE_PATCH,
      });
      await req('merge patch of a configmap with an unknown field, Warn: warned', 'PATCH', `${cms(ns)}/s5`, {
        body: { bogus: 1 },
        contentType: MERGE_PATCH,
      });
      await req(
        'merge patch of a configmap with an unknown field, Strict: 422 on patch',
        'PATCH',
        `${cms(ns)}/s5?fieldValidation=Strict`,
        { body: { bogus: 1 }, contentType: MERGE_PATCH },
      );
      await req(
        'JSON patch adding an unknown field to a configmap, Strict: 422 on patch',
        'PATCH',
        `${cms(ns)}/s5?fieldValidation=Strict`,
        { body: [{ op: 'add', path: '/bogus', value: { b: 1, a: 2 } }], contentType: JSON_PATCH },
      );
      await req('merge patch with a value of the wrong type: 422 on patch', 'PATCH', `${cms(ns)}/s5`, {
        body: { data: { n: 1 } },
        contentType: MERGE_PATCH,
      });
      await send('POST', deploys(ns), { body: deployment('sd') });
      await req(
        'merge patch of a deployment with a nested unknown field, Strict: 422 on patch',
        'PATCH',
        `${deploys(ns)}/sd?fieldValidation=Strict`,
        {
          body: { spec: { template: { spec: { containers: [{ name: 'db', image: 'mysql:8', bogus: true }] } } } },
          contentType: MERGE_PATCH,
        },
      );
      await req(
        'strategic merge patch of a configmap with an unknown field, Strict: 422 on patch',
        'PATCH',
        `${cms(ns)}/s5?fieldValidation=Strict`,
        { body: { bogus: 1 }, contentType: SMP },
      );
      await req('bad fieldValidation value: 400', 'POST', `${widgets(ns)}?fieldValidation=Loose`, { body: w('s6') });
    },
  },
  {
    name: 'status subresource and generation',
    async run({ ns, req }) {
      const c = await req('create (generation 1)', 'POST', widgets(ns), {
        body: w('st', {}, { status: { replicas: 9 } }),
      });
      const s1 = await req('status update', 'PUT', `${widget(ns, 'st')}/status`, {
        body: { ...c.body, spec: { ...c.body.spec, color: 'blue' }, status: { replicas: 2, observedGeneration: 1 } },
      });
      await req('get /status', 'GET', `${widget(ns, 'st')}/status`);
      const m = await req('main update ignores status; spec change bumps generation', 'PUT', widget(ns, 'st'), {
        body: { ...s1.body, spec: { ...s1.body.spec, color: 'green' }, status: { replicas: 7 } },
      });
      await req('metadata change keeps generation', 'PUT', widget(ns, 'st'), {
        body: { ...m.body, metadata: { ...m.body.metadata, labels: { l: 'v' } } },
      });
      await req('status merge patch', 'PATCH', `${widget(ns, 'st')}/status`, {
        body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Up' }] } },
        contentType: MERGE_PATCH,
      });
      await req('status of a missing object: 404', 'PUT', `${widget(ns, 'nope')}/status`, { body: w('nope') });
    },
  },
  {
    name: 'scale subresource',
    async run({ ns, req, send }) {
      const c = await send('POST', widgets(ns), { body: w('sc', { replicas: 2 }) });
      await send('PUT', `${widget(ns, 'sc')}/status`, {
        body: { ...c.body, status: { replicas: 2, selector: 'app=sc' } },
      });
      const s = await req('get scale', 'GET', `${widget(ns, 'sc')}/scale`);
      await req('put scale', 'PUT', `${widget(ns, 'sc')}/scale`, { body: { ...s.body, spec: { replicas: 4 } } });
      await req('patch scale', 'PATCH', `${widget(ns, 'sc')}/scale`, {
        body: { spec: { replicas: 5 } },
        contentType: MERGE_PATCH,
      });
      await req('scale beyond the schema maximum: 422', 'PATCH', `${widget(ns, 'sc')}/scale`, {
        body: { spec: { replicas: 50 } },
        contentType: MERGE_PATCH,
      });
      await req('object after scaling', 'GET', widget(ns, 'sc'));
      const d = await send('POST', deploys(ns), { body: deployment('dep', 2) });
      void d;
      await req('deployment scale', 'GET', `${deploys(ns)}/dep/scale`);
      await req('deployment scale patch', 'PATCH', `${deploys(ns)}/dep/scale`, {
        body: { spec: { replicas: 3 } },
        contentType: MERGE_PATCH,
      });
    },
  },
  {
    name: 'patches: merge, JSON, strategic',
    async run({ ns, req, send }) {
      await send('POST', widgets(ns), {
        body: w('p', { tags: ['a'], labels: { x: '1' }, ports: [{ name: 'http', port: 80 }] }),
      });
      await req('merge patch', 'PATCH', widget(ns, 'p'), {
        body: { spec: { labels: { y: '2', x: null } } },
        contentType: MERGE_PATCH,
      });
      await req('JSON patch', 'PATCH', widget(ns, 'p'), {
        body: [
          { op: 'add', path: '/spec/tags/-', value: 'b' },
          { op: 'replace', path: '/spec/color', value: 'green' },
        ],
        contentType: JSON_PATCH,
      });
      await req('JSON patch test op fails: 422', 'PATCH', widget(ns, 'p'), {
        body: [{ op: 'test', path: '/spec/color', value: 'red' }],
        contentType: JSON_PATCH,
      });
      await req('JSON patch on a missing path', 'PATCH', widget(ns, 'p'), {
        body: [{ op: 'remove', path: '/spec/nothing' }],
        contentType: JSON_PATCH,
      });
      await req('strategic merge patch on a custom resource: 415', 'PATCH', widget(ns, 'p'), {
        body: { spec: { color: 'blue' } },
        contentType: SMP,
      });
      await req('patch that breaks the schema: 422', 'PATCH', widget(ns, 'p'), {
        body: { spec: { color: 'pink' } },
        contentType: MERGE_PATCH,
      });
      await req('malformed patch body: 400', 'PATCH', widget(ns, 'p'), { body: '{not json', contentType: MERGE_PATCH });
      await req('patch of a missing object: 404', 'PATCH', widget(ns, 'nope'), {
        body: { spec: {} },
        contentType: MERGE_PATCH,
      });
      await req('unsupported patch type: 415', 'PATCH', widget(ns, 'p'), { body: {}, contentType: 'application/xml' });
      await send('POST', cms(ns), { body: cm('pc', { a: '1', b: '2' }, { labels: { k: 'v' } }) });
      await req('strategic merge patch on a configmap', 'PATCH', `${cms(ns)}/pc`, {
        body: { data: { b: null, c: '3' }, metadata: { labels: { k2: 'v2' } } },
        contentType: SMP,
      });
      await req('JSON patch test op fails on a configmap: 422', 'PATCH', `${cms(ns)}/pc`, {
        body: [{ op: 'test', path: '/data/a', value: 'nope' }],
        contentType: JSON_PATCH,
      });
      await req('JSON patch on a missing parent of a configmap: 422', 'PATCH', `${cms(ns)}/pc`, {
        body: [{ op: 'add', path: '/nothere/x', value: '1' }],
        contentType: JSON_PATCH,
      });
      await req('JSON patch replace of a missing key adds it', 'PATCH', `${cms(ns)}/pc`, {
        body: [{ op: 'replace', path: '/data/z', value: '26' }],
        contentType: JSON_PATCH,
      });
      await req('JSON patch with an unknown op member: warned', 'PATCH', `${cms(ns)}/pc`, {
        body: [{ op: 'add', path: '/data/y', value: '25', extra: true }],
        contentType: JSON_PATCH,
      });
      await req('JSON patch that is not a list: 400', 'PATCH', `${cms(ns)}/pc`, {
        body: { op: 'add' },
        contentType: JSON_PATCH,
      });
      await req('merge patch that is not an object: 400', 'PATCH', `${cms(ns)}/pc`, {
        body: [],
        contentType: MERGE_PATCH,
      });
      await req('strategic merge patch that is not an object: 400', 'PATCH', `${cms(ns)}/pc`, {
        body: [],
        contentType: SMP,
      });
      await req('malformed strategic merge patch body: 400', 'PATCH', `${cms(ns)}/pc`, {
        body: '{"data": ',
        contentType: SMP,
      });
      await send('POST', deploys(ns), { body: deployment('pd') });
      await req('strategic merge patch merges containers by name', 'PATCH', `${deploys(ns)}/pd`, {
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'db', image: 'mysql:9' },
                  { name: 'side', image: 'busybox' },
                ],
              },
            },
          },
        },
        contentType: SMP,
      });
    },
  },
  {
    name: 'server-side apply',
    async run({ ns, req }) {
      const path = `${widget(ns, 'ap')}?fieldManager=alice`;
      await req('apply creates', 'PATCH', path, {
        body: JSON.stringify(w('ap', { replicas: 2, tags: ['a'] })),
        contentType: APPLY,
      });
      await req('apply by another manager: conflict 409', 'PATCH', `${widget(ns, 'ap')}?fieldManager=bob`, {
        body: JSON.stringify(w('ap', { replicas: 3 })),
        contentType: APPLY,
      });
      await req('apply by another manager with force', 'PATCH', `${widget(ns, 'ap')}?fieldManager=bob&force=true`, {
        body: JSON.stringify(w('ap', { replicas: 3 })),
        contentType: APPLY,
      });
      await req('apply drops a field the manager no longer sets', 'PATCH', path, {
        body: JSON.stringify({
          apiVersion: 'fidelity.crdgen.dev/v1',
          kind: 'Widget',
          metadata: { name: 'ap' },
          spec: { color: 'red' },
        }),
        contentType: APPLY,
      });
      await req('apply without fieldManager: 400', 'PATCH', widget(ns, 'ap'), {
        body: JSON.stringify(w('ap')),
        contentType: APPLY,
      });
      await req('apply with a YAML body', 'PATCH', `${widget(ns, 'ap2')}?fieldManager=alice`, {
        body: 'apiVersion: fidelity.crdgen.dev/v1\nkind: Widget\nmetadata:\n  name: ap2\nspec:\n  color: blue\n',
        contentType: APPLY,
      });
      await req('apply a configmap', 'PATCH', `${cms(ns)}/apc?fieldManager=alice`, {
        body: JSON.stringify(cm('apc', { a: '1' })),
        contentType: APPLY,
      });
      await req('apply YAML with a 1.1 boolean where a string goes', 'PATCH', `${cms(ns)}/y11?fieldManager=alice`, {
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y11\n  labels:\n    x: on\n',
        contentType: APPLY,
      });
      await req('apply YAML with a 1.1 boolean quoted', 'PATCH', `${cms(ns)}/y11?fieldManager=alice`, {
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y11\n  labels:\n    x: "on"\ndata:\n  flag: "yes"\n',
        contentType: APPLY,
      });
      await req('update by another manager then apply: managedFields', 'PUT', `${cms(ns)}/apc?fieldManager=carol`, {
        body: { ...cm('apc', { a: '2', b: '1' }) },
      });
      await req('apply after update', 'PATCH', `${cms(ns)}/apc?fieldManager=alice`, {
        body: JSON.stringify(cm('apc', { a: '3' })),
        contentType: APPLY,
      });
    },
  },
  {
    name: 'label and field selectors',
    async run({ ns, req, send }) {
      for (const [n, color, tier] of [
        ['s1', 'red', 'web'],
        ['s2', 'blue', 'db'],
        ['s3', 'blue', 'web'],
      ] as const)
        await send('POST', widgets(ns), { body: w(n, { color }, { metadata: { labels: { tier } } }) });
      await req('label equality', 'GET', `${widgets(ns)}?labelSelector=tier%3Dweb`);
      await req(
        'label set-based',
        'GET',
        `${widgets(ns)}?labelSelector=${encodeURIComponent('tier in (db),!missing')}`,
      );
      await req(
        'label selector syntax error: 400',
        'GET',
        `${widgets(ns)}?labelSelector=${encodeURIComponent('tier in (db')}`,
      );
      for (const bad of ['a=b,', '!a=b', 'a b', 'a>x', '-bad=x'])
        await req(
          `label selector ${JSON.stringify(bad)}: 400`,
          'GET',
          `${widgets(ns)}?labelSelector=${encodeURIComponent(bad)}`,
        );
      // more of labels.Parse's words: values checked as label values (also gt/lt's), aggregated errors, long keys and values
      const more = [
        'x==a==b',
        'x in in',
        'x in a',
        ',',
        '=a',
        'x notin',
        '!',
        'Bad Key=1',
        'x=-a',
        'a/b/c=d',
        'x<',
        'x in (a,b=c)',
        `x=${'a'.repeat(64)}`,
        `${'k'.repeat(64)}=v`,
        'x in (-a,-b)',
        'n>-1',
        'UPPER.com/x=y',
      ];
      for (const bad of more)
        await req(
          `label selector ${JSON.stringify(bad)}: 400`,
          'GET',
          `${widgets(ns)}?labelSelector=${encodeURIComponent(bad)}`,
        );
      for (const good of ['tier in (db,),color', 'tier notin (in,notin)', 'x in ()', '!color', 'tier != web', 'in=a'])
        await req(
          `label selector ${JSON.stringify(good)}`,
          'GET',
          `${widgets(ns)}?labelSelector=${encodeURIComponent(good)}`,
        );
      await req('in and notin as keys', 'GET', `${widgets(ns)}?labelSelector=${encodeURIComponent('in!=x,!notin')}`);
      await req('field metadata.name', 'GET', `${widgets(ns)}?fieldSelector=metadata.name%3Ds2`);
      await req('field metadata.namespace', 'GET', `${widgets(ns)}?fieldSelector=metadata.namespace%3D${ns}`);
      await req('selectable field .spec.color', 'GET', `${widgets(ns)}?fieldSelector=spec.color%3Dblue`);
      await req('field that is not selectable: 400', 'GET', `${widgets(ns)}?fieldSelector=spec.size%3D3`);
      await send('POST', cms(ns), { body: cm('fs') });
      await req('configmap field selector', 'GET', `${cms(ns)}?fieldSelector=metadata.name%21%3Dfs`);
    },
  },
  {
    name: 'list paging and resourceVersion semantics',
    async run({ ns, req, send }) {
      for (let i = 0; i < 5; i++) await send('POST', cms(ns), { body: cm(`c${i}`) });
      const p1 = await req('limit 2', 'GET', `${cms(ns)}?limit=2`);
      const p2 = await req(
        'continue',
        'GET',
        `${cms(ns)}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`,
      );
      await req(
        'continue to the end',
        'GET',
        `${cms(ns)}?limit=2&continue=${encodeURIComponent(p2.body.metadata.continue)}`,
      );
      await req('bad continue token: 400', 'GET', `${cms(ns)}?limit=2&continue=garbage`);
      const token = (t: unknown): string => Buffer.from(JSON.stringify(t)).toString('base64url');
      await req(
        'continue token with revision 0: 400',
        'GET',
        `${cms(ns)}?limit=2&continue=${token({ v: 'meta.k8s.io/v1', rv: 0, start: '/x' })}`,
      );
      await req(
        'continue token without a start key: 400',
        'GET',
        `${cms(ns)}?limit=2&continue=${token({ v: 'meta.k8s.io/v1', rv: 5, start: '' })}`,
      );
      await req(
        'continue token of another version: 400',
        'GET',
        `${cms(ns)}?limit=2&continue=${token({ v: 'v2', rv: 5, start: 'a' })}`,
      );
      await req(
        'continue token with padding: 400',
        'GET',
        `${cms(ns)}?limit=2&continue=${token({ v: 'meta.k8s.io/v1', rv: 5, start: 'a' })}%3D%3D`,
      );
      const all = await req('full list', 'GET', cms(ns));
      const rv = rvOf(all.body);
      await req('resourceVersion=0', 'GET', `${cms(ns)}?resourceVersion=0`);
      await req(
        'resourceVersion=<list rv> NotOlderThan',
        'GET',
        `${cms(ns)}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`,
      );
      await req(
        'resourceVersion=<list rv> Exact',
        'GET',
        `${cms(ns)}?resourceVersion=${rv}&resourceVersionMatch=Exact`,
      );
      await req('resourceVersionMatch without resourceVersion: 422', 'GET', `${cms(ns)}?resourceVersionMatch=Exact`);
      await req(
        'resourceVersionMatch=Exact with resourceVersion=0: 422',
        'GET',
        `${cms(ns)}?resourceVersion=0&resourceVersionMatch=Exact`,
      );
      await req('bad resourceVersionMatch: 422', 'GET', `${cms(ns)}?resourceVersion=1&resourceVersionMatch=Newest`);
      await req('resourceVersion that is not a number: 400', 'GET', `${cms(ns)}?resourceVersion=abc`);
      await req('get with resourceVersion=0', 'GET', `${cms(ns)}/c1?resourceVersion=0`);
      await req('limit with continue and labelSelector', 'GET', `${widgets(ns)}?limit=1&labelSelector=x%3Dy`);
    },
  },
  {
    name: 'watch from a version, bookmarks',
    async run({ ns, req, send, watch, note }) {
      const c = await send('POST', widgets(ns), { body: w('wa') });
      const from = rvOf(c.body);
      const wt = await watch(`${widgets(ns)}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`);
      note('watch status', wt.status);
      await send('PATCH', widget(ns, 'wa'), { body: { spec: { color: 'blue' } }, contentType: MERGE_PATCH });
      await send('POST', widgets(ns), { body: w('wb') });
      await send('DELETE', widget(ns, 'wa'));
      const evs = await wt.waitFor(3);
      wt.close();
      note(
        'events after the version',
        evs
          .filter((e) => e.type !== 'BOOKMARK')
          .slice(0, 3)
          .map((e) => ({ type: e.type, name: e.object.metadata.name, color: e.object.spec?.color })),
      );
      const init = await watch(
        `${widgets(ns)}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
      );
      const bm = await init.until((e) => e.type === 'BOOKMARK');
      init.close();
      note('sendInitialEvents: initial ADDED then the initial-events-end bookmark', {
        before: init.events.slice(0, init.events.indexOf(bm)).map((e) => `${e.type} ${e.object.metadata.name}`),
        annotations: bm.object.metadata.annotations,
        bookmarkKind: bm.object.kind,
        apiVersion: bm.object.apiVersion,
      });
      await req('watch with a bad resourceVersion: 400', 'GET', `${widgets(ns)}?watch=true&resourceVersion=abc`);
      await req(
        'sendInitialEvents without allowWatchBookmarks: a stream, no answer',
        'GET',
        `${widgets(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
        { timeoutMs: 5_000 },
      );
    },
  },
  {
    name: 'dryRun=All',
    async run({ ns, req, send }) {
      await req('create dry run', 'POST', `${widgets(ns)}?dryRun=All`, { body: w('dr') });
      await req('not created', 'GET', widget(ns, 'dr'));
      const c = await send('POST', widgets(ns), { body: w('dr') });
      await req('update dry run', 'PUT', `${widget(ns, 'dr')}?dryRun=All`, {
        body: { ...c.body, spec: { ...c.body.spec, color: 'blue' } },
      });
      await req('patch dry run', 'PATCH', `${widget(ns, 'dr')}?dryRun=All`, {
        body: { spec: { color: 'green' } },
        contentType: MERGE_PATCH,
      });
      await req('delete dry run', 'DELETE', `${widget(ns, 'dr')}?dryRun=All`);
      await req('unchanged', 'GET', widget(ns, 'dr'));
      await req('bad dryRun value: 400', 'POST', `${widgets(ns)}?dryRun=Some`, { body: w('dr2') });
      await req('invalid object in dry run: 422', 'POST', `${widgets(ns)}?dryRun=All`, {
        body: w('dr3', { color: 'pink' }),
      });
    },
  },
  {
    name: 'methods and unknown resources',
    async run({ ns, req }) {
      await req('PUT on a collection: 405', 'PUT', widgets(ns), { body: w('x') });
      await req('POST on a named object: 405', 'POST', widget(ns, 'x'), { body: w('x') });
      await req('unknown resource: 404', 'GET', `${G}/namespaces/${ns}/gizmos`);
      await req('unknown group: 404', 'GET', '/apis/nothing.example.com/v1/things');
      await req('delete collection', 'DELETE', widgets(ns));
    },
  },
  {
    name: 'bad requests: verbs on collections and objects, bodies, content types, query parameters',
    async run({ ns, req, send }) {
      await send('POST', widgets(ns), { body: w('a') });
      await send('POST', cms(ns), { body: cm('c') });
      // verbs a collection URL does not take
      for (const [path, what] of [
        [widgets(ns), 'custom resources'],
        [cms(ns), 'configmaps'],
      ] as const) {
        await req(`PATCH on the ${what} collection: 405`, 'PATCH', path, { body: {}, contentType: MERGE_PATCH });
        await req(`PATCH (JSON patch) on the ${what} collection: 405`, 'PATCH', path, {
          body: [],
          contentType: JSON_PATCH,
        });
        await req(`apply on the ${what} collection: 405`, 'PATCH', `${path}?fieldManager=m`, {
          body: '{}',
          contentType: APPLY,
        });
        await req(`OPTIONS on the ${what} collection`, 'OPTIONS', path);
      }
      await req('PUT on the configmaps collection', 'PUT', cms(ns), { body: cm('c') });
      await req('POST on a named configmap', 'POST', `${cms(ns)}/c`, { body: cm('c') });
      await req('OPTIONS on a custom resource', 'OPTIONS', widget(ns, 'a'));
      await req('OPTIONS on a configmap', 'OPTIONS', `${cms(ns)}/c`);
      await req('POST on a status subresource', 'POST', `${widget(ns, 'a')}/status`, { body: w('a') });
      await req('DELETE on a status subresource', 'DELETE', `${widget(ns, 'a')}/status`);
      await req('POST on a configmap that has no status', 'POST', `${cms(ns)}/c/status`, { body: cm('c') });
      for (const [path, what] of [
        [`${G}/widgets`, 'custom resources'],
        ['/api/v1/configmaps', 'configmaps'],
      ] as const) {
        await req(`PATCH on ${what} across namespaces`, 'PATCH', path, { body: {}, contentType: MERGE_PATCH });
        await req(`POST on ${what} across namespaces`, 'POST', path, {
          body: path.includes('configmaps') ? cm('b') : w('b'),
        });
        await req(`PUT on ${what} across namespaces`, 'PUT', path, { body: {} });
        await req(`DELETE on ${what} across namespaces`, 'DELETE', `${path}?labelSelector=none%3Dnone`);
      }
      // bodies that are not JSON
      for (const [text, what] of [
        ['{not json', 'an unquoted key'],
        ['{"apiVersion": "fidelity.crdgen.dev/v1",', 'cut short'],
        ['[1, 2]', 'an array'],
        ['"text"', 'a string'],
        ['{"a": 1} x', 'text after the object'],
        ['{"a" 1}', 'a missing colon'],
        ['{"a": tru}', 'a broken literal'],
        ['{"a": "\\q"}', 'a bad escape'],
      ] as const) {
        await req(`POST a body that is ${what}: 400`, 'POST', widgets(ns), { body: text });
        await req(`PUT a configmap body that is ${what}: 400`, 'PUT', `${cms(ns)}/c`, { body: text });
      }
      await req('merge patch that is not JSON: 400', 'PATCH', widget(ns, 'a'), {
        body: '{not json',
        contentType: MERGE_PATCH,
      });
      await req('JSON patch that is not JSON: 400', 'PATCH', widget(ns, 'a'), {
        body: '[{"op": ',
        contentType: JSON_PATCH,
      });
      // empty bodies
      await req('POST with an empty body: 400', 'POST', widgets(ns), { body: '' });
      await req('PUT with an empty body: 400', 'PUT', widget(ns, 'a'), { body: '' });
      await req('merge patch with an empty body: 400', 'PATCH', widget(ns, 'a'), {
        body: '',
        contentType: MERGE_PATCH,
      });
      await req('JSON patch with an empty body: 400', 'PATCH', widget(ns, 'a'), { body: '', contentType: JSON_PATCH });
      await req('apply with an empty body', 'PATCH', `${widget(ns, 'a')}?fieldManager=m`, {
        body: '',
        contentType: APPLY,
      });
      // content types
      await req('POST as text/plain: 415', 'POST', widgets(ns), {
        body: JSON.stringify(w('t')),
        contentType: 'text/plain',
      });
      await req('PUT as application/xml: 415', 'PUT', widget(ns, 'a'), {
        body: '<Widget/>',
        contentType: 'application/xml',
      });
      await req('PATCH as application/json: 415', 'PATCH', widget(ns, 'a'), {
        body: {},
        contentType: 'application/json',
      });
      await req('PATCH as text/plain: 415', 'PATCH', `${cms(ns)}/c`, { body: {}, contentType: 'text/plain' });
      await req('POST with a content type carrying a charset', 'POST', widgets(ns), {
        body: w('cs'),
        contentType: 'application/json; charset=utf-8',
      });
      await req('POST as YAML', 'POST', widgets(ns), {
        body: 'apiVersion: fidelity.crdgen.dev/v1\nkind: Widget\nmetadata: {name: yml}\nspec: {color: red}\n',
        contentType: 'application/yaml',
      });
      await req('POST as text/yaml', 'POST', cms(ns), {
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tyml}\n',
        contentType: 'text/yaml',
      });
      await req('POST without a content type', 'POST', cms(ns), { body: cm('noct'), contentType: '' });
      await req('POST as a merge patch', 'POST', widgets(ns), { body: w('mp'), contentType: MERGE_PATCH });
      await req('PUT a configmap as text/plain', 'PUT', `${cms(ns)}/c`, { body: cm('c'), contentType: 'text/plain' });
      await req('apply with an empty body to a configmap', 'PATCH', `${cms(ns)}/c?fieldManager=m`, {
        body: '',
        contentType: APPLY,
      });
      await req('apply that is not YAML', 'PATCH', `${widget(ns, 'a')}?fieldManager=m`, {
        body: 'a: [1',
        contentType: APPLY,
      });
      await req('POST as YAML that does not parse: 400', 'POST', widgets(ns), {
        body: 'a: [1\n',
        contentType: 'application/yaml',
      });
      // Accept headers the server cannot answer
      await req('GET with Accept: text/html: 406', 'GET', widget(ns, 'a'), { accept: 'text/html' });
      await req('list with Accept: application/xml: 406', 'GET', widgets(ns), { accept: 'application/xml' });
      await req('GET a configmap with Accept: text/plain: 406', 'GET', `${cms(ns)}/c`, { accept: 'text/plain' });
      await req('GET with Accept: */*', 'GET', `${cms(ns)}/c`, { accept: '*/*' });
      await req('GET with Accept: application/*', 'GET', `${cms(ns)}/c`, { accept: 'application/*' });
      await req('GET with Accept: a browser', 'GET', `${cms(ns)}/c`, {
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      });
      await req('GET with Accept: text/html, application/json', 'GET', `${cms(ns)}/c`, {
        accept: 'text/html, application/json',
      });
      await req('GET with Accept: application/json;as=Foo', 'GET', `${cms(ns)}/c`, {
        accept: 'application/json;as=Foo',
      });
      await req('GET a custom resource with Accept: application/*', 'GET', widget(ns, 'a'), {
        accept: 'application/*',
      });
      await req('apply of {} to an object', 'PATCH', `${widget(ns, 'a')}?fieldManager=m`, {
        body: '{}',
        contentType: APPLY,
      });
      await req('create with Accept: text/html', 'POST', widgets(ns), { body: w('acc'), accept: 'text/html' });
      // query parameters that do not parse
      await req('list with limit=abc: 400', 'GET', `${widgets(ns)}?limit=abc`);
      await req('list with limit=-1', 'GET', `${widgets(ns)}?limit=-1`);
      await req('list with limit= (empty)', 'GET', `${widgets(ns)}?limit=`);
      await req('list with a limit past int64', 'GET', `${widgets(ns)}?limit=99999999999999999999`);
      await req('list with limit=1.5', 'GET', `${cms(ns)}?limit=1.5`);
      await req('list with limit=+2', 'GET', `${cms(ns)}?limit=%2B2`);
      await req('watch with timeoutSeconds=x', 'GET', `${cms(ns)}?watch=1&timeoutSeconds=x`);
      await req('delete with gracePeriodSeconds= (empty)', 'DELETE', `${cms(ns)}/nope?gracePeriodSeconds=`);
      await req('list with timeoutSeconds=x: 400', 'GET', `${widgets(ns)}?timeoutSeconds=x`);
      await req(
        'list with a bad labelSelector: 400',
        'GET',
        `${widgets(ns)}?labelSelector=${encodeURIComponent('a in (')}`,
      );
      await req(
        'list with a bad fieldSelector: 400',
        'GET',
        `${widgets(ns)}?fieldSelector=${encodeURIComponent('spec.color')}`,
      );
      await req('delete with gracePeriodSeconds=soon: 400', 'DELETE', `${cms(ns)}/c?gracePeriodSeconds=soon`);
      await req('delete with propagationPolicy=Never: 422', 'DELETE', `${cms(ns)}/c?propagationPolicy=Never`);
      await req('create with dryRun=Yes: 400', 'POST', `${widgets(ns)}?dryRun=Yes`, { body: w('d') });
    },
  },
  {
    name: 'Table form',
    async run({ ns, req, send, eventually }) {
      await send('POST', widgets(ns), { body: w('t1', { replicas: 2 }) });
      const c = await send('POST', widgets(ns), { body: w('t2', { color: 'blue' }) });
      await send('PUT', `${widget(ns, 't2')}/status`, {
        body: {
          ...c.body,
          status: {
            conditions: [
              { type: 'Synced', status: 'False' },
              { type: 'Ready', status: 'True' },
            ],
          },
        },
      });
      const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
      await req('list as Table', 'GET', widgets(ns), { accept: table });
      await req('get as Table', 'GET', widget(ns, 't2'), { accept: table });
      await send('POST', cms(ns), { body: cm('tc') });
      await req('configmaps as Table', 'GET', cms(ns), { accept: table });
      await req('Table with includeObject=Object', 'GET', `${widget(ns, 't1')}?includeObject=Object`, {
        accept: table,
      });
      await send('POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'ts' },
          type: 'kubernetes.io/basic-auth',
          stringData: { username: 'u', password: 'p' },
        },
      });
      await req('secrets as Table', 'GET', `/api/v1/namespaces/${ns}/secrets`, { accept: table });
      const d = deployment('td', 2);
      (d.spec as Json).selector = {
        matchLabels: { app: 'td' },
        matchExpressions: [
          { key: 'tier', operator: 'NotIn', values: ['x', 'y'] },
          { key: 'env', operator: 'Exists' },
        ],
      };
      await send('POST', deploys(ns), { body: d });
      await req('deployments as Table', 'GET', `${deploys(ns)}?fieldSelector=metadata.name%3Dtd`, { accept: table });
      await send('POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'tl' },
          spec: { holderIdentity: 'me' },
        },
      });
      await req('leases as Table', 'GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { accept: table });
      await req('a namespace as Table', 'GET', `/api/v1/namespaces/${ns}`, { accept: table });
      await req(
        'CRD as Table',
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.fidelity.crdgen.dev',
        { accept: table },
      );
      await send('POST', `/api/v1/namespaces/${ns}/events`, {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'te1' },
          involvedObject: { kind: 'ConfigMap', name: 'tc', namespace: ns, fieldPath: 'data' },
          reason: 'Made',
          message: ' hello \n',
          type: 'Normal',
          source: { component: 'me', host: 'h' },
          count: 3,
          firstTimestamp: '2026-01-01T00:00:00Z',
          lastTimestamp: '2026-01-02T00:00:00Z',
        },
      });
      await send('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'te2' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          reportingController: 'ctl',
          reportingInstance: 'ctl-1',
          action: 'Do',
          reason: 'Did',
          type: 'Warning',
          regarding: { kind: 'Pod', name: 'p' },
          note: 'done',
        },
      });
      await req('core events as Table', 'GET', `/api/v1/namespaces/${ns}/events`, { accept: table });
      await req('events.k8s.io events as Table', 'GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
        accept: table,
      });
      const plain = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'plains.fidelity.crdgen.dev' },
        spec: {
          group: 'fidelity.crdgen.dev',
          names: { kind: 'Plain', plural: 'plains' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      };
      await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: plain });
      await eventually(
        'a CRD without printer columns is served',
        'GET',
        `${G}/namespaces/${ns}/plains`,
        (r) => r.status === 200,
      );
      await send('POST', `${G}/namespaces/${ns}/plains`, {
        body: { apiVersion: 'fidelity.crdgen.dev/v1', kind: 'Plain', metadata: { name: 'p1' } },
      });
      await req('a CRD without printer columns as Table', 'GET', `${G}/namespaces/${ns}/plains`, { accept: table });
      await send('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/plains.fidelity.crdgen.dev');
    },
  },
  {
    name: 'deletion: finalizers, propagationPolicy, gracePeriodSeconds',
    async run({ ns, req, send, eventually }) {
      await send('POST', widgets(ns), { body: w('f', {}, { metadata: { finalizers: ['example.com/keep'] } }) });
      await req('delete with a finalizer: deletionTimestamp set, object kept', 'DELETE', widget(ns, 'f'));
      const g = await req('still there', 'GET', widget(ns, 'f'));
      await req('spec change while deleting keeps generation rules', 'PATCH', widget(ns, 'f'), {
        body: { spec: { color: 'blue' } },
        contentType: MERGE_PATCH,
      });
      await req('adding a finalizer while deleting: 422', 'PATCH', widget(ns, 'f'), {
        body: { metadata: { finalizers: ['example.com/keep', 'example.com/new'] } },
        contentType: MERGE_PATCH,
      });
      void g;
      await req('remove the finalizer: gone', 'PATCH', widget(ns, 'f'), {
        body: { metadata: { finalizers: null } },
        contentType: MERGE_PATCH,
      });
      await eventually('then 404', 'GET', widget(ns, 'f'), (r) => r.status === 404);
      const owner = await send('POST', cms(ns), { body: cm('owner') });
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid };
      await send('POST', widgets(ns), { body: w('child', {}, { metadata: { ownerReferences: [ref] } }) });
      await req('foreground delete of the owner', 'DELETE', `${cms(ns)}/owner?propagationPolicy=Foreground`);
      await eventually('owner gone after its dependent', 'GET', `${cms(ns)}/owner`, (r) => r.status === 404);
      await eventually('dependent collected', 'GET', widget(ns, 'child'), (r) => r.status === 404);
      const owner2 = await send('POST', cms(ns), { body: cm('owner2') });
      await send('POST', widgets(ns), {
        body: w(
          'orphan',
          {},
          { metadata: { ownerReferences: [{ ...ref, name: 'owner2', uid: owner2.body.metadata.uid }] } },
        ),
      });
      await req('orphan delete', 'DELETE', `${cms(ns)}/owner2`, {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
      });
      await eventually(
        'orphan kept without its owner reference',
        'GET',
        widget(ns, 'orphan'),
        (r) => r.status === 200 && !r.body.metadata.ownerReferences,
      );
      await req('bad propagationPolicy: 400', 'DELETE', `${widget(ns, 'orphan')}?propagationPolicy=Sometimes`);
      await req('delete with preconditions that do not match: 409', 'DELETE', widget(ns, 'orphan'), {
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
        },
      });
      await req('delete with gracePeriodSeconds=0', 'DELETE', `${widget(ns, 'orphan')}?gracePeriodSeconds=0`);
      await req('delete with a negative gracePeriodSeconds', 'DELETE', `${cms(ns)}/owner2?gracePeriodSeconds=-1`);
    },
  },
  {
    name: 'built-ins testenv serves',
    async run({ ns, req, send }) {
      await req('configmap create', 'POST', cms(ns), { body: cm('b1') });
      await req('configmap with binaryData and immutable', 'POST', cms(ns), {
        body: { ...cm('b2'), binaryData: { bin: 'AAEC' }, immutable: true },
      });
      await req('immutable configmap update: 422', 'PUT', `${cms(ns)}/b2`, {
        body: { ...cm('b2', { a: 'changed' }), immutable: true },
      });
      await req('configmap with a bad key: 422', 'POST', cms(ns), { body: cm('b3', { 'bad key': 'x' }) });
      await req('secret with stringData', 'POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { password: 'p' } },
      });
      await req('secret type default', 'GET', `/api/v1/namespaces/${ns}/secrets/s1`);
      await req('deployment create (defaults)', 'POST', deploys(ns), { body: deployment('d1', 2) });
      await req('deployment without selector: 422', 'POST', deploys(ns), {
        body: {
          ...deployment('d2'),
          spec: {
            template: { metadata: { labels: { app: 'd2' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          },
        },
      });
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l1' },
        spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
      };
      await req('lease create', 'POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { body: lease });
      await req('namespace create', 'POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${ns}-x` } },
      });
      await req('namespace delete: Terminating', 'DELETE', `/api/v1/namespaces/${ns}-x`);
      await req('event create', 'POST', `/api/v1/namespaces/${ns}/events`, {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'e1' },
          involvedObject: { kind: 'ConfigMap', name: 'b1', namespace: ns },
          reason: 'Test',
          message: 'hello',
          type: 'Normal',
        },
      });
      await send('DELETE', `/api/v1/namespaces/${ns}/events/e1`);
    },
  },
  {
    name: 'built-ins as their Go structs encode them',
    async run({ ns, req }) {
      await req('empty labels, annotations, finalizers and data are left out', 'POST', cms(ns), {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'g1', labels: {}, annotations: {}, finalizers: [] },
          data: {},
        },
      });
      await req('false, 0 and empty lists of omitempty fields are left out', 'POST', deploys(ns), {
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'g2' },
          spec: {
            paused: false,
            minReadySeconds: 0,
            selector: { matchLabels: { a: 'b' } },
            template: {
              metadata: { labels: { a: 'b' } },
              spec: { containers: [{ name: 'c', image: 'i', stdin: false, args: [], env: [] }], volumes: [] },
            },
          },
        },
      });
      await req('pointers are kept as sent', 'POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'g3' },
          spec: { holderIdentity: '', leaseTransitions: 0 },
        },
      });
      await req('an update that only sends empty omitempty fields is a no-op', 'PUT', `${cms(ns)}/g1`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g1', labels: {} }, data: {}, binaryData: {} },
      });
    },
  },
  {
    name: 'built-in validation',
    async run({ ns, req }) {
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      const secret = (name: string, extra: Json): Json => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        ...extra,
      });
      await req('configmap keys: bad, reserved, in both maps: 422', 'POST', cms(ns), {
        body: { ...cm('v1', { 'bad key': 'x', '..x': '1', k: 'a' }), binaryData: { k: 'AA==', 'b/c': 'AA==' } },
      });
      await req('immutable configmap', 'POST', cms(ns), { body: { ...cm('v2'), immutable: true } });
      await req('immutable may not be unset: 422', 'PUT', `${cms(ns)}/v2`, { body: { ...cm('v2'), immutable: false } });
      await req('immutable may not be dropped: 422', 'PUT', `${cms(ns)}/v2`, { body: cm('v2') });
      await req('immutable: metadata may change', 'PUT', `${cms(ns)}/v2`, {
        body: { ...cm('v2', { a: '1' }, { labels: { x: 'y' } }), immutable: true },
      });
      await req('secret keys, stringData too: 422', 'POST', secrets, {
        body: secret('s1', { data: { 'bad key': 'AA==' }, stringData: { 'x y': '1' } }),
      });
      await req('tls secret without its keys: 422', 'POST', secrets, {
        body: secret('s2', { type: 'kubernetes.io/tls', data: {} }),
      });
      await req('basic-auth secret without username or password: 422', 'POST', secrets, {
        body: secret('s3', { type: 'kubernetes.io/basic-auth' }),
      });
      await req('dockerconfigjson secret that is not JSON: 422', 'POST', secrets, {
        body: secret('s4', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{bad' } }),
      });
      await req('service-account-token secret without its annotation: 422', 'POST', secrets, {
        body: secret('s5', { type: 'kubernetes.io/service-account-token' }),
      });
      await req('ssh-auth secret without its key: 422', 'POST', secrets, {
        body: secret('s6', { type: 'kubernetes.io/ssh-auth' }),
      });
      await req('immutable secret', 'POST', secrets, {
        body: secret('s7', { stringData: { a: 'x' }, immutable: true }),
      });
      await req('immutable secret: type, immutable and data changed: 422', 'PUT', `${secrets}/s7`, {
        body: secret('s7', { type: 'kubernetes.io/basic-auth', data: { a: 'eQ==', username: 'dQ==' } }),
      });
      await req('basic-auth secret', 'POST', secrets, {
        body: secret('s8', { type: 'kubernetes.io/basic-auth', stringData: { password: 'p' } }),
      });
      await req('secret type may not change, not even to the default: 422', 'PUT', `${secrets}/s8`, {
        body: secret('s8', { stringData: { password: 'p' } }),
      });
      await req('lease durations: 422', 'POST', leases, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'l1' },
          spec: { leaseDurationSeconds: 0, leaseTransitions: -1, holderIdentity: 'me' },
        },
      });
      await req('lease: the gated strategy fields are dropped', 'POST', leases, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'l2' },
          spec: { strategy: 'Bogus', preferredHolder: 'x' },
        },
      });
      await req('lease without spec: spec {}', 'POST', leases, {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l3' } },
      });
      await req('namespace with a finalizer that is not qualified: 422', 'POST', '/api/v1/namespaces', {
        body: {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `${ns}-f` },
          spec: { finalizers: ['bad', 'a/b', 'kubernetes'] },
        },
      });
      const dep = (name: string, spec: Json): Json => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec,
      });
      const podTemplate = (labels: Json, podSpec: Json): Json => ({ metadata: { labels }, spec: podSpec });
      await req(
        'deployment: replicas, selector mismatch, container names and images, restartPolicy: 422',
        'POST',
        deploys(ns),
        {
          body: dep('d1', {
            replicas: -1,
            selector: { matchLabels: { app: 'x' } },
            template: podTemplate(
              { app: 'y' },
              {
                containers: [
                  { name: 'Bad_Name' },
                  { image: 'i' },
                  { name: 'c', image: 'i' },
                  { name: 'c', image: 'j' },
                ],
                restartPolicy: 'Never',
              },
            ),
          }),
        },
      );
      await req('deployment: empty selector, no containers: 422', 'POST', deploys(ns), {
        body: dep('d2', { selector: {}, template: podTemplate({ app: 'y' }, { containers: [] }) }),
      });
      await req('deployment: selector expressions, strategy, limits: 422', 'POST', deploys(ns), {
        body: dep('d3', {
          selector: {
            matchExpressions: [
              { key: 'app', operator: 'In', values: ['x'] },
              { key: 'tier', operator: 'Exists' },
            ],
          },
          template: podTemplate({ app: 'x' }, { containers: [{ name: 'c', image: 'i' }] }),
          strategy: { type: 'Bogus' },
          revisionHistoryLimit: -1,
          minReadySeconds: 700,
        }),
      });
      await req('deployment: container ports, rolling update of 0 and 0: 422', 'POST', deploys(ns), {
        body: dep('d4', {
          selector: { matchLabels: { app: 'x' } },
          template: podTemplate(
            { app: 'x' },
            {
              containers: [
                {
                  name: 'c',
                  image: 'i',
                  ports: [
                    { containerPort: 0 },
                    { containerPort: 80, name: 'Bad_Name' },
                    { containerPort: 80, protocol: 'HTTP' },
                  ],
                },
              ],
            },
          ),
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
        }),
      });
      await req('deployment: Recreate with rollingUpdate: 422', 'POST', deploys(ns), {
        body: dep('d5', {
          selector: { matchLabels: { app: 'x' } },
          template: podTemplate({ app: 'x' }, { containers: [{ name: 'c', image: 'i' }] }),
          strategy: { type: 'Recreate', rollingUpdate: { maxUnavailable: 1 } },
        }),
      });
      await req(
        'deployment: a volume mount of no volume, a pull policy, requests above limits: 422',
        'POST',
        deploys(ns),
        {
          body: dep('d6', {
            selector: { matchLabels: { app: 'x' } },
            template: podTemplate(
              { app: 'x' },
              {
                containers: [
                  {
                    name: 'c',
                    image: 'i',
                    imagePullPolicy: 'Sometimes',
                    volumeMounts: [{ name: 'missing', mountPath: '/x' }],
                    resources: { limits: { cpu: '1' }, requests: { cpu: '2' } },
                  },
                ],
              },
            ),
          }),
        },
      );
      await req('deployment: Recreate', 'POST', deploys(ns), {
        body: dep('d7', {
          selector: { matchLabels: { app: 'x' } },
          template: podTemplate({ app: 'x' }, { containers: [{ name: 'c', image: 'i' }] }),
          strategy: { type: 'Recreate' },
        }),
      });
      await req('deployment: the selector is immutable: 422', 'PATCH', `${deploys(ns)}/d7`, {
        body: { spec: { selector: { matchLabels: { app: 'z' } }, template: { metadata: { labels: { app: 'z' } } } } },
        contentType: MERGE_PATCH,
      });
    },
  },
  {
    name: 'events: core/v1 and events.k8s.io/v1 are one resource',
    async run({ ns, req, watch, note, send }) {
      const core = `/api/v1/namespaces/${ns}/events`;
      const v1 = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const w = await watch(`${v1}?watch=true`);
      await req('core event create: nothing invented', 'POST', core, {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'c1' },
          involvedObject: { kind: 'ConfigMap', name: 'b1', namespace: ns },
          reason: 'Test',
          message: 'hello',
          type: 'Normal',
          source: { component: 'me' },
        },
      });
      await req('read through events.k8s.io/v1', 'GET', `${v1}/c1`);
      const k1 = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'k1' },
        eventTime: '2026-01-01T00:00:00.000000Z',
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        action: 'Reconcile',
        reason: 'Synced',
        type: 'Warning',
        regarding: { kind: 'Pod', name: 'p', namespace: ns },
        note: 'done',
        series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
      };
      await req('events.k8s.io/v1 event create', 'POST', v1, { body: k1 });
      await req('read through core/v1', 'GET', `${core}/k1`);
      await req('list through core/v1', 'GET', core);
      await req('list through events.k8s.io/v1', 'GET', v1);
      const evs = await w.waitFor(2);
      w.close();
      note(
        'an events.k8s.io/v1 watch sees both',
        evs.slice(0, 2).map((e) => ({
          type: e.type,
          name: e.object.metadata.name,
          apiVersion: e.object.apiVersion,
          note: e.object.note,
          regarding: e.object.regarding,
        })),
      );
      await req('events.k8s.io/v1 rules: series, eventTime, type, deprecated fields: 422', 'POST', v1, {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'k2' },
          reason: 'x',
          type: 'Bogus',
          deprecatedCount: 3,
          deprecatedSource: { component: 'a' },
          deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
          series: { count: 1 },
        },
      });
      await req('events.k8s.io/v1 rules: reporting fields required: 422', 'POST', v1, {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'k3' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          regarding: { kind: 'Pod', name: 'p' },
        },
      });
      await req('core/v1 rules with eventTime: reportingComponent required: 422', 'POST', core, {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'c2' },
          eventTime: '2026-01-01T00:00:00.000000Z',
          involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
        },
      });
      await req('core/v1: the involved object in another namespace: 422', 'POST', core, {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'c3' },
          involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
        },
      });
      await req('events.k8s.io/v1 update: the note is immutable: 422', 'PATCH', `${v1}/k1`, {
        body: { note: 'changed' },
        contentType: MERGE_PATCH,
      });
      await req('events.k8s.io/v1 update: the series may grow', 'PATCH', `${v1}/k1`, {
        body: { series: { count: 3, lastObservedTime: '2026-01-01T00:00:05.000000Z' } },
        contentType: MERGE_PATCH,
      });
      await req('core/v1 update: count and message may change', 'PATCH', `${core}/c1`, {
        body: { count: 5, message: 'again' },
        contentType: MERGE_PATCH,
      });
      await req('the core update read through events.k8s.io/v1', 'GET', `${v1}/c1`);
      await req('core field selector', 'GET', `${core}?fieldSelector=involvedObject.kind%3DPod`);
      await req('events.k8s.io/v1 field selector', 'GET', `${v1}?fieldSelector=regarding.kind%3DPod`);
      await req(
        'events.k8s.io/v1 field selector by a core name: 400',
        'GET',
        `${v1}?fieldSelector=involvedObject.kind%3DPod`,
      );
      await req(
        'core field selector reportingComponent',
        'GET',
        `${core}?fieldSelector=reportingComponent%3Dexample.com%2Fctl`,
      );
      await req('core field selector source', 'GET', `${core}?fieldSelector=source%3Dme`);
      const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
      await req('events.k8s.io/v1 events as Table', 'GET', v1, { accept: table });
      await req('delete through events.k8s.io/v1', 'DELETE', `${v1}/c1`);
      await req('gone through core/v1', 'GET', `${core}/c1`);
      void send;
    },
  },
  {
    name: 'services',
    async run({ ns, req, send, note }) {
      const svcs = `/api/v1/namespaces/${ns}/services`;
      const svc = (name: string, spec: Json, extra: Json = {}): Json => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec,
        ...extra,
      });
      // what the allocators picked at random (10.0.0.17-254, 30086-32767) is masked; the rest compared
      const dynIp = (v: unknown): unknown =>
        typeof v === 'string' && /^10\.0\.0\.(\d+)$/.test(v) && Number(v.split('.')[3]) >= 17 ? '<dynamic IP>' : v;
      const dynPort = (v: unknown): unknown =>
        typeof v === 'number' && v >= 30086 && v <= 32767 ? '<dynamic port>' : v;
      const mask = (b: unknown): unknown => {
        const o = structuredClone(b) as Json & { spec?: Json };
        const sp = o?.spec;
        if (sp) {
          sp.clusterIP = dynIp(sp.clusterIP);
          if (Array.isArray(sp.clusterIPs)) sp.clusterIPs = sp.clusterIPs.map(dynIp);
          if (sp.healthCheckNodePort !== undefined) sp.healthCheckNodePort = dynPort(sp.healthCheckNodePort);
          if (Array.isArray(sp.ports))
            for (const p of sp.ports as Json[]) if (p.nodePort !== undefined) p.nodePort = dynPort(p.nodePort);
        }
        return o;
      };
      const masked = async (
        step: string,
        method: string,
        path: string,
        body?: unknown,
        contentType?: string,
      ): Promise<void> => {
        const r = await send(method, path, { body, contentType });
        note(step, {
          status: r.status,
          body: r.body?.kind === 'Status' ? { message: r.body.message, details: r.body.details } : mask(r.body),
        });
      };
      await masked(
        'create: defaults, an allocated cluster IP',
        'POST',
        svcs,
        svc('a', { selector: { app: 'a' }, ports: [{ port: 80 }] }),
      );
      await req('create with a requested cluster IP, a named target port and UDP', 'POST', svcs, {
        body: svc('b', {
          clusterIP: '10.0.0.5',
          ports: [
            { name: 'http', port: 80, targetPort: 'web' },
            { name: 'dns', port: 53, protocol: 'UDP' },
          ],
        }),
      });
      await req('a requested IP already allocated: 422', 'POST', svcs, {
        body: svc('c', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }),
      });
      await req('the kubernetes Service IP is allocated: 422', 'POST', svcs, {
        body: svc('c', { clusterIP: '10.0.0.1', ports: [{ port: 80 }] }),
      });
      await req('an IP outside the service CIDR: 422', 'POST', svcs, {
        body: svc('c', { clusterIP: '10.1.0.5', ports: [{ port: 80 }] }),
      });
      await req('an IP that is not one: 422', 'POST', svcs, {
        body: svc('c', { clusterIP: 'abc', ports: [{ port: 80 }] }),
      });
      await req('an IPv6 IP on a single-stack cluster: 422', 'POST', svcs, {
        body: svc('c', { clusterIP: 'fd00::5', ports: [{ port: 80 }] }),
      });
      await req('no ports: 422', 'POST', svcs, { body: svc('c', { selector: { app: 'c' } }) });
      await req('ports out of range: 422', 'POST', svcs, {
        body: svc('c', { ports: [{ port: 0 }, { name: 'x', port: 70000, targetPort: 70000 }] }),
      });
      await req('duplicate ports: 422', 'POST', svcs, {
        body: svc('c', {
          ports: [
            { name: 'a', port: 80 },
            { name: 'b', port: 80 },
          ],
        }),
      });
      await req('two ports without names: 422', 'POST', svcs, {
        body: svc('c', { ports: [{ port: 80 }, { port: 81 }] }),
      });
      await req('bad port name, protocol and target port name: 422', 'POST', svcs, {
        body: svc('c', {
          ports: [{ name: 'Bad_Name', port: 80, targetPort: 'Bad_Port_Name_Too_Long', protocol: 'HTTP' }],
        }),
      });
      await req('an unknown type: 422', 'POST', svcs, { body: svc('c', { type: 'Bogus', ports: [{ port: 80 }] }) });
      await req('a nodePort on a ClusterIP Service: 422', 'POST', svcs, {
        body: svc('c', { ports: [{ port: 80, nodePort: 30001 }] }),
      });
      await req('a name that is not a DNS label: 422', 'POST', svcs, {
        body: svc('Bad.Name', { ports: [{ port: 80 }] }),
      });
      await req('NodePort with a requested node port', 'POST', svcs, {
        body: svc('np', {
          type: 'NodePort',
          clusterIP: '10.0.0.10',
          selector: { app: 'np' },
          ports: [{ port: 80, nodePort: 30005 }],
        }),
      });
      await req('a node port already allocated: 422', 'POST', svcs, {
        body: svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }),
      });
      await req('a node port out of range: 422', 'POST', svcs, {
        body: svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }),
      });
      await masked(
        'NodePort: an allocated node port',
        'POST',
        svcs,
        svc('np4', { type: 'NodePort', ports: [{ port: 80 }] }),
      );
      await req('LoadBalancer, Local: requested node and health-check ports', 'POST', svcs, {
        body: svc('lb', {
          type: 'LoadBalancer',
          clusterIP: '10.0.0.6',
          externalTrafficPolicy: 'Local',
          healthCheckNodePort: 30006,
          selector: { app: 'lb' },
          ports: [{ port: 443, nodePort: 30007 }],
        }),
      });
      await masked(
        'LoadBalancer: allocated',
        'POST',
        svcs,
        svc('lb2', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }),
      );
      await req('ExternalName', 'POST', svcs, {
        body: svc('en', { type: 'ExternalName', externalName: 'db.example.com' }),
      });
      await req('ExternalName without externalName: 422', 'POST', svcs, { body: svc('en2', { type: 'ExternalName' }) });
      await req('headless with a selector', 'POST', svcs, {
        body: svc('hl', { clusterIP: 'None', selector: { app: 'hl' }, ports: [{ port: 80 }] }),
      });
      await req('headless without a selector: dual-stack families', 'POST', svcs, {
        body: svc('hl2', { clusterIP: 'None' }),
      });
      await masked(
        'ClientIP session affinity: its timeout defaulted',
        'POST',
        svcs,
        svc('ca', { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }),
      );
      await req('dry run with a requested IP', 'POST', `${svcs}?dryRun=All`, {
        body: svc('dr', { clusterIP: '10.0.0.7', ports: [{ port: 80 }] }),
      });
      await req('the dry run did not take the IP', 'POST', svcs, {
        body: svc('dr', { clusterIP: '10.0.0.7', ports: [{ port: 80 }] }),
      });
      await req('update without clusterIP keeps it', 'PUT', `${svcs}/b`, {
        body: svc('b', { ports: [{ name: 'http', port: 8080, targetPort: 'web' }] }),
      });
      await req('update that changes clusterIP: 422', 'PUT', `${svcs}/b`, {
        body: svc('b', { clusterIP: '10.0.0.8', ports: [{ name: 'http', port: 80 }] }),
      });
      await req('merge patch that changes clusterIP: 422', 'PATCH', `${svcs}/b`, {
        body: { spec: { clusterIP: '10.0.0.9' } },
        contentType: MERGE_PATCH,
      });
      await req('patch to NodePort with a requested node port', 'PATCH', `${svcs}/b`, {
        body: { spec: { type: 'NodePort', ports: [{ name: 'http', port: 8080, targetPort: 'web', nodePort: 30008 }] } },
        contentType: MERGE_PATCH,
      });
      await req('patch back to ClusterIP: node ports and externalTrafficPolicy dropped', 'PATCH', `${svcs}/b`, {
        body: { spec: { type: 'ClusterIP' } },
        contentType: MERGE_PATCH,
      });
      await req('patch to ExternalName: cluster IPs and families dropped', 'PATCH', `${svcs}/b`, {
        body: { spec: { type: 'ExternalName', externalName: 'b.example.com' } },
        contentType: MERGE_PATCH,
      });
      await req('the freed IP can be requested again', 'POST', svcs, {
        body: svc('b2', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }),
      });
      await req('status of a LoadBalancer: ipMode defaulted', 'PATCH', `${svcs}/lb/status`, {
        body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
        contentType: MERGE_PATCH,
      });
      await req('status with a bad ingress IP: 422', 'PATCH', `${svcs}/lb/status`, {
        body: { status: { loadBalancer: { ingress: [{ ip: 'nope' }] } } },
        contentType: MERGE_PATCH,
      });
      await req('field selector spec.type', 'GET', `${svcs}?fieldSelector=spec.type%3DExternalName`);
      await req('field selector spec.clusterIP', 'GET', `${svcs}?fieldSelector=spec.clusterIP%3D10.0.0.6`);
      const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
      await req(
        'services as Table',
        'GET',
        `${svcs}?fieldSelector=metadata.name%21%3Da,metadata.name%21%3Dnp4,metadata.name%21%3Dlb2,metadata.name%21%3Dca`,
        { accept: table },
      );
      await req('delete answers the Service', 'DELETE', `${svcs}/b2`);
      await req('proxy: no endpoints, 503', 'GET', `${svcs}/lb/proxy`);
      await masked(
        'server-side apply creates a Service',
        'PATCH',
        `${svcs}/ap?fieldManager=op`,
        JSON.stringify(
          svc('ap', {
            selector: { app: 'ap' },
            ports: [{ name: 'db', port: 5432, targetPort: 5432, protocol: 'TCP' }],
          }),
        ),
        APPLY,
      );
      await masked(
        'server-side apply changes the port, the cluster IP stays',
        'PATCH',
        `${svcs}/ap?fieldManager=op`,
        JSON.stringify(
          svc('ap', {
            selector: { app: 'ap' },
            ports: [{ name: 'db', port: 6432, targetPort: 5432, protocol: 'TCP' }],
          }),
        ),
        APPLY,
      );
      const k = await send('GET', '/api/v1/namespaces/default/services/kubernetes');
      const kb = structuredClone(k.body);
      for (const p of kb?.spec?.ports ?? []) p.targetPort = '<apiserver port>';
      delete kb?.metadata?.resourceVersion;
      note('the kubernetes Service', { status: k.status, body: kb });
      const disc = await send('GET', '/api/v1');
      note(
        'discovery',
        (disc.body?.resources ?? [])
          .filter((r: Json) => String(r.name).startsWith('services'))
          .map((r: Json) => ({ ...r, storageVersionHash: undefined })),
      );
    },
  },
  {
    name: 'CRD install: a default that breaks its own schema is refused',
    async run({ req }) {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'baddefaults.fidelity.crdgen.dev' },
        spec: {
          group: 'fidelity.crdgen.dev',
          names: { kind: 'BadDefault', plural: 'baddefaults', singular: 'baddefault', listKind: 'BadDefaultList' },
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
                    spec: { type: 'object', properties: { size: { type: 'integer', maximum: 5, default: 10 } } },
                  },
                },
              },
            },
          ],
        },
      };
      await req('create', 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
      const schema = (props: Record<string, unknown>): Record<string, unknown> => ({
        openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
      });
      const bad = (name: string, versions: Record<string, unknown>[]): Record<string, unknown> => ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${name}s.fidelity.crdgen.dev` },
        spec: {
          group: 'fidelity.crdgen.dev',
          names: { kind: name[0].toUpperCase() + name.slice(1), plural: `${name}s` },
          scope: 'Namespaced',
          versions,
        },
      });
      await req('a rule that does not compile', 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: bad('badrule', [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: schema({ a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self.nope > 1' }] } }),
          },
        ]),
      });
      await req(
        'a type typo in one of two versions with different schemas',
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        {
          body: bad('typo', [
            { name: 'v1', served: true, storage: true, schema: schema({ a: { type: 'strin' } }) },
            { name: 'v2', served: true, storage: false, schema: schema({ b: { type: 'string' } }) },
          ]),
        },
      );
      await req(
        'a type typo in two versions with the same schema',
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        {
          body: bad('twin', [
            { name: 'v1', served: true, storage: true, schema: schema({ a: { type: 'strin' } }) },
            { name: 'v2', served: true, storage: false, schema: schema({ a: { type: 'strin' } }) },
          ]),
        },
      );
      await req('a default with an unknown field', 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: bad('pruned', [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: schema({
              o: { type: 'object', properties: { x: { type: 'string' } }, default: { x: 'a', y: 'b' } },
            }),
          },
        ]),
      });
      await req(
        'a nested default breaking a pattern',
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        {
          body: bad('nested', [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: schema({
                o: { type: 'object', properties: { x: { type: 'string', pattern: '^[a-z]+$' } }, default: { x: 'A1' } },
              }),
            },
          ]),
        },
      );
    },
  },
  {
    name: 'OpenAPI publishes the CRD schemas',
    async run({ req, note, send }) {
      const v3 = await send('GET', '/openapi/v3');
      note(
        '/openapi/v3 lists the group',
        Object.keys(v3.body?.paths ?? {}).filter((p) => p.includes('fidelity.crdgen.dev')),
      );
      const doc = await send('GET', '/openapi/v3/apis/fidelity.crdgen.dev/v1');
      note(
        '/openapi/v3/apis/fidelity.crdgen.dev/v1 lists its schemas',
        Object.keys(doc.body?.components?.schemas ?? {}),
      );
      note('the Widget schema (v3)', doc.body?.components?.schemas?.['dev.crdgen.fidelity.v1.Widget']);
      note('the WidgetList schema (v3)', doc.body?.components?.schemas?.['dev.crdgen.fidelity.v1.WidgetList']);
      note(
        'the paths and their kinds and actions (v3)',
        Object.fromEntries(
          Object.entries((doc.body?.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>).map(
            ([p, ops]) => [
              p,
              Object.fromEntries(
                Object.entries(ops)
                  .filter(([m]) => m !== 'parameters')
                  .map(([m, o]) => [
                    m,
                    { action: o['x-kubernetes-action'], gvk: o['x-kubernetes-group-version-kind'] },
                  ]),
              ),
            ],
          ),
        ),
      );
      const v2 = await send('GET', '/openapi/v2');
      note(
        '/openapi/v2 has the Widget definitions',
        Object.keys(v2.body?.definitions ?? {}).filter((k) => k.includes('fidelity')),
      );
      note('the Widget definition (v2)', v2.body?.definitions?.['dev.crdgen.fidelity.v1.Widget']);
      note('a built-in definition (v2)', v2.body?.definitions?.['io.k8s.api.apps.v1.Deployment']);
      const apps = await send('GET', '/openapi/v3/apis/apps/v1');
      note(
        'a built-in group version (v3): the Deployment schema',
        apps.body?.components?.schemas?.['io.k8s.api.apps.v1.Deployment'],
      );
      void req;
    },
  },
  ...MANAGED_FIELDS_SCENARIOS,
];

export type { ScenarioContext };
