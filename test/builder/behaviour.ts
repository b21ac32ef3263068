// The controller builder's semantics, run on each backend (builder-*.test.ts): For/Owns/Watches
// mapping, predicates, requeueAfter (fake clock), at most one reconcile per key under
// maxConcurrentReconciles 4 with a burst of 1,000 updates, backoff, terminal errors, the
// finalizer helper, and informers shared between controllers. One backend per file, one
// namespace and one manager per test. "Did not happen" is asserted by order, never by time:
// with one worker the queue is FIFO, so once a later event's request has been reconciled, a
// request an earlier event of the same informer had queued would have been reconciled first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newManager,
  type Manager,
  newControllerManagedBy,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  newPredicateFuncs,
  resourceVersionChanged,
  TerminalError,
  type ReconcileRequest,
  type Reconciler,
  ConfigMapResource,
  DeploymentResource,
  SecretResource,
  ServiceResource,
  type ConfigMap,
  type Deployment,
  type Secret,
  type Service,
  PatchType,
  isNotFound,
  newControllerRef,
  setControllerReference,
  FakeClock,
  type ClientBackend,
  type KubeObject,
  finalizer,
} from '../../src/runtime/index.js';
import {
  countingBackend,
  deploymentFor,
  idle,
  Reconciles,
  waitFor,
  widget,
  WidgetResource,
  type BuilderEnv,
  type Widget,
} from './support.js';

interface Running {
  manager: Manager;
  lists: Map<string, number>;
  watches: Map<string, number>;
  stop(): Promise<void>;
}

