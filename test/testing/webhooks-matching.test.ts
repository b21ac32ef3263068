// Which webhooks the server calls and with what, on testenv and on kube-apiserver: namespace and
// object selectors, a rule's scope, subresources, matchPolicy Exact and Equivalent (the object
// converted to the webhook's version), DELETE with the oldObject, dry runs, reinvocation of an
// IfNeeded mutating webhook, a patch that does not apply, warnings, a webhook slower than its
// timeout, configurations the apiserver refuses. Every request the webhooks receive and every
// answer is recorded; the last test requires testenv's to equal kube-apiserver's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACKENDS } from '../support/backends.js';
import { raw, type RawResponse } from '../support/raw.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import {
  allowed,
  startWebhookServer,
  type AdmissionRequest,
  type AdmissionResponse,
  type HubAndSpoke,
  type WebhookServer,
  type KubeObject,
} from '../../src/runtime/index.js';

const schema = (spec: Record<string, unknown>) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: spec },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
});
const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.crdgen.dev' },
  spec: {
    group: 'crdgen.dev',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { namespace: 'system', name: 'hooks', path: '/convert' } },
      },
    },
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        subresources: { status: {} },
        schema: schema({ colour: { type: 'string' } }),
      },
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: schema({ color: { type: 'string' } }),
      },
    ],
  },
} as KubeObject;

const CONVERSIONS: HubAndSpoke[] = [
  {
    group: 'crdgen.dev',
    kind: 'Gadget',
    hub: 'v1',
    spokes: {
      v1beta1: {
        toHub: (o) => {
          const { colour, ...spec } = (o as { spec?: Record<string, unknown> }).spec ?? {};
          return { ...o, spec: { ...spec, ...(colour !== undefined ? { color: colour } : {}) } } as KubeObject;
        },
        fromHub: (o) => {
          const { color, ...spec } = (o as { spec?: Record<string, unknown> }).spec ?? {};
          return { ...o, spec: { ...spec, ...(color !== undefined ? { colour: color } : {}) } } as KubeObject;
        },
      },
    },
  },
];

const ref = (path: string) => ({ service: { namespace: 'system', name: 'hooks', path } });
const hook = (name: string, path: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: ref(path),
  rules,
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const CM = (ops: string[]) => [{ operations: ops, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

const VALIDATING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'matching' },
  webhooks: [
    hook('ns-selector.crdgen.dev', '/record/ns-selector', CM(['CREATE']), {
      namespaceSelector: { matchLabels: { hooks: 'on' } },
    }),
    hook('obj-selector.crdgen.dev', '/record/obj-selector', CM(['CREATE', 'UPDATE']), {
      objectSelector: { matchExpressions: [{ key: 'watch-me', operator: 'Exists' }] },
    }),
    hook('delete.crdgen.dev', '/record/delete', CM(['DELETE']), {
      objectSelector: { matchLabels: { deletable: 'checked' } },
    }),
    hook('scope-cluster.crdgen.dev', '/record/scope-cluster', [
      {
        operations: ['CREATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['namespaces', 'configmaps'],
        scope: 'Cluster',
      },
    ]),
    hook('scope-namespaced.crdgen.dev', '/record/scope-namespaced', [
      { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], scope: 'Namespaced' },
    ]),
    hook('status.crdgen.dev', '/record/status', [
      { operations: ['UPDATE'], apiGroups: ['crdgen.dev'], apiVersions: ['v1'], resources: ['gadgets/status'] },
    ]),
    hook(
      'exact.crdgen.dev',
      '/record/exact',
      [{ operations: ['CREATE'], apiGroups: ['crdgen.dev'], apiVersions: ['v1'], resources: ['gadgets'] }],
      { matchPolicy: 'Exact' },
    ),
    hook(
      'equivalent.crdgen.dev',
      '/record/equivalent',
      [{ operations: ['CREATE'], apiGroups: ['crdgen.dev'], apiVersions: ['v1'], resources: ['gadgets'] }],
      { matchPolicy: 'Equivalent' },
    ),
    hook('warn.crdgen.dev', '/warn', CM(['CREATE']), { objectSelector: { matchLabels: { warn: 'yes' } } }),
    hook('slow.crdgen.dev', '/slow', CM(['CREATE']), {
      timeoutSeconds: 1,
      objectSelector: { matchLabels: { slow: 'yes' } },
    }),
    hook('not-served.crdgen.dev', '/not-served', CM(['CREATE']), {
      objectSelector: { matchLabels: { answer: 'not-served' } },
    }),
    hook('patchy.crdgen.dev', '/patchy', CM(['CREATE']), { objectSelector: { matchLabels: { answer: 'patchy' } } }),
    hook('patchy-ignored.crdgen.dev', '/patchy', CM(['CREATE']), {
      failurePolicy: 'Ignore',
      objectSelector: { matchLabels: { answer: 'patchy-ignored' } },
    }),
  ],
};
const MUTATING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'reinvoke' },
  webhooks: [
    hook('first.crdgen.dev', '/first', CM(['CREATE']), {
      reinvocationPolicy: 'IfNeeded',
      objectSelector: { matchLabels: { reinvoke: 'yes' } },
    }),
    hook('second.crdgen.dev', '/second', CM(['CREATE']), { objectSelector: { matchLabels: { reinvoke: 'yes' } } }),
    hook('bad-patch.crdgen.dev', '/bad-patch', CM(['CREATE']), {
      objectSelector: { matchLabels: { 'bad-patch': 'yes' } },
    }),
    hook('no-type.crdgen.dev', '/no-type', CM(['CREATE']), { objectSelector: { matchLabels: { answer: 'no-type' } } }),
  ],
};

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

