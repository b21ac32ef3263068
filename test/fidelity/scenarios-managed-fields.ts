// Fidelity scenarios for field management: server-side apply over every list and map type
// (sets, map lists with defaulted keys, atomic lists/maps/structs, granular maps and structs,
// int-or-string, embedded resources), conflicts with one and with several managers, force,
// what an applier stops applying, updates taking fields from appliers, the status
// subresource, built-ins (ConfigMap, Lease, Deployment), the apiserver's errors, managedFields
// resets and the before-first-apply manager, and kubectl's upgrade from client-side apply.
//
// Where the real apiserver's answer depends on timing rather than on semantics, the step is
// recorded with `note` in an order-free form: managedFields sorted by operation/manager (the
// apiserver sorts entries by their time in seconds first, so two writes either side of a
// second boundary swap), conflict causes sorted (it lists managers in map order), and
// Deployments without what kube-controller-manager writes.
import type { RawOptions, RawResponse } from '../support/raw.js';
import type { Scenario, ScenarioContext } from './harness.js';

type Json = Record<string, any>;

const G = '/apis/fidelity.crdgen.dev/v1';
const widget = (ns: string, name: string): string => `${G}/namespaces/${ns}/widgets/${name}`;
const cm = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;
const lease = (ns: string, name: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}`;
const deploy = (ns: string, name: string): string => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const apply = (body: unknown): RawOptions => ({
  body: typeof body === 'string' ? body : JSON.stringify(body),
  contentType: APPLY,
});

const w = (name: string, spec: Json = {}, metadata: Json = {}): Json => ({
  apiVersion: 'fidelity.crdgen.dev/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec: { color: 'red', ...spec },
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** managedFields in a fixed order; uids inside FieldsV1 keys (ownerReferences) numbered. */
function sortedManagedFields(mf: Json[] | undefined, uids: Map<string, string>): Json[] | undefined {
  if (!mf) return mf;
  const key = (e: Json): string => `${e.operation}\u0000${e.manager}\u0000${e.subresource ?? ''}\u0000${e.apiVersion}`;
  const text = JSON.stringify([...mf].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)));
  return JSON.parse(
    text.replace(UUID, (u) => {
      if (!uids.has(u)) uids.set(u, `uid-${uids.size + 1}`);
      return uids.get(u)!;
    }),
  ) as Json[];
}

/** A response in an order-free form (see the header). `pick` chooses what of an object is kept. */
function view(r: RawResponse, uids: Map<string, string>, pick?: (body: Json) => Json): Json {
  const b = r.body as Json;
  if (b && typeof b === 'object' && b.kind === 'Status') {
    const causes = (b.details?.causes as Json[] | undefined)
      ?.slice()
      .sort((x, y) => (`${x.field}${x.message}` < `${y.field}${y.message}` ? -1 : 1));
    return { code: r.status, reason: b.reason, message: b.message, causes };
  }
  if (!b || typeof b !== 'object') return { code: r.status, body: b };
  const meta = (b.metadata ?? {}) as Json;
  const kept = pick
    ? pick(b)
    : {
        spec: b.spec,
        status: b.status,
        data: b.data,
        labels: meta.labels,
        annotations: meta.annotations,
        finalizers: meta.finalizers,
      };
  return {
    code: r.status,
    ...kept,
    managedFields: sortedManagedFields(meta.managedFields as Json[] | undefined, uids),
  };
}

function recorder(
  ctx: ScenarioContext,
): (step: string, method: string, path: string, o?: RawOptions, pick?: (b: Json) => Json) => Promise<RawResponse> {
  const uids = new Map<string, string>();
  return async (step, method, path, o, pick) => {
    const r = await ctx.send(method, path, o);
    ctx.note(step, view(r, uids, pick));
    return r;
  };
}

/** What of a Deployment is compared: not what kube-controller-manager writes (status, revision annotation, its managedFields entries). */
const deploymentPick = (b: Json): Json => ({ spec: b.spec, labels: b.metadata?.labels });
function withoutControllers(r: Json): Json {
  if (Array.isArray(r.managedFields))
    r.managedFields = r.managedFields.filter((e: Json) => e.manager !== 'kube-controller-manager');
  return r;
}

export const MANAGED_FIELDS_SCENARIOS: Scenario[] = [
  {
    name: 'server-side apply: sets, map lists, granular and atomic maps and structs',
    async run(ctx) {
      const { ns, req } = ctx;
      const rec = recorder(ctx);
      const path = (m: string, force = false): string =>
        `${widget(ns, 'm')}?fieldManager=${m}${force ? '&force=true' : ''}`;
      const template = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 't', labels: { a: 'b' } },
        data: { k: 'v' },
      };
      await req(
        'apply creates: every list and map type',
        'PATCH',
        path('alice'),
        apply(
          w('m', {
            tags: ['a', 'b'],
            ports: [
              { name: 'http', port: 80 },
              { name: 'grpc', port: 90 },
            ],
            labels: { x: '1', y: '2' },
            matrix: ['m1', 'm2'],
            selector: { app: 'a', tier: 't' },
            annotations: { k1: 'v1' },
            limits: { cpu: '1' },
            env: [
              { name: 'A', value: '1' },
              { name: 'A', scope: 'node', value: '2' },
            ],
            target: 8080,
            template,
          }),
        ),
      );
      await req(
        'another applier: sets and map lists merge by item, granular maps and structs by key',
        'PATCH',
        path('bob'),
        apply(
          w('m', {
            tags: ['c', 'a'],
            ports: [{ name: 'https', port: 443 }],
            labels: { z: '3' },
            limits: { memory: '2' },
            env: [{ name: 'B', value: '3' }],
            template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 't' }, data: { k2: 'v2' } },
          }),
        ),
      );
      await req(
        'atomic list, struct and map: conflicts with their owner',
        'PATCH',
        path('carol'),
        apply(w('m', { matrix: ['m3'], selector: { app: 'b' }, annotations: { k2: 'v2' } })),
      );
      await req(
        'force takes atomic fields whole',
        'PATCH',
        path('carol', true),
        apply(w('m', { matrix: ['m3'], selector: { app: 'b' }, annotations: { k2: 'v2' } })),
      );
      await rec(
        'the applier drops what it no longer applies, unless someone else owns it',
        'PATCH',
        path('alice'),
        apply(
          w('m', {
            tags: ['a'],
            ports: [{ name: 'http', port: 80 }],
            labels: { x: '1' },
            limits: { cpu: '1' },
            env: [{ name: 'A', value: '1' }],
            template,
          }),
        ),
      );
      await rec(
        'an update takes the fields it changed from their owners',
        'PATCH',
        `${widget(ns, 'm')}?fieldManager=dave`,
        { body: { spec: { labels: { x: '9' }, limits: { cpu: '2' } } }, contentType: MERGE },
      );
      await rec(
        'conflicts with several managers',
        'PATCH',
        path('alice'),
        apply(w('m', { tags: ['a'], labels: { x: '1', z: '9' }, limits: { cpu: '1', memory: '3' } })),
      );
      await rec(
        'several managers, forced',
        'PATCH',
        path('alice', true),
        apply(w('m', { tags: ['a'], labels: { x: '1', z: '9' }, limits: { cpu: '1', memory: '3' } })),
      );
      const cur = await ctx.send('GET', widget(ns, 'm'));
      const spec = { ...cur.body.spec, tags: [...cur.body.spec.tags, 'e'], target: 'http' };
      await rec(
        'a PUT owns the set item it added and the int-or-string it changed',
        'PUT',
        `${widget(ns, 'm')}?fieldManager=erin`,
        { body: { ...cur.body, spec } },
      );
      await rec('the object at the end', 'GET', widget(ns, 'm'));
    },
  },
  {
    name: 'server-side apply: status subresource',
    async run(ctx) {
      const { ns, req } = ctx;
      const rec = recorder(ctx);
      const status = (m: string, force = false): string =>
        `${widget(ns, 's')}/status?fieldManager=${m}${force ? '&force=true' : ''}`;
      await ctx.send('PATCH', `${widget(ns, 's')}?fieldManager=alice`, apply(w('s', { replicas: 2 })));
      await req(
        'apply to /status: status owned with subresource status; spec ignored',
        'PATCH',
        status('ctrl'),
        apply({
          ...w('s', { color: 'blue' }),
          status: { replicas: 1, conditions: [{ type: 'Ready', status: 'True' }] },
        }),
      );
      await req(
        'a second status applier: conditions merge by type',
        'PATCH',
        status('other'),
        apply({ ...w('s'), status: { conditions: [{ type: 'Synced', status: 'False' }] } }),
      );
      await req(
        'conflict with a status applier',
        'PATCH',
        status('other'),
        apply({
          ...w('s'),
          status: {
            conditions: [
              { type: 'Synced', status: 'False' },
              { type: 'Ready', status: 'False' },
            ],
          },
        }),
      );
      await rec(
        'status in a main-resource apply is ignored',
        'PATCH',
        `${widget(ns, 's')}?fieldManager=alice`,
        apply({ ...w('s', { replicas: 2 }), status: { replicas: 9 } }),
      );
      const cur = await ctx.send('GET', widget(ns, 's'));
      await rec('an update of /status', 'PUT', `${widget(ns, 's')}/status?fieldManager=upd`, {
        body: { ...cur.body, status: { ...cur.body.status, replicas: 3 } },
      });
      await rec(
        'the status applier drops a condition',
        'PATCH',
        status('ctrl'),
        apply({ ...w('s'), status: { replicas: 1 } }),
      );
    },
  },
  {
    name: 'server-side apply: built-ins',
    async run(ctx) {
      const { ns } = ctx;
      const rec = recorder(ctx);
      const owner = await ctx.send('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } },
      });
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid };
      const c = (metadata: Json, data: Json): Json => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', ...metadata },
        data,
      });
      await rec(
        'ConfigMap: data and labels granular, finalizers a set, ownerReferences by uid',
        'PATCH',
        `${cm(ns, 'c')}?fieldManager=alice`,
        apply(
          c(
            { labels: { a: '1' }, annotations: { n: 'x' }, finalizers: ['example.com/f1'], ownerReferences: [ref] },
            { a: '1', b: '2' },
          ),
        ),
      );
      await rec(
        'a second applier',
        'PATCH',
        `${cm(ns, 'c')}?fieldManager=bob`,
        apply(c({ finalizers: ['example.com/f2'], labels: { b: '2' } }, { c: '3' })),
      );
      const cur = await ctx.send('GET', cm(ns, 'c'));
      const data = { ...cur.body.data };
      delete data.a;
      await rec('an update removes a key: it leaves its owner', 'PUT', `${cm(ns, 'c')}?fieldManager=carol`, {
        body: { ...cur.body, data },
      });
      await rec(
        'alice stops applying a finalizer and her owner reference',
        'PATCH',
        `${cm(ns, 'c')}?fieldManager=alice`,
        apply(c({ labels: { a: '1' } }, { b: '2' })),
      );
      const l = (holder: string): Json => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l' },
        spec: { holderIdentity: holder, leaseDurationSeconds: 15 },
      });
      await rec('Lease: applied by its holder', 'PATCH', `${lease(ns, 'l')}?fieldManager=leader-a`, apply(l('a')));
      await rec('Lease: another holder conflicts', 'PATCH', `${lease(ns, 'l')}?fieldManager=leader-b`, apply(l('b')));
      await rec('Lease: forced', 'PATCH', `${lease(ns, 'l')}?fieldManager=leader-b&force=true`, apply(l('b')));
      const d = (containers: Json[]): Json => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { app: 'd' } },
          template: { metadata: { labels: { app: 'd' } }, spec: { containers } },
        },
      });
      const step = async (name: string, m: string, containers: Json[]): Promise<void> => {
        const r = await ctx.send('PATCH', `${deploy(ns, 'd')}?fieldManager=${m}`, apply(d(containers)));
        ctx.note(name, withoutControllers(view(r, new Map(), deploymentPick)));
      };
      await step(
        'Deployment: containers by name, ports by containerPort and defaulted protocol, selector atomic',
        'alice',
        [{ name: 'db', image: 'mysql:8', ports: [{ containerPort: 3306 }], env: [{ name: 'A', value: '1' }] }],
      );
      await step('Deployment: a second applier adds a container', 'bob', [{ name: 'side', image: 'busybox' }]);
      await step('Deployment: changing a container image another manager owns', 'carol', [
        { name: 'db', image: 'mysql:9' },
      ]);
    },
  },
  {
    name: 'server-side apply: errors',
    async run({ ns, req }) {
      const path = `${widget(ns, 'e')}?fieldManager=a`;
      await req('a field the schema does not declare: 500', 'PATCH', path, apply(w('e', { bogus: 1 })));
      await req('a value of the wrong type: 500', 'PATCH', path, apply(w('e', { replicas: 'three' })));
      await req('a duplicate set item: 500', 'PATCH', path, apply(w('e', { tags: ['a', 'a'] })));
      await req('a map-list item without its key: 500', 'PATCH', path, apply(w('e', { ports: [{ port: 1 }] })));
      await req('another kind: 400', 'PATCH', path, apply({ ...w('e'), kind: 'Gadget' }));
      await req('another version: 400', 'PATCH', path, apply({ ...w('e'), apiVersion: 'fidelity.crdgen.dev/v2' }));
      await req('managedFields in the configuration: 400', 'PATCH', path, apply(w('e', {}, { managedFields: [] })));
      await req(
        'no name: 400',
        'PATCH',
        path,
        apply({ apiVersion: 'fidelity.crdgen.dev/v1', kind: 'Widget', spec: { color: 'red' } }),
      );
      await req('another namespace: 400', 'PATCH', path, apply(w('e', {}, { namespace: 'elsewhere' })));
      await req('a configuration that is a list: 400', 'PATCH', path, { body: '[1]', contentType: APPLY });
      await req('nothing was created', 'GET', widget(ns, 'e'));
    },
  },
  {
    name: 'managedFields: updates, resets and the before-first-apply manager',
    async run(ctx) {
      const { ns, req } = ctx;
      const rec = recorder(ctx);
      const wpath = (m: string): string => `${widget(ns, 'u')}?fieldManager=${m}`;
      await req(
        'create: the creator owns what it set and the defaults',
        'POST',
        `${G}/namespaces/${ns}/widgets?fieldManager=alice`,
        { body: w('u', { tags: ['a'], labels: { x: '1' } }) },
      );
      await rec('a merge patch by another manager', 'PATCH', wpath('bob'), {
        body: { spec: { labels: { y: '2' }, tags: ['a', 'b'] } },
        contentType: MERGE,
      });
      await rec('a removed field leaves its owner', 'PATCH', wpath('carol'), {
        body: { spec: { labels: { x: null } } },
        contentType: MERGE,
      });
      await rec('an update that changes nothing keeps managedFields', 'PATCH', wpath('dave'), {
        body: { spec: { color: 'red' } },
        contentType: MERGE,
      });
      await rec('managedFields sent by the client replace the live ones', 'PATCH', wpath('erin'), {
        body: {
          metadata: {
            managedFields: [
              {
                manager: 'imported',
                operation: 'Update',
                apiVersion: 'fidelity.crdgen.dev/v1',
                fieldsType: 'FieldsV1',
                fieldsV1: { 'f:spec': { 'f:color': {} } },
              },
            ],
          },
        },
        contentType: MERGE,
      });
      await rec('[{}] drops every entry', 'PATCH', wpath('frank'), {
        body: { metadata: { managedFields: [{}] } },
        contentType: MERGE,
      });
      await rec('an update of an object without managedFields does not start tracking it', 'PATCH', wpath('gina'), {
        body: { spec: { size: 5 } },
        contentType: MERGE,
      });
      await rec(
        'the first apply: a before-first-apply manager owns what was there',
        'PATCH',
        wpath('hal'),
        apply(w('u', { size: 6 })),
      );
      await rec('forced', 'PATCH', `${wpath('hal')}&force=true`, apply(w('u', { size: 6 })));
      for (let i = 0; i < 11; i++) {
        const m = `m${String(i).padStart(2, '0')}`;
        await ctx.send('PATCH', wpath(m), { body: { spec: { labels: { [m]: 'x' } } }, contentType: MERGE });
      }
      await rec('more than ten update managers: the oldest merge into ancient-changes', 'GET', widget(ns, 'u'));
    },
  },
  {
    name: 'server-side apply: kubectl upgrade from client-side apply',
    async run(ctx) {
      const { ns, req } = ctx;
      const rec = recorder(ctx);
      const obj = w('k', { replicas: 1, size: 2 });
      const lastApplied = `${JSON.stringify(obj)}\n`;
      await ctx.send('POST', `${G}/namespaces/${ns}/widgets?fieldManager=kubectl-client-side-apply`, {
        body: {
          ...obj,
          metadata: {
            ...obj.metadata,
            annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
          },
        },
      });
      await req(
        'kubectl takes over what client-side apply set, and rewrites last-applied',
        'PATCH',
        `${widget(ns, 'k')}?fieldManager=kubectl`,
        apply(w('k', { replicas: 3, size: 2 })),
      );
      await rec('a field someone else changed still conflicts', 'PATCH', `${widget(ns, 'k')}?fieldManager=someone`, {
        body: { spec: { size: 4 } },
        contentType: MERGE,
      });
      await req(
        'kubectl applying it',
        'PATCH',
        `${widget(ns, 'k')}?fieldManager=kubectl`,
        apply(w('k', { replicas: 3, size: 5 })),
      );
      await ctx.send('POST', `${G}/namespaces/${ns}/widgets?fieldManager=kubectl-client-side-apply`, {
        body: {
          ...w('k2', { replicas: 1 }),
          metadata: {
            name: 'k2',
            annotations: {
              'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(w('k2', { replicas: 1 }))}\n`,
            },
          },
        },
      });
      await req(
        'another applier gets no such pass',
        'PATCH',
        `${widget(ns, 'k2')}?fieldManager=other`,
        apply(w('k2', { replicas: 2 })),
      );
    },
  },
];
