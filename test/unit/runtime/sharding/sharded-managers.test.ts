// Sharded managers on crdgen's test server, in one process: three replicas of a ConfigMap
// controller (each ConfigMap owns a Secret) split the ConfigMaps by the sharder's labels; each
// cache holds only its shard's ConfigMaps and Secrets; a 4th replica takes about a quarter
// through the drain handshake; a replica that stops hands its objects over; a shard whose Lease
// expires has its Lease taken and its objects reassigned; no key is ever reconciled by two
// replicas at once. A moved ConfigMap's Secret is labelled for its new shard by the sharder
// (before the ConfigMap), not by the new shard; Secrets no ConfigMap controls are left alone.
// Short Lease timings (6 s / 4.5 s / 0.5 s).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  ConfigMapResource,
  LeaseResource,
  SecretResource,
  newControllerManagedBy,
  newControllerRef,
  newManager,
  resourceClient,
  isNotFound,
  type ConfigMap,
  type Lease,
  type Logger,
  type Manager,
  type Secret,
} from '../../../../src/runtime/index.js';
import {
  HashRing,
  RING_LABEL,
  ShardMember,
  drainLabel,
  objectHashKey,
  shardLabel,
} from '../../../../src/runtime/index.js';

const RING = 'cm-controller';
const SHARD = shardLabel(RING);
/** The sharder's field manager: who set a label, from managedFields. */
const SHARDER_MANAGER = `${RING}-sharder`;
const N = 90;
/** Lease timings: short, with room for a loaded machine (a renewal may wait seconds for the event loop). */
const TIMING = { leaseDurationMs: 6000, renewDeadlineMs: 4500, retryPeriodMs: 500 };