/** A manager over `env` limited to `namespace`, set up by `setup`, started. */
async function runManager(
  env: BuilderEnv,
  namespace: string,
  setup: (m: Manager) => void,
  extra: { resyncMs?: number } = {},
): Promise<Running> {
  const counted = countingBackend(env.admin);
  const manager = newManager({ client: counted.backend, name: 'builder-test', namespace, ...extra });
  setup(manager);
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  done.catch(() => undefined);
  return {
    manager,
    lists: counted.lists,
    watches: counted.watches,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

function api<T extends KubeObject>(
  env: BuilderEnv,
  resource: Parameters<ClientBackend['resource']>[0],
  namespace: string,
) {
  return env.admin.resource<T>(resource, namespace);
}

async function getOrUndefined<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Requests for the widget a Secret's `widget` label names. */
const secretToWidget = (s: Secret): ReconcileRequest[] => {
  const name = s.metadata?.labels?.['widget'];
  return name ? [{ namespace: s.metadata?.namespace ?? '', name }] : [];
};

/** What differs between backends. */
export interface SuiteOptions {
  /**
   * False for a backend that does not serve core/v1 Services: its test then asserts the 404
   * (the fake, crdgen/testing and kube-apiserver all serve them).
   */
  servesServices: boolean;
}

export function builderSuite(start: () => Promise<BuilderEnv>, options: SuiteOptions = { servesServices: true }): void {
  let env: BuilderEnv;
  before(async () => {
    env = await start();
  });
  after(async () => {
    await env?.stop();
  });

  test('for/owns/watches: a widget maps to itself, an owned object to its controller owner (not a plain owner), a Secret through the map function', async () => {
    const ns = await env.newNamespace();
    const rec = new Reconciles();
    const reconciler: Reconciler = async (req, ctx) => {
      rec.record(req);
      const w = await getOrUndefined(ctx.client.get(WidgetResource, req));
      if (!w || w.spec?.note !== 'managed') return;
      await ctx.client.createOrUpdate(ConfigMapResource, { namespace: req.namespace, name: `${req.name}-cm` }, (cm) => {
        cm.data = { size: String(w.spec?.size ?? 0) };
        setControllerReference(w, cm, WidgetResource);
      });
      const d = deploymentFor(req.namespace, `${req.name}-deploy`, { widget: req.name });
      d.spec.replicas = w.spec?.size ?? 1;
      d.metadata!.ownerReferences = [newControllerRef(w, WidgetResource)];
      await ctx.client.apply(DeploymentResource, d as never);
    };
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .owns(ConfigMapResource)
        .owns(DeploymentResource)
        .watches(SecretResource, secretToWidget)
        .complete(reconciler);
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      const cms = api<ConfigMap>(env, ConfigMapResource, ns);
      const w1 = await widgets.create(widget(ns, 'w1', { size: 2, note: 'managed' }));
      const w2 = await widgets.create(widget(ns, 'w2'));
      const sentinel = await widgets.create(widget(ns, 'sentinel'));
      const cm1 = await waitFor(
        async () => (await getOrUndefined(cms.get('w1-cm')))?.data?.['size'] === '2' && cms.get('w1-cm'),
        'the ConfigMap of w1',
      );
      assert.equal(cm1.metadata?.ownerReferences?.[0]?.uid, w1.metadata?.uid);
      assert.equal(cm1.metadata?.ownerReferences?.[0]?.controller, true);
      const deployments = api<Deployment>(env, DeploymentResource, ns);
      await waitFor(
        async () => (await getOrUndefined(deployments.get('w1-deploy')))?.spec?.replicas === 2,
        'the Deployment of w1',
      );
      await rec.atLeast(ns, 'w2', 1);
      await rec.atLeast(ns, 'sentinel', 1);

      // an owned object's create queues its controller owner
      const sentinelCm: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'sentinel-cm', namespace: ns, ownerReferences: [newControllerRef(sentinel, WidgetResource)] },
        data: { n: '0' },
      };
      await cms.create(sentinelCm);
      await rec.atLeast(ns, 'sentinel', 2, 'the reconcile of sentinel after its ConfigMap was created');

      // a plain (non-controller) owner reference queues nothing
      const w2Before = rec.count(ns, 'w2');
      const ref = { ...newControllerRef(w2, WidgetResource), controller: false };
      await cms.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'plain-cm', namespace: ns, ownerReferences: [ref] },
        data: { n: '0' },
      });
      await cms.patch('plain-cm', PatchType.Merge, { data: { n: '1' } });
      const sentinelBefore = rec.count(ns, 'sentinel');
      await cms.patch('sentinel-cm', PatchType.Merge, { data: { n: '1' } });
      await rec.atLeast(ns, 'sentinel', sentinelBefore + 1, 'the reconcile of sentinel after its ConfigMap changed');
      assert.equal(
        rec.count(ns, 'w2'),
        w2Before,
        'a ConfigMap with a non-controller owner reference must not queue that owner',
      );

      // a spec change flows into both owned objects; a deleted owned object is put back
      await widgets.patch('w1', PatchType.Merge, { spec: { size: 3 } });
      await waitFor(
        async () => (await getOrUndefined(cms.get('w1-cm')))?.data?.['size'] === '3',
        'the ConfigMap of w1 at size 3',
      );
      await waitFor(
        async () => (await getOrUndefined(deployments.get('w1-deploy')))?.spec?.replicas === 3,
        'the Deployment of w1 at 3 replicas',
      );
      const oldCm = await cms.get('w1-cm');
      await cms.delete('w1-cm');
      await waitFor(async () => {
        const cm = await getOrUndefined(cms.get('w1-cm'));
        return cm !== undefined && cm.metadata?.uid !== oldCm.metadata?.uid;
      }, 'the ConfigMap of w1 recreated after its deletion');
      const oldDeploy = await deployments.get('w1-deploy');
      await deployments.delete('w1-deploy');
      await waitFor(async () => {
        const d = await getOrUndefined(deployments.get('w1-deploy'));
        return d !== undefined && d.metadata?.uid !== oldDeploy.metadata?.uid;
      }, 'the Deployment of w1 recreated after its deletion');

      // watches: a Secret labelled widget=w2 queues w2; moving the label queues both old and new target
      const secrets = api<Secret>(env, SecretResource, ns);
      const w2c = rec.count(ns, 'w2');
      await secrets.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: ns, labels: { widget: 'w2' } },
        stringData: { k: 'v' },
      });
      await rec.atLeast(ns, 'w2', w2c + 1, 'the reconcile of w2 after its Secret appeared');
      const w2d = rec.count(ns, 'w2');
      const sc = rec.count(ns, 'sentinel');
      await secrets.patch('s', PatchType.Merge, { metadata: { labels: { widget: 'sentinel' } } });
      await rec.atLeast(ns, 'sentinel', sc + 1, 'the reconcile of sentinel (the new label)');
      await rec.atLeast(ns, 'w2', w2d + 1, 'the reconcile of w2 (the old label)');

      // a deleted widget is reconciled once more (and reads NotFound)
      const w2e = rec.count(ns, 'w2');
      await widgets.delete('w2');
      await rec.atLeast(ns, 'w2', w2e + 1, 'the reconcile of w2 after its deletion');
      const ctl = run.manager.getControllers()[0];
      assert.equal(ctl.name, 'widget', 'the default name is the for() kind in lower case');
      assert.equal(ctl.inFlight.overlaps, 0);
    } finally {
      await run.stop();
    }
  });

  test('predicates: generationChanged on for, labelsChanged on owns, annotationsChanged on watches, withEventFilter on all', async () => {
    const ns = await env.newNamespace();
    const rec = new Reconciles();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource, { predicates: [generationChanged] })
        .owns(ConfigMapResource, { predicates: [labelsChanged] })
        .watches(SecretResource, secretToWidget, { predicates: [annotationsChanged] })
        .withEventFilter(newPredicateFuncs((o) => o.metadata?.labels?.['skip'] !== 'true'))
        .complete(async (req) => void rec.record(req));
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      const cms = api<ConfigMap>(env, ConfigMapResource, ns);
      const secrets = api<Secret>(env, SecretResource, ns);
      const a = await widgets.create(widget(ns, 'a', { size: 1 }));
      const sentinel = await widgets.create(widget(ns, 'sentinel', { size: 1 }));
      await rec.atLeast(ns, 'a', 1);
      await rec.atLeast(ns, 'sentinel', 1);

      // for + generationChanged: a status write (same generation) is filtered, a spec change passes
      await widgets.patchStatus('a', PatchType.Merge, { status: { observed: 7 } });
      await widgets.create(widget(ns, 'skipped', { size: 1 }, { skip: 'true' })); // withEventFilter: never reconciled
      await widgets.patch('skipped', PatchType.Merge, { spec: { size: 2 } });
      await widgets.patch('sentinel', PatchType.Merge, { spec: { size: 2 } });
      await rec.atLeast(ns, 'sentinel', 2);
      assert.equal(rec.count(ns, 'a'), 1, 'a status-only update must not pass generationChanged');
      assert.equal(rec.count(ns, 'skipped'), 0, 'an object withEventFilter rejects must not be reconciled');
      await widgets.patch('a', PatchType.Merge, { spec: { size: 2 } });
      await rec.atLeast(ns, 'a', 2, 'the reconcile of a after a spec change');

      // owns + labelsChanged: a create passes; a data change is filtered, a label change passes
      const owned = (name: string, owner: Widget): ConfigMap => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns, ownerReferences: [newControllerRef(owner, WidgetResource)] },
        data: { n: '0' },
      });
      await cms.create(owned('a-cm', a));
      await cms.create(owned('sentinel-cm', sentinel));
      await rec.atLeast(ns, 'a', 3, 'the reconcile of a after its ConfigMap was created');
      await rec.atLeast(ns, 'sentinel', 3);
      await cms.patch('a-cm', PatchType.Merge, { data: { n: '1' } });
      await cms.patch('sentinel-cm', PatchType.Merge, { metadata: { labels: { x: '1' } } });
      await rec.atLeast(ns, 'sentinel', 4);
      assert.equal(rec.count(ns, 'a'), 3, 'a data-only change of an owned ConfigMap must not pass labelsChanged');
      await cms.patch('a-cm', PatchType.Merge, { metadata: { labels: { x: '1' } } });
      await rec.atLeast(ns, 'a', 4, 'the reconcile of a after its ConfigMap got a label');

      // watches + annotationsChanged
      const secret = (name: string, target: string): Secret => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: ns, labels: { widget: target } },
        stringData: { k: 'v' },
      });
      await secrets.create(secret('a-s', 'a'));
      await secrets.create(secret('sentinel-s', 'sentinel'));
      await rec.atLeast(ns, 'a', 5);
      await rec.atLeast(ns, 'sentinel', 5);
      await secrets.patch('a-s', PatchType.Merge, { stringData: { k: 'w' } });
      await secrets.patch('sentinel-s', PatchType.Merge, { metadata: { annotations: { y: '1' } } });
      await rec.atLeast(ns, 'sentinel', 6);
      assert.equal(rec.count(ns, 'a'), 5, 'a data-only change of a watched Secret must not pass annotationsChanged');
      await secrets.patch('a-s', PatchType.Merge, { metadata: { annotations: { y: '1' } } });
      await rec.atLeast(ns, 'a', 6, 'the reconcile of a after its Secret got an annotation');
      assert.equal(rec.count(ns, 'skipped'), 0);
    } finally {
      await run.stop();
    }
  });

  test('resourceVersionChanged drops resyncs, which an unfiltered controller on the same shared informer sees', async () => {
    const ns = await env.newNamespace();
    const filtered = new Reconciles();
    const all = new Reconciles();
    const run = await runManager(
      env,
      ns,
      (m) => {
        newControllerManagedBy(m)
          .named('filtered')
          .for(WidgetResource, { predicates: [resourceVersionChanged] })
          .complete(async (req) => void filtered.record(req));
        newControllerManagedBy(m)
          .named('all')
          .for(WidgetResource)
          .complete(async (req) => void all.record(req));
      },
      { resyncMs: 1000 },
    );
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      await widgets.create(widget(ns, 'w', { size: 1 }));
      await filtered.atLeast(ns, 'w', 1);
      await all.atLeast(ns, 'w', 3, 'two resyncs of w');
      await widgets.patch('w', PatchType.Merge, { spec: { size: 2 } });
      await filtered.atLeast(ns, 'w', 2, 'the reconcile of w after a real change');
      assert.equal(filtered.count(ns, 'w'), 2, 'resyncs must not pass resourceVersionChanged');
      assert.equal(run.lists.get('widgets'), 1, 'both controllers share one informer');
    } finally {
      await run.stop();
    }
  });

  test('requeueAfterMs is honoured on the fake clock: not a millisecond early, then at once', async () => {
    const ns = await env.newNamespace();
    const clock = new FakeClock();
    const rec = new Reconciles();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .withOptions({ clock })
        .complete(async (req) => {
          rec.record(req);
          return { requeueAfterMs: 60_000 };
        });
    });
    try {
      await api<Widget>(env, WidgetResource, ns).create(widget(ns, 'w'));
      const ctl = run.manager.getControllers()[0];
      await rec.atLeast(ns, 'w', 1);
      const parked = (): boolean =>
        ctl.queue.waitingCount() === 1 && ctl.queue.len() === 0 && ctl.queue.processingCount() === 0;
      await waitFor(parked, 'w parked in the delaying queue');
      assert.equal(ctl.queue.numRequeues(`${ns}/w`), 0, 'requeueAfter is not a backoff');
      clock.step(59_999); // fires due timers synchronously: w must still wait
      assert.ok(parked(), 'w left the delaying queue before 60 s');
      clock.step(1);
      assert.equal(ctl.queue.waitingCount(), 0, 'w still waits at 60 s');
      await rec.atLeast(ns, 'w', 2, 'the reconcile 60 s (fake) later');
      await waitFor(parked, 'w parked again');
      clock.step(59_999);
      assert.ok(parked());
      assert.equal(rec.count(ns, 'w'), 2);
    } finally {
      await run.stop();
    }
  });

  test('errors are retried with the rate limiter (5, 10, 20, 40 ms on the fake clock), then forgotten on success', async () => {
    const ns = await env.newNamespace();
    const clock = new FakeClock();
    const rec = new Reconciles();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .withOptions({ clock })
        .complete(async (req) => {
          rec.record(req);
          if (rec.count(req.namespace, req.name) <= 4) throw new Error('the external API is down');
        });
    });
    try {
      await api<Widget>(env, WidgetResource, ns).create(widget(ns, 'w'));
      const ctl = run.manager.getControllers()[0];
      const key = `${ns}/w`;
      const parked = (): boolean =>
        ctl.queue.waitingCount() === 1 && ctl.queue.len() === 0 && ctl.queue.processingCount() === 0;
      for (let failure = 1; failure <= 4; failure++) {
        await rec.atLeast(ns, 'w', failure);
        await waitFor(parked, `w parked after failure ${failure}`);
        assert.equal(ctl.queue.numRequeues(key), failure);
        const delay = 5 * 2 ** (failure - 1);
        clock.step(delay - 1); // fires due timers synchronously
        assert.ok(parked(), `w was retried before its backoff of ${delay} ms`);
        clock.step(1);
        assert.equal(ctl.queue.waitingCount(), 0, `w not retried after its backoff of ${delay} ms`);
      }
      await rec.atLeast(ns, 'w', 5, 'the successful fifth reconcile');
      await waitFor(() => idle(ctl), 'the controller idle');
      assert.equal(ctl.queue.numRequeues(key), 0, 'a success forgets the failures');
      assert.equal(rec.count(ns, 'w'), 5);
    } finally {
      await run.stop();
    }
  });

  test('a terminal error is not retried; the next change reconciles again', async () => {
    const ns = await env.newNamespace();
    const clock = new FakeClock();
    const rec = new Reconciles();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource, { predicates: [generationChanged] })
        .withOptions({ clock })
        .complete(async (req) => {
          rec.record(req);
          throw new Error('spec.size cannot be served', { cause: new TerminalError('too big') });
        });
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      await widgets.create(widget(ns, 'w', { size: 100 }));
      const ctl = run.manager.getControllers()[0];
      await rec.atLeast(ns, 'w', 1);
      await waitFor(() => idle(ctl), 'the controller idle after the terminal error');
      clock.step(10_000_000);
      assert.ok(idle(ctl), 'nothing was scheduled after a terminal error');
      assert.equal(rec.count(ns, 'w'), 1);
      assert.equal(ctl.queue.numRequeues(`${ns}/w`), 0);
      await widgets.patch('w', PatchType.Merge, { spec: { size: 5 } });
      await rec.atLeast(ns, 'w', 2, 'the reconcile after the spec changed');
      await waitFor(() => idle(ctl), 'idle again');
      assert.equal(rec.count(ns, 'w'), 2);
    } finally {
      await run.stop();
    }
  });

  test('maxConcurrentReconciles 4 under a burst of 1,000 updates: 4 keys at once, never one key twice, every key converges', async () => {
    const ns = await env.newNamespace();
    const KEYS = 10;
    const UPDATES = 1000;
    const active = new Map<string, number>();
    let running = 0;
    let maxRunning = 0;
    let overlaps = 0;
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const lastSeen = new Map<string, number>();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .withOptions({ maxConcurrentReconciles: 4 })
        .complete(async (req, ctx) => {
          const k = `${req.namespace}/${req.name}`;
          if ((active.get(k) ?? 0) > 0) overlaps++;
          active.set(k, (active.get(k) ?? 0) + 1);
          running++;
          maxRunning = Math.max(maxRunning, running);
          try {
            if (running === 4) openGate();
            await gate; // the first reconciles wait until 4 run at once: the concurrency is real
            const w = await getOrUndefined(ctx.client.get(WidgetResource, req));
            await new Promise((r) => setTimeout(r, 1)); // widen the window for an overlap
            if (w) lastSeen.set(k, w.spec?.size ?? -1);
          } finally {
            running--;
            active.set(k, active.get(k)! - 1);
          }
        });
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      for (let i = 0; i < KEYS; i++) await widgets.create(widget(ns, `w${i}`, { size: 0 }));
      await waitFor(() => maxRunning === 4, '4 reconciles at once');
      // the burst: 1,000 spec updates, 100 per key, one writer per key (in order), all keys at once
      const final = UPDATES / KEYS;
      await Promise.all(
        Array.from({ length: KEYS }, async (_, k) => {
          for (let size = 1; size <= final; size++) await widgets.patch(`w${k}`, PatchType.Merge, { spec: { size } });
        }),
      );
      const ctl = run.manager.getControllers()[0];
      await waitFor(
        () => [...Array(KEYS).keys()].every((i) => lastSeen.get(`${ns}/w${i}`) === final) && idle(ctl),
        `every widget reconciled at size ${final}`,
        120_000,
      );
      assert.equal(overlaps, 0, 'one key was reconciled twice at once');
      assert.equal(ctl.inFlight.overlaps, 0);
      assert.equal(maxRunning, 4, 'never more than maxConcurrentReconciles at once');
    } finally {
      await run.stop();
    }
  });

  test('finalizer: added on the first reconcile, kept across server-side applies of the object, cleanup retried until it succeeds, then removed', async () => {
    const ns = await env.newNamespace();
    const FIN = 'test.crdgen.dev/external';
    const external = new Set<string>();
    let cleanupCalls = 0;
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .complete(async (req, ctx) => {
          const w = await getOrUndefined(ctx.client.get(WidgetResource, req));
          if (!w) return;
          return finalizer(ctx.client, WidgetResource, FIN, w, {
            apply: async (obj) => {
              external.add(req.name);
              // the reconciler applies its own labels to the object, leaving the finalizer out
              await ctx.client.apply(WidgetResource, {
                metadata: {
                  name: req.name,
                  namespace: req.namespace,
                  labels: { 'test.crdgen.dev/synced': String(obj.spec?.size ?? 0) },
                },
              });
            },
            cleanup: async () => {
              cleanupCalls++;
              if (cleanupCalls === 1) throw new Error('external API: 503');
              external.delete(req.name);
            },
          });
        });
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      await widgets.create(widget(ns, 'w', { size: 1 }));
      const labelled = await waitFor(async () => {
        const w = await widgets.get('w');
        return w.metadata?.labels?.['test.crdgen.dev/synced'] === '1' && w;
      }, 'the finalizer and the applied label');
      assert.deepEqual(labelled.metadata?.finalizers, [FIN]);
      assert.ok(external.has('w'));
      await widgets.patch('w', PatchType.Merge, { spec: { size: 2 } });
      const again = await waitFor(async () => {
        const w = await widgets.get('w');
        return w.metadata?.labels?.['test.crdgen.dev/synced'] === '2' && w;
      }, 'the label applied again');
      assert.deepEqual(
        again.metadata?.finalizers,
        [FIN],
        'a server-side apply without the finalizer must not remove it',
      );
      await widgets.delete('w');
      await waitFor(
        async () => (await getOrUndefined(widgets.get('w'))) === undefined,
        'the widget gone after its cleanup',
      );
      // the failed cleanup was retried and the finalizer removed after it succeeded (a cleanup may run once more
      // from a cache that has not seen the removal yet: cleanups are idempotent)
      assert.ok(cleanupCalls >= 2, `cleanup ran ${cleanupCalls} time(s)`);
      assert.ok(!external.has('w'));
    } finally {
      await run.stop();
    }
  });

  test('two controllers share one informer per resource; the client starts one for a resource it reads', async () => {
    const ns = await env.newNamespace();
    const a = new Reconciles();
    const b = new Reconciles();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .named('a')
        .for(WidgetResource)
        .owns(ConfigMapResource)
        .complete(async (req, ctx) => {
          a.record(req);
          await getOrUndefined(ctx.client.get(SecretResource, { namespace: req.namespace, name: 'config' }));
        });
      newControllerManagedBy(m)
        .named('b')
        .for(WidgetResource)
        .owns(ConfigMapResource)
        .owns(DeploymentResource)
        .complete(async (req, ctx) => {
          b.record(req);
          await getOrUndefined(ctx.client.get(SecretResource, { namespace: req.namespace, name: 'config' }));
        });
    });
    try {
      const w = await api<Widget>(env, WidgetResource, ns).create(widget(ns, 'w'));
      await a.atLeast(ns, 'w', 1);
      await b.atLeast(ns, 'w', 1);
      await api<ConfigMap>(env, ConfigMapResource, ns).create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: ns, ownerReferences: [newControllerRef(w, WidgetResource)] },
      });
      await a.atLeast(ns, 'w', 2);
      await b.atLeast(ns, 'w', 2);
      // a controller added to the running manager starts at once, on the same informers
      const c = new Reconciles();
      newControllerManagedBy(run.manager)
        .named('c')
        .for(WidgetResource)
        .complete(async (req) => void c.record(req));
      await c.atLeast(ns, 'w', 1, 'the late controller sees the cached widget');
      for (const r of ['widgets', 'configmaps', 'deployments', 'secrets']) {
        assert.equal(run.lists.get(r), 1, `one list of ${r}`);
        assert.equal(run.watches.get(r), 1, `one watch of ${r}`);
      }
      assert.equal(run.manager.informer(WidgetResource), run.manager.informer(WidgetResource));
      assert.throws(
        () =>
          newControllerManagedBy(run.manager)
            .named('a')
            .for(WidgetResource)
            .complete(async () => undefined),
        /already in this manager/,
      );
    } finally {
      await run.stop();
    }
  });

  if (!options.servesServices) {
    test('owns(ServiceResource): this server does not serve Services yet (404)', async () => {
      const ns = await env.newNamespace();
      await assert.rejects(env.admin.resource(ServiceResource, ns).list(), (e: unknown) => isNotFound(e));
    });
    return;
  }

  test('owns(ServiceResource): the Service a widget applies is kept in line and put back when deleted', async () => {
    const ns = await env.newNamespace();
    const run = await runManager(env, ns, (m) => {
      newControllerManagedBy(m)
        .for(WidgetResource)
        .owns(ServiceResource)
        .complete(async (req, ctx) => {
          const w = await getOrUndefined(ctx.client.get(WidgetResource, req));
          if (!w) return;
          await ctx.client.apply(ServiceResource, {
            metadata: {
              name: `${req.name}-svc`,
              namespace: req.namespace,
              ownerReferences: [newControllerRef(w, WidgetResource)],
            },
            spec: {
              selector: { widget: req.name },
              ports: [{ name: 'db', port: w.spec?.size ?? 5432, targetPort: 5432, protocol: 'TCP' }],
            },
          });
        });
    });
    try {
      const widgets = api<Widget>(env, WidgetResource, ns);
      const services = api<Service>(env, ServiceResource, ns);
      const w = await widgets.create(widget(ns, 'w', { size: 5432 }));
      const svc = await waitFor(() => services.get('w-svc'), 'the Service of w');
      assert.equal(svc.spec?.ports?.[0]?.port, 5432);
      assert.equal(svc.metadata?.ownerReferences?.[0]?.uid, w.metadata?.uid);
      await widgets.patch('w', PatchType.Merge, { spec: { size: 6432 } });
      await waitFor(
        async () => (await services.get('w-svc')).spec?.ports?.[0]?.port === 6432,
        'the Service port following the spec',
      );
      await services.delete('w-svc');
      await waitFor(async () => {
        const again = await getOrUndefined(services.get('w-svc'));
        return again !== undefined && again.metadata?.uid !== svc.metadata?.uid;
      }, 'the Service recreated after its deletion');
    } finally {
      await run.stop();
    }
  });
}