/** What a webhook saw, without what differs by run (uids, timestamps, resourceVersions). */
function seen(path: string, r: AdmissionRequest): Record<string, unknown> {
  const strip = (o: KubeObject | null | undefined) =>
    o
      ? {
          apiVersion: o.apiVersion,
          kind: o.kind,
          name: o.metadata?.name,
          labels: o.metadata?.labels,
          spec: (o as { spec?: unknown }).spec,
          data: (o as { data?: unknown }).data,
        }
      : o;
  return {
    path,
    kind: r.kind,
    resource: r.resource,
    subResource: r.subResource,
    requestKind: r.requestKind,
    requestResource: r.requestResource,
    requestSubResource: r.requestSubResource,
    name: r.name,
    namespace: r.namespace,
    operation: r.operation,
    object: strip(r.object),
    oldObject: strip(r.oldObject),
    dryRun: r.dryRun,
    options: r.options
      ? { kind: r.options.kind, apiVersion: r.options.apiVersion, dryRun: r.options.dryRun }
      : r.options,
  };
}

const patch = (uid: string, ops: unknown[]): AdmissionResponse => ({
  uid,
  allowed: true,
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
});

async function startHooks(port: number, certDir: string, calls: Record<string, unknown>[]): Promise<WebhookServer> {
  const server = await startWebhookServer({ bindAddress: `127.0.0.1:${port}`, certDir, certPollIntervalMs: 0 });
  for (const p of [
    'ns-selector',
    'obj-selector',
    'delete',
    'scope-cluster',
    'scope-namespaced',
    'status',
    'exact',
    'equivalent',
  ]) {
    server.admission(`/record/${p}`, (r) => {
      // the probe the test waits with is not part of the record
      if (r.name !== 'probe') calls.push(seen(`/record/${p}`, r));
      return allowed(r.uid);
    });
  }
  server.admission('/warn', (r) => allowed(r.uid, ['first warning', 'a "quoted" one']));
  server.admission('/slow', async (r) => {
    await new Promise((x) => setTimeout(x, 3000));
    return allowed(r.uid);
  });
  // first: records the labels it sees (again when reinvoked); second: adds a label
  server.admission('/first', (r) => {
    const labels = r.object?.metadata?.labels ?? {};
    calls.push({ path: '/first', labels, name: r.name ?? null, objectName: r.object?.metadata?.name ?? null });
    return patch(r.uid, [
      {
        op: 'add',
        path: '/metadata/labels/first-saw',
        value: Object.keys(labels)
          .filter((k) => k !== 'first-saw')
          .sort()
          .join('.'),
      },
    ]);
  });
  server.admission('/second', (r) => {
    calls.push({ path: '/second', labels: r.object?.metadata?.labels ?? {} });
    return patch(r.uid, [{ op: 'add', path: '/metadata/labels/second', value: 'added' }]);
  });
  server.admission('/bad-patch', (r) => patch(r.uid, [{ op: 'remove', path: '/metadata/labels/absent' }]));
  server.admission('/patchy', (r) => patch(r.uid, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }]));
  server.admission('/no-type', (r) => ({ uid: r.uid, allowed: true, patch: Buffer.from('[]').toString('base64') }));
  server.conversion('/convert', CONVERSIONS);
  return server;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const results = new Map<string, Record<string, unknown>>();