interface Span {
  info?: string;
  key: string;
  by: string;
  from: number;
  to: number;
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${problems.slice(-30).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Warnings and errors of every replica (shown when a wait times out). */
const problems: string[] = [];
function recordingLogger(fields: Record<string, unknown> = {}): Logger {
  const line =
    (level: string) =>
    (f: Record<string, unknown> | string, msg?: string): void =>
      void problems.push(
        `${new Date().toISOString()} ${level} ${typeof f === 'string' ? f : msg} ${JSON.stringify({ ...fields, ...(typeof f === 'string' ? {} : f) })}`,
      );
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: line('warn'),
    error: line('error'),
    child: (more) => recordingLogger({ ...fields, ...more }),
  };
}

let server: TestApiServer;
const spans: Span[] = [];
const replicas = new Map<string, { manager: Manager; stop: AbortController; done: Promise<void> }>();

function startReplica(shard: string): void {
  const manager = newManager({
    client: server.clientConfig,
    name: RING,
    maxConcurrentReconciles: 2,
    logger: recordingLogger({ replica: shard }),
    sharding: { shard, ...TIMING },
  });
  newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .owns(SecretResource)
    .complete(async (req, ctx) => {
      const from = performance.now();
      let info = 'notfound';
      try {
        let cm: ConfigMap;
        try {
          cm = await ctx.client.get(ConfigMapResource, req);
          info = `${cm.metadata?.resourceVersion} ${JSON.stringify(cm.metadata?.labels)}`;
        } catch (e) {
          if (isNotFound(e)) return;
          throw e;
        }
        await new Promise((r) => setTimeout(r, 2));
        await ctx.client.createOrUpdate(SecretResource, { namespace: req.namespace, name: `${req.name}-s` }, (s) => {
          s.metadata = { ...s.metadata, ownerReferences: [newControllerRef(cm, ConfigMapResource)] };
          s.stringData = { v: cm.data?.v ?? '' };
        });
      } finally {
        spans.push({ key: `${req.namespace}/${req.name}`, by: shard, from, to: performance.now(), info });
      }
    });
  const stop = new AbortController();
  const done = manager.start(stop.signal).catch(() => undefined);
  replicas.set(shard, { manager, stop, done });
}

async function stopReplica(shard: string): Promise<void> {
  const r = replicas.get(shard)!;
  r.stop.abort();
  await r.done;
  replicas.delete(shard);
}

const cms = () => resourceClient<ConfigMap>(server.clientConfig, ConfigMapResource).namespace('s');
const secrets = () => resourceClient<Secret>(server.clientConfig, SecretResource).namespace('s');
const leases = () => resourceClient<Lease>(server.clientConfig, LeaseResource).namespace('default');

/** Every ConfigMap labelled as the ring of `shards` says, and no drain label left. */
async function assignedBy(shards: string[]): Promise<boolean> {
  const ring = new HashRing(shards);
  const items = (await cms().list()).items;
  return (
    items.length === N &&
    items.every(
      (c) =>
        c.metadata?.labels?.[SHARD] === ring.shardFor(objectHashKey('', 'ConfigMap', 's', c.metadata!.name!)) &&
        c.metadata?.labels?.[drainLabel(RING)] === undefined,
    )
  );
}

/** Each running replica's ConfigMap and Secret caches hold exactly what is labelled for it. */
async function cachesMatchLabels(): Promise<boolean> {
  const all = (await cms().list()).items;
  const allSecrets = (await secrets().list()).items;
  for (const [shard, r] of replicas) {
    const held = r.manager.cache.informerFor(ConfigMapResource).getIndexer().listKeys().sort();
    const want = all
      .filter((c) => c.metadata?.labels?.[SHARD] === shard)
      .map((c) => `s/${c.metadata!.name}`)
      .sort();
    if (held.join() !== want.join()) return false;
    const heldSecrets = r.manager.cache.informerFor(SecretResource).getIndexer().listKeys().sort();
    const wantSecrets = want.map((k) => `${k}-s`);
    if (heldSecrets.join() !== wantSecrets.join()) return false;
    if (
      !allSecrets
        .filter((s) => wantSecrets.includes(`s/${s.metadata!.name}`))
        .every((s) => s.metadata?.labels?.[SHARD] === shard)
    )
      return false;
  }
  return true;
}

/** The field manager that last set the shard label of `obj` (from its managedFields). */
function labelSetBy(obj: { metadata?: { managedFields?: { manager?: string; fieldsV1?: unknown }[] } }): string[] {
  return (obj.metadata?.managedFields ?? [])
    .filter((e) => {
      const labels = (e.fieldsV1 as Record<string, Record<string, Record<string, unknown>>> | undefined)?.[
        'f:metadata'
      ]?.['f:labels'];
      return labels?.[`f:${SHARD}`] !== undefined;
    })
    .map((e) => e.manager ?? '');
}

/** Every moved ConfigMap's Secret labelled for the ConfigMap's shard, that label set by the sharder alone. */
async function movedWithOwner(moved: string[]): Promise<string | undefined> {
  const byName = new Map((await cms().list()).items.map((c) => [c.metadata!.name!, c.metadata?.labels?.[SHARD]]));
  const bySecret = new Map((await secrets().list()).items.map((x) => [x.metadata!.name!, x]));
  for (const name of moved) {
    const secret = bySecret.get(`${name}-s`);
    const by = secret ? labelSetBy(secret) : [];
    if (secret?.metadata?.labels?.[SHARD] !== byName.get(name) || by.join() !== SHARDER_MANAGER)
      return `${name}-s: labels ${JSON.stringify(secret?.metadata?.labels)}, label set by ${JSON.stringify(by)}; owner on ${byName.get(name)}`;
  }
  return undefined;
}

function overlaps(): string[] {
  const out: string[] = [];
  const byKey = new Map<string, Span[]>();
  for (const s of spans) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.from - b.from);
    for (let i = 1; i < list.length; i++)
      if (list[i].from < list[i - 1].to)
        out.push(`${key}: ${list[i - 1].by} and ${list[i].by} ${list[i - 1].info} | ${list[i].info}`);
  }
  return out;
}

/** Secrets no ConfigMap controls (namespace `u`): one without an owner, one a Secret controls. */
const unrelated = () => resourceClient<Secret>(server.clientConfig, SecretResource).namespace('u');
const UNRELATED_LABELS = { [SHARD]: 'shard-x', app: 'other' };

