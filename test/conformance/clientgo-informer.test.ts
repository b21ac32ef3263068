// Conformance: a plain client-go v0.37.1 dynamic informer (test/clientgo/informer, built by the
// test set-up; client-go's defaults, WatchListClient included) over 1,000 custom objects while
// they change. On testenv its watches are dropped, the server restarts and the history expires
// (410: the reflector lists again); on the real control plane the same workload runs without
// injected faults. Either way its cache must converge to the server's state: the same
// namespace/name@resourceVersion set as a list from the server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { KubeObject } from '../../src/runtime/index.js';
import type { ApiServerHandle, TestApiServer } from '../../src/testing/index.js';
import { goClientsBin } from '../support/assets.js';
import { BACKENDS } from '../support/backends.js';

const GROUP = 'informer.crdgen.test';
const PLURAL = 'gadgets';
const NS = ['default', 'kube-public'];
const COUNT = 1000;
const WAIT_MS = 180000;

const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Gadget', plural: PLURAL, singular: 'gadget', listKind: 'GadgetList' },
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
              spec: { type: 'object', properties: { n: { type: 'integer' }, round: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
} as KubeObject;

const gadget = (ns: string, name: string, n: number, round = 0): KubeObject =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name, namespace: ns }, spec: { n, round } }) as KubeObject;

/** One JSON request with the handle's credentials. */
function call(
  h: ApiServerHandle,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: any }> {
  const url = new URL(path, h.url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: `Bearer ${h.clientConfig.auth?.bearerToken ?? ''}`,
  };
  if (data !== undefined)
    Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(data)) });
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method, headers, ca: h.caCert, timeout: 60000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    req.end(data);
  });
}