for (const backend of BACKENDS) {
  test(`webhook matching on ${backend.name}`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-matching-'));
    const port = await freePort();
    const calls: Record<string, unknown>[] = [];
    const mine: Record<string, unknown> = {};
    const answer = (step: string, r: RawResponse): RawResponse => {
      const neutral = (v: unknown) =>
        v === undefined ? v : JSON.parse(JSON.stringify(v).split(String(port)).join('PORT'));
      mine[step] = {
        code: r.status,
        ...(r.status >= 400
          ? { message: neutral(r.body?.message ?? r.text), causes: neutral(r.body?.details?.causes) }
          : {}),
      };
      return r;
    };
    /** The calls made by `fn`, recorded under `step`. */
    const during = async (step: string, fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> => {
      const from = calls.length;
      await fn();
      // validating webhooks are called in parallel: their order is not the apiserver's to keep
      const made = calls
        .slice(from)
        .sort((a, b) => (String(a.path) < String(b.path) ? -1 : String(a.path) > String(b.path) ? 1 : 0));
      mine[`${step} calls`] = made;
      return made;
    };
    let env: ApiServerHandle | undefined;
    let hooks: WebhookServer | undefined;
    try {
      env = await backend.start({
        crds: [CRD],
        webhooks: {
          configurations: [VALIDATING, MUTATING] as KubeObject[],
          host: `127.0.0.1:${port}`,
          certDir: join(dir, 'certs'),
        },
      });
      const e = env;
      hooks = await startHooks(port, join(dir, 'certs'), calls);
      for (const ns of [{ name: 'hooked', labels: { hooks: 'on' } }, { name: 'plain' }]) {
        assert.equal(
          (await raw(e, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: ns } }))
            .status,
          201,
        );
      }
      // wait until kube-apiserver calls the webhooks (its configuration informer takes a moment)
      await until('the webhooks to be in effect', async () => {
        const r = await raw(e, 'POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', labels: { 'bad-patch': 'yes' } } },
        });
        return r.status === 500 ? r : undefined;
      });
      const cm = (ns: string, name: string, labels: Record<string, string> = {}) =>
        raw(e, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } },
        });

      await t.test('namespace selector, object selector, scope', async () => {
        const inHooked = await during('cm in hooked', async () => answer('cm in hooked', await cm('hooked', 'a')));
        assert.deepEqual(
          inHooked.map((c) => c.path),
          ['/record/ns-selector'],
        );
        assert.deepEqual(await during('cm in plain', async () => answer('cm in plain', await cm('plain', 'a'))), []);
        const watched = await during('cm watched', async () =>
          answer('cm watched', await cm('plain', 'b', { 'watch-me': '' })),
        );
        assert.deepEqual(
          watched.map((c) => c.path),
          ['/record/obj-selector'],
        );
        // an update: the selector matches the old object's labels too
        const cur = (await raw(e, 'GET', '/api/v1/namespaces/plain/configmaps/b')).body;
        const updated = await during('cm unwatched by update', async () =>
          answer(
            'cm update',
            await raw(e, 'PUT', '/api/v1/namespaces/plain/configmaps/b', {
              body: { ...cur, metadata: { ...cur.metadata, labels: {} } },
            }),
          ),
        );
        assert.deepEqual(
          updated.map((c) => [c.path, c.operation]),
          [['/record/obj-selector', 'UPDATE']],
        );
        const nsCalls = await during('namespace create', async () =>
          answer(
            'namespace create',
            await raw(e, 'POST', '/api/v1/namespaces', {
              body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'third' } },
            }),
          ),
        );
        assert.deepEqual(
          nsCalls.map((c) => c.path),
          ['/record/scope-cluster'],
        );
      });

      await t.test('DELETE carries the oldObject; dry runs are flagged', async () => {
        assert.equal((await cm('plain', 'gone', { deletable: 'checked' })).status, 201);
        const deleted = await during('cm delete', async () =>
          answer('cm delete', await raw(e, 'DELETE', '/api/v1/namespaces/plain/configmaps/gone')),
        );
        assert.equal(deleted.length, 1);
        assert.equal(deleted[0].operation, 'DELETE');
        assert.equal(deleted[0].object, null);
        assert.equal((deleted[0].oldObject as { name: string }).name, 'gone');
        const dry = await during('cm dry run', async () =>
          answer(
            'cm dry run',
            await raw(e, 'POST', '/api/v1/namespaces/hooked/configmaps?dryRun=All', {
              body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } },
            }),
          ),
        );
        assert.equal(dry.length, 1);
        assert.equal(dry[0].dryRun, true);
      });

      await t.test('subresources and matchPolicy Exact/Equivalent', async () => {
        const v1 = await during('gadget v1', async () =>
          answer(
            'gadget v1',
            await raw(e, 'POST', '/apis/crdgen.dev/v1/namespaces/default/gadgets', {
              body: { apiVersion: 'crdgen.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { color: 'red' } },
            }),
          ),
        );
        assert.deepEqual(v1.map((c) => c.path).sort(), ['/record/equivalent', '/record/exact']);
        const beta = await during('gadget v1beta1', async () =>
          answer(
            'gadget v1beta1',
            await raw(e, 'POST', '/apis/crdgen.dev/v1beta1/namespaces/default/gadgets', {
              body: {
                apiVersion: 'crdgen.dev/v1beta1',
                kind: 'Gadget',
                metadata: { name: 'g2' },
                spec: { colour: 'blue' },
              },
            }),
          ),
        );
        assert.deepEqual(
          beta.map((c) => c.path),
          ['/record/equivalent'],
        );
        assert.deepEqual(
          (beta[0].object as { spec: unknown }).spec,
          { color: 'blue' },
          "converted to the webhook's version",
        );
        assert.deepEqual(beta[0].requestKind, { group: 'crdgen.dev', version: 'v1beta1', kind: 'Gadget' });
        const g = (await raw(e, 'GET', '/apis/crdgen.dev/v1beta1/namespaces/default/gadgets/g2')).body;
        const status = await during('gadget status', async () =>
          answer(
            'gadget status',
            await raw(e, 'PUT', '/apis/crdgen.dev/v1beta1/namespaces/default/gadgets/g2/status', {
              body: { ...g, status: { ready: true } },
            }),
          ),
        );
        assert.deepEqual(
          status.map((c) => [c.path, c.subResource]),
          [['/record/status', 'status']],
        );
      });

      await t.test('reinvocation, a patch that does not apply, warnings, a timeout', async () => {
        const re = await during('reinvoke', async () => {
          const r = answer('reinvoke', await cm('default', 'reinvoked', { reinvoke: 'yes' }));
          assert.equal(r.status, 201, r.text);
          mine['reinvoke labels'] = r.body.metadata.labels;
        });
        assert.deepEqual(
          re.map((c) => c.path),
          ['/first', '/first', '/second'],
        );
        assert.deepEqual(
          re.map((c) => c.labels),
          [
            { reinvoke: 'yes' },
            { reinvoke: 'yes', 'first-saw': 'reinvoke', second: 'added' },
            { reinvoke: 'yes', 'first-saw': 'reinvoke' },
          ],
        );
        assert.deepEqual(mine['reinvoke labels'], { reinvoke: 'yes', 'first-saw': 'reinvoke.second', second: 'added' });
        // generateName: mutating webhooks see no name yet, validating ones the generated one
        const gen = await during('generateName', async () => {
          const r = answer(
            'generateName',
            await raw(e, 'POST', '/api/v1/namespaces/default/configmaps', {
              body: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { generateName: 'gen-', labels: { reinvoke: 'yes', 'watch-me': 'y' } },
              },
            }),
          );
          assert.equal(r.status, 201, r.text);
        });
        const firstCall = gen.find((c) => c.path === '/first')!;
        assert.equal(firstCall.name, null, 'name is omitempty');
        assert.equal(firstCall.objectName, null);
        const validated = gen.find((c) => c.path === '/record/obj-selector')!;
        assert.match(String(validated.name), /^gen-[a-z0-9]{5}$/);
        for (const c of gen) if (typeof c.name === 'string' && c.name.startsWith('gen-')) c.name = 'gen-XXXXX';
        for (const c of gen)
          if (c.object && typeof (c.object as { name?: string }).name === 'string')
            (c.object as { name: string }).name = 'gen-XXXXX';
        const bad = answer('bad patch', await cm('default', 'bad', { 'bad-patch': 'yes' }));
        assert.equal(bad.status, 500);
        const warned = answer('warnings', await cm('default', 'warned', { warn: 'yes' }));
        assert.equal(warned.status, 201);
        mine['warning header'] = warned.headers.warning;
        assert.deepEqual(String(warned.headers.warning).split(/,\s*(?=299)/), [
          '299 - "first warning"',
          '299 - "a \\"quoted\\" one"',
        ]);
        const slow = answer('slow', await cm('default', 'slow', { slow: 'yes' }));
        assert.equal(slow.status, 500);
        assert.match(
          slow.body.message,
          /^Internal error occurred: failed calling webhook "slow\.crdgen\.dev": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": /,
        );
      });

      await t.test(
        'answers the apiserver does not take: a path not served, a validating patch, a patch without its type',
        async () => {
          for (const a of ['not-served', 'patchy', 'patchy-ignored', 'no-type'])
            answer(`answer ${a}`, await cm('default', `answer-${a}`, { answer: a }));
          assert.equal((mine['answer patchy-ignored'] as { code: number }).code, 201);
          assert.match(
            String((mine['answer not-served'] as { message: string }).message),
            /failed to call webhook: the server could not find the requested resource$/,
          );
          assert.equal(
            (mine['answer patchy'] as { message: string }).message,
            'Internal error occurred: failed calling webhook "patchy.crdgen.dev": received invalid webhook response: validating webhook may not return response.patch',
          );
          assert.equal(
            (mine['answer no-type'] as { message: string }).message,
            'Internal error occurred: failed calling webhook "no-type.crdgen.dev": received invalid webhook response: webhook returned response.patch but not response.patchType',
          );
        },
      );

      await t.test('configurations the apiserver refuses', async () => {
        const bad = {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'bad' },
          webhooks: [
            {
              name: 'short',
              clientConfig: { url: 'http://x/y?z=1' },
              rules: [
                { operations: ['NOPE'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'], scope: 'Everywhere' },
              ],
              sideEffects: 'Some',
              timeoutSeconds: 31,
              failurePolicy: 'Maybe',
              admissionReviewVersions: ['v2'],
            },
            {
              name: 'short',
              clientConfig: { service: { name: 's' }, url: 'https://x' },
              admissionReviewVersions: [],
              matchPolicy: 'Loose',
            },
          ],
        };
        const r = answer(
          'bad configuration',
          await raw(e, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: bad }),
        );
        assert.equal(r.status, 422);
        const m = answer(
          'bad mutating',
          await raw(e, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
            body: {
              ...bad,
              kind: 'MutatingWebhookConfiguration',
              webhooks: [
                {
                  name: 'a.b.c',
                  clientConfig: { service: { name: 's', namespace: 'n', port: 0 } },
                  sideEffects: 'None',
                  admissionReviewVersions: ['v1', 'v1'],
                  reinvocationPolicy: 'Always',
                },
              ],
            },
          }),
        );
        assert.equal(m.status, 422);
      });
    } finally {
      await hooks?.close();
      await env?.stop();
      rmSync(dir, { recursive: true, force: true });
      results.set(backend.name, mine);
    }
  });
}

test('testenv calls webhooks and answers as kube-apiserver does', () => {
  const mine = results.get('testenv');
  const real = results.get('real');
  assert.ok(mine && real, 'both backends ran');
  assert.deepEqual(mine, real);
});