before(async () => {
  server = await startTestApiServer({
    objects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 's' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'u' } },
    ],
  });
  const free = await unrelated().create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'free', labels: UNRELATED_LABELS },
  });
  await unrelated().create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'foreign',
      labels: UNRELATED_LABELS,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'free', uid: free.metadata!.uid!, controller: true }],
    },
  });
  for (let i = 0; i < N; i += 30)
    await Promise.all(
      Array.from({ length: 30 }, (_, j) =>
        cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}` }, data: { v: '1' } }),
      ),
    );
});

after(async () => {
  await Promise.all([...replicas.keys()].map((s) => stopReplica(s)));
  await server?.stop();
});

test('three shards split the objects; each cache holds its own objects and what they own, which carries its label', async () => {
  for (const s of ['shard-a', 'shard-b', 'shard-c']) startReplica(s);
  await until('every ConfigMap assigned over 3 shards', () => assignedBy(['shard-a', 'shard-b', 'shard-c']));
  await until('every Secret made, labelled as its owner', async () => {
    const byName = new Map((await cms().list()).items.map((c) => [c.metadata!.name!, c.metadata?.labels?.[SHARD]]));
    const s = (await secrets().list()).items;
    return s.length === N && s.every((x) => x.metadata?.labels?.[SHARD] === byName.get(x.metadata!.name!.slice(0, -2)));
  });
  await until('caches match the labels', cachesMatchLabels);
  for (const s of ['shard-a', 'shard-b', 'shard-c']) {
    const n = spans.filter((x) => x.by === s).length;
    assert.ok(n > 0, `${s} reconciled`);
  }
  const l = await leases().get('shard-a');
  assert.equal(l.metadata?.labels?.[RING_LABEL], RING);
  assert.equal(l.spec?.holderIdentity, 'shard-a');
  assert.deepEqual(overlaps(), []);
});

test('a 4th shard joins: about a quarter moves to it through drains; updates after the move are reconciled by it', async () => {
  const before = new Map((await cms().list()).items.map((c) => [c.metadata!.name!, c.metadata?.labels?.[SHARD]]));
  startReplica('shard-d');
  await until('every ConfigMap assigned over 4 shards', () => assignedBy(['shard-a', 'shard-b', 'shard-c', 'shard-d']));
  const after = (await cms().list()).items;
  const moved = after.filter((c) => before.get(c.metadata!.name!) !== c.metadata?.labels?.[SHARD]);
  assert.ok(
    moved.every((c) => c.metadata?.labels?.[SHARD] === 'shard-d'),
    'objects move only to the new shard',
  );
  assert.ok(moved.length >= N * 0.1 && moved.length <= N * 0.45, `${moved.length} of ${N} moved`);
  await until('caches match the labels', cachesMatchLabels);
  // the sharder moved each Secret with its owner: shard-d's reconcile found it in its cache and wrote nothing
  assert.equal(await movedWithOwner(moved.map((c) => c.metadata!.name!)), undefined);
  const target = moved[0].metadata!.name!;
  await cms().patch(target, 'application/merge-patch+json', { data: { v: '2' } });
  await until(
    'the moved object updated by its new shard',
    async () => (await secrets().get(`${target}-s`)).data?.v === Buffer.from('2').toString('base64'),
  );
  assert.ok(spans.some((s) => s.key === `s/${target}` && s.by === 'shard-d'));
  assert.deepEqual(overlaps(), []);
});

test('a shard that stops releases its Lease after its last reconcile; its objects go to the others at once', async () => {
  const heldByD = new Set(
    (await cms().list()).items.filter((c) => c.metadata?.labels?.[SHARD] === 'shard-d').map((c) => c.metadata!.name!),
  );
  const t0 = Date.now();
  await stopReplica('shard-d');
  const stoppedAt = performance.now();
  assert.equal((await leases().get('shard-d')).spec?.holderIdentity, '', 'released');
  await until('reassigned over 3 shards', () => assignedBy(['shard-a', 'shard-b', 'shard-c']), 10_000);
  assert.ok(Date.now() - t0 < TIMING.leaseDurationMs + 10_000);
  assert.ok(
    !spans.some((s) => s.by === 'shard-d' && s.to > stoppedAt),
    'no reconcile of the stopped shard after its stop',
  );
  await until('caches match the labels', cachesMatchLabels);
  const moved = [...heldByD].filter((n) => n !== undefined);
  assert.ok(moved.length > 0);
  assert.equal(await movedWithOwner(moved), undefined);
  assert.deepEqual(overlaps(), []);
});

test('a shard whose Lease expires: the sharder takes the Lease first, then reassigns its objects', async () => {
  // a ghost shard: its Lease is renewed by hand, then no more (a process that froze)
  const ghost = new ShardMember({
    backend: replicas.get('shard-a')!.manager.backend,
    ring: RING,
    shard: 'shard-ghost',
    leaseNamespace: 'default',
    ...TIMING,
  });
  const ghostStop = new AbortController();
  let lost = false;
  const ghostRun = ghost.run(
    ghostStop.signal,
    (signal) => new Promise((r) => signal.addEventListener('abort', () => r(), { once: true })),
    () => undefined,
  );
  await until('objects assigned to the ghost', async () =>
    (await cms().list()).items.some((c) => c.metadata?.labels?.[SHARD] === 'shard-ghost'),
  );
  // the ghost holds objects but reconciles nothing; now it stops renewing: sever its API (the Lease update fails)
  await until(
    'the Secrets of the ghost objects labelled for it',
    async () =>
      (await movedWithOwner(
        (await cms().list()).items
          .filter((c) => c.metadata?.labels?.[SHARD] === 'shard-ghost')
          .map((c) => c.metadata!.name!),
      )) === undefined,
  );
  const ghostHeld = (await cms().list()).items
    .filter((c) => c.metadata?.labels?.[SHARD] === 'shard-ghost')
    .map((c) => c.metadata!.name!);
  const held = ghostHeld.length;
  assert.ok(held > 0);
  server.faults.failFraction(1, {
    code: 500,
    pathPrefix: '/apis/coordination.k8s.io/v1/namespaces/default/leases/shard-ghost',
  });
  const outcome = await ghostRun;
  lost = outcome.kind === 'Lost';
  assert.ok(lost, 'the ghost saw its Lease lost');
  assert.equal(ghost.holds(), false, 'and no longer admits reconciles');
  assert.equal(ghost.admit('s/x', undefined), 'skip');
  server.faults.reset();
  await until(
    'reassigned over 3 shards',
    () => assignedBy(['shard-a', 'shard-b', 'shard-c']),
    TIMING.leaseDurationMs + 10_000,
  ).catch(async (e: Error) => {
    const labels = (await cms().list()).items.map((c) => JSON.stringify(c.metadata?.labels ?? {}));
    const counts = new Map<string, number>();
    for (const x of labels) counts.set(x, (counts.get(x) ?? 0) + 1);
    const ls = (await leases().list()).items.map(
      (x) => `${x.metadata?.name}: ${x.spec?.holderIdentity} ${x.spec?.renewTime}`,
    );
    throw new Error(
      `${e.message}: ${JSON.stringify([...counts])} leases ${ls.join('; ')} now ${new Date().toISOString()}`,
    );
  });
  await until('caches match the labels', cachesMatchLabels);
  // the ghost's objects' Secrets went to the ghost with their owners, and on from it with them
  assert.equal(await movedWithOwner(ghostHeld), undefined);
  const l = await leases().get('shard-ghost');
  assert.notEqual(l.spec?.holderIdentity, 'shard-ghost', 'the sharder took the Lease before reassigning');
  assert.ok(['shard-a', 'shard-b', 'shard-c'].includes(l.spec?.holderIdentity ?? ''));
  ghostStop.abort();
  assert.deepEqual(overlaps(), []);
});

test('Secrets no ConfigMap of the ring controls are left as they were', async () => {
  for (const name of ['free', 'foreign']) {
    const x = await unrelated().get(name);
    assert.deepEqual(x.metadata?.labels, UNRELATED_LABELS, name);
    assert.ok(
      !(x.metadata?.managedFields ?? []).some((e) => e.manager === SHARDER_MANAGER),
      `${name}: no sharder write`,
    );
  }
});