/** A deterministic generator (mulberry32), so each run makes the same changes. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The informer program, with its "dump" command. */
class Informer {
  readonly child: ChildProcess;
  private out = '';
  private waiters: (() => void)[] = [];
  log = '';
  constructor(kubeconfig: string) {
    this.child = spawn(
      join(goClientsBin(), 'informer'),
      [
        `-kubeconfig=${kubeconfig}`,
        `-group=${GROUP}`,
        '-version=v1',
        `-resource=${PLURAL}`,
        `-v=${process.env.CRDGEN_INFORMER_V ?? 2}`,
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.child.stdout!.on('data', (c: Buffer) => {
      this.out += c.toString();
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.log += c.toString()));
  }
  tail(): string {
    return `informer log:\n${this.log.split('\n').slice(-20).join('\n')}`;
  }
  /** Waits until stdout has a line matching `re` (from `from`); returns the text up to and including it. */
  private async line(re: RegExp, from: number, timeoutMs: number): Promise<{ text: string; end: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rest = this.out.slice(from);
      const m = re.exec(rest);
      if (m) return { text: rest.slice(0, m.index + m[0].length), end: from + m.index + m[0].length };
      if (this.child.exitCode !== null) throw new Error(`the informer exited (${this.child.exitCode}). ${this.tail()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the informer printed no ${re} within ${timeoutMs / 1000} s. ${this.tail()}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }
  async synced(): Promise<number> {
    const { text } = await this.line(/^SYNCED (\d+)$/m, 0, WAIT_MS);
    return Number(/SYNCED (\d+)/.exec(text)![1]);
  }
  /** The cache, as namespace/name@resourceVersion lines, and the handler counts. */
  async dump(): Promise<{ keys: string[]; adds: number; updates: number; deletes: number }> {
    const from = this.out.length;
    this.child.stdin!.write('dump\n');
    const { text, end } = await this.line(/^END (\d+) adds=(\d+) updates=(\d+) deletes=(\d+)$/m, from, 60000);
    this.out = this.out.slice(end);
    const lines = text.split('\n').filter(Boolean);
    const m = /^END (\d+) adds=(\d+) updates=(\d+) deletes=(\d+)$/.exec(lines.pop()!)!;
    const keys = lines.filter((l) => !l.startsWith('SYNCED'));
    assert.equal(keys.length, Number(m[1]));
    return { keys, adds: Number(m[2]), updates: Number(m[3]), deletes: Number(m[4]) };
  }
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((r) => this.child.on('exit', (code) => r(code)));
    this.child.stdin!.end('quit\n');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 30000);
    const code = await exited;
    clearTimeout(t);
    return code;
  }
}

async function serverKeys(h: ApiServerHandle): Promise<string[]> {
  const l = await call(h, 'GET', `/apis/${GROUP}/v1/${PLURAL}`);
  assert.equal(l.status, 200);
  return (l.body.items as KubeObject[])
    .map((o) => `${o.metadata!.namespace}/${o.metadata!.name}@${o.metadata!.resourceVersion}`)
    .sort();
}

/** Runs `n` tasks with at most `width` at a time. */
async function pool(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

describe('a client-go dynamic informer over 1,000 custom objects', () => {
  for (const backend of BACKENDS) {
    describe(backend.name, () => {
      let h: ApiServerHandle;
      let inf: Informer | undefined;
      const names = new Map<string, string>(); // key -> namespace
      before(async () => {
        h = await backend.start({ crds: [CRD] });
      });
      after(async () => {
        await inf?.stop();
        await h?.stop();
      });

      it(`lists ${COUNT} objects into its cache`, { timeout: 600000 }, async () => {
        await pool(COUNT, 8, async (i) => {
          const ns = NS[i % NS.length];
          const name = `g-${String(i).padStart(4, '0')}`;
          const r = await call(h, 'POST', `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}`, gadget(ns, name, i));
          assert.equal(r.status, 201, JSON.stringify(r.body));
          names.set(name, ns);
        });
        inf = new Informer(h.kubeconfigPath);
        assert.equal(await inf.synced(), COUNT);
        assert.deepEqual((await inf.dump()).keys, await serverKeys(h));
      });

      it(
        'converges to the server state after creates, updates and deletes with watch drops, restarts and expired history',
        { timeout: 900000 },
        async () => {
          const rnd = random(22);
          const env = backend.name === 'testenv' ? (h as TestApiServer) : undefined;
          let created = COUNT;
          const faults: string[] = [];
          for (let round = 1; round <= 6; round++) {
            await pool(120, 4, async () => {
              const roll = rnd();
              const keys = [...names.keys()];
              if (roll < 0.2) {
                const ns = NS[created % NS.length];
                const name = `g-${String(created++).padStart(4, '0')}`;
                names.set(name, ns);
                const r = await call(
                  h,
                  'POST',
                  `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}`,
                  gadget(ns, name, created, round),
                );
                assert.equal(r.status, 201, JSON.stringify(r.body));
              } else if (roll < 0.35 && keys.length) {
                const name = keys[Math.floor(rnd() * keys.length)];
                const ns = names.get(name)!;
                names.delete(name);
                const r = await call(h, 'DELETE', `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}/${name}`);
                assert.ok(r.status === 200 || r.status === 404, JSON.stringify(r.body));
              } else if (keys.length) {
                const name = keys[Math.floor(rnd() * keys.length)];
                const ns = names.get(name)!;
                const r = await call(
                  h,
                  'PATCH',
                  `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}/${name}`,
                  { spec: { round, n: Math.floor(rnd() * 1e6) } },
                  'application/merge-patch+json',
                );
                assert.ok(r.status === 200 || r.status === 404, JSON.stringify(r.body));
              }
            });
            if (env) {
              // the faults, between rounds of writes (the watches are mid-stream)
              if (round === 3) {
                await env.faults.restart(500);
                faults.push('restart');
              } else if (round === 5) {
                // down for 1.5 s; meanwhile objects change in-process and the history is forgotten,
                // so the informer's watch from its last resourceVersion gets 410 and it lists again
                const restarted = env.faults.restart(1500);
                const more = Array.from({ length: 20 }, (_, i) =>
                  gadget(NS[i % NS.length], `g-${String(created++).padStart(4, '0')}`, i, round),
                );
                await env.create(more);
                for (const o of more) names.set(o.metadata!.name!, o.metadata!.namespace!);
                env.faults.expireResourceVersions();
                await restarted;
                faults.push('restart+expire');
              } else {
                env.faults.dropWatches();
                faults.push('drop');
              }
            }
          }
          // converged: the cache equals a list from the server (and stays equal once writes stop)
          const deadline = Date.now() + WAIT_MS;
          let last: { keys: string[]; adds: number; updates: number; deletes: number };
          let want: string[];
          for (;;) {
            last = await inf!.dump();
            want = await serverKeys(h);
            if (JSON.stringify(last.keys) === JSON.stringify(want)) break;
            if (Date.now() > deadline) {
              const have = new Set(last.keys);
              const need = new Set(want);
              const missing = want.filter((k) => !have.has(k)).slice(0, 5);
              const extra = last.keys.filter((k) => !need.has(k)).slice(0, 5);
              assert.fail(
                `the cache did not converge in ${WAIT_MS / 1000} s after ${faults.join(', ') || 'no faults'}: missing or stale ${missing.join(',')}, ` +
                  `extra ${extra.join(',')}. ${inf!.tail()}`,
              );
            }
            await new Promise((r) => setTimeout(r, 500));
          }
          assert.equal(want.length, names.size);
          // the 410 after the expired history made the reflector list again
          if (env)
            assert.ok(
              (inf!.log.match(/"Caches populated"/g) ?? []).length >= 2,
              `the informer listed again after the 410. ${inf!.tail()}`,
            );
          assert.ok(
            last.updates > 0 && last.deletes > 0 && last.adds > COUNT,
            `the handlers saw every kind of change: ${JSON.stringify(last)}`,
          );
        },
      );

      it('quits on request with exit code 0', { timeout: 60000 }, async () => {
        assert.equal(await inf!.stop(), 0, inf!.tail());
      });
    });
  }
});
