// The Gateway API suite as upstream runs it (tests/crd/crd_test.go: `kubectl apply -f` against
// envtest), here against crdgen's test API server and against the real kube-apiserver: kubectl
// applies the Gateway API CRDs, then every valid example applies and every invalid one is refused
// with EXPECTED.md's substrings, on both — and both answer kubectl with the same words (the real
// apiserver's OpenAPI and CEL verdicts beside crdgen's engine). kubectl: Debian's 1.20
// ($KUBECTL overrides it; npm test's set-up unpacks it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { kubectl120 } from '../support/assets.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import { CRDS, expectations, loadYaml, SUITE, yamlFiles } from './gateway-suite.js';

/** The namespaces the valid examples live in (created at server start; the examples are the subject). */
function exampleNamespaces(): string[] {
  const ns = new Set<string>();
  for (const f of yamlFiles(join(SUITE, 'valid')))
    for (const o of loadYaml(f)) {
      const n = (o.metadata as { namespace?: string } | undefined)?.namespace;
      if (n) ns.add(n);
    }
  return [...ns].sort();
}

/** Runs `fn` over `items` with at most `limit` running at once, results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Run {
  code: number;
  out: string;
}

/**
 * `files` in lanes: files that name one object (kind, namespace, name) share a lane, so two
 * `kubectl apply` runs never race to create the same object (both would GET 404, then one POST
 * gets 409 AlreadyExists, as against a real apiserver). Lanes keep the files' order.
 */
function lanesOf(files: readonly string[]): string[][] {
  const laneOfKey = new Map<string, string[]>();
  const lanes: string[][] = [];
  for (const f of files) {
    const keys = loadYaml(f).map((o) => {
      const m = (o.metadata ?? {}) as { namespace?: string; name?: string };
      return `${String(o.kind)}/${m.namespace ?? ''}/${m.name ?? ''}`;
    });
    const found = [...new Set(keys.map((k) => laneOfKey.get(k)).filter((l): l is string[] => l !== undefined))];
    let lane = found[0];
    if (!lane) lanes.push((lane = []));
    for (const other of found.slice(1)) {
      // two lanes meet in this file: fold the later into the first
      lane.push(...other.splice(0));
    }
    lane.push(f);
    for (const l of [lane, ...found])
      for (const g of l)
        for (const o of loadYaml(g)) {
          const m = (o.metadata ?? {}) as { namespace?: string; name?: string };
          laneOfKey.set(`${String(o.kind)}/${m.namespace ?? ''}/${m.name ?? ''}`, lane);
        }
  }
  return lanes.filter((l) => l.length > 0);
}

/** Applies every example with kubectl on one backend; the results by file. */
async function applyAll(backend: Backend, dir: string): Promise<{ results: Map<string, Run>; stop(): Promise<void> }> {
  const server: ApiServerHandle = await backend.start({
    objects: exampleNamespaces().map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  });
  const home = mkdtempSync(join(dir, `${backend.name}-`));
  const run = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        kubectl120(),
        [...args, `--cache-dir=${join(home, 'cache')}`],
        { env: { ...process.env, HOME: home, KUBECONFIG: server.kubeconfigPath }, timeout: 120_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
    });
  const results = new Map<string, Run>();
  try {
    const crds = await run(['apply', '-f', CRDS]);
    assert.equal(crds.code, 0, `kubectl apply -f ${CRDS} failed on ${backend.name}:\n${crds.out}`);
    // the real apiserver serves a new CRD's resources a moment after it says so: wait for each
    await waitForServed(run);
    const files = [...yamlFiles(join(SUITE, 'valid')), ...yamlFiles(join(SUITE, 'invalid'))];
    await mapLimit(lanesOf(files), 3, async (lane) => {
      for (const f of lane) results.set(relative(SUITE, f), await run(['apply', '-f', f]));
    });
  } catch (e) {
    await server.stop();
    throw e;
  }
  return { results, stop: () => server.stop() };
}

async function waitForServed(run: (args: string[]) => Promise<Run>): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (const r of ['gatewayclasses', 'gateways', 'httproutes']) {
    while ((await run(['get', `${r}.gateway.networking.k8s.io`, '-A'])).code !== 0) {
      assert.ok(Date.now() < deadline, `${r} not served`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }
}

/** kubectl's answer without what differs by run (nothing today; kept as the one place to say so). */
const verdict = (r: Run): string => `${r.code === 0 ? 'applied' : 'refused'}: ${r.out.trim()}`;

describe('Gateway API examples: kubectl apply against crdgen testenv and the real kube-apiserver', () => {
  let dir: string;
  const runs = new Map<string, { results: Map<string, Run>; stop(): Promise<void> }>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crdgen-gateway-kubectl-'));
    for (const backend of BACKENDS) runs.set(backend.name, await applyAll(backend, dir));
  });

  after(async () => {
    for (const r of runs.values()) await r.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const backend of BACKENDS) {
    it(`${backend.name}: installs the three Gateway API CRDs and applies every file`, () => {
      assert.equal(runs.get(backend.name)!.results.size, yamlFiles(join(SUITE, 'valid')).length + 27);
    });
  }

  for (const file of yamlFiles(join(SUITE, 'valid'))) {
    const rel = relative(SUITE, file);
    it(`applies ${rel} on both, with the same output`, () => {
      for (const backend of BACKENDS) {
        const r = runs.get(backend.name)!.results.get(rel)!;
        assert.equal(r.code, 0, `${backend.name}: ${r.out}`);
        assert.match(r.out, / (created|configured|unchanged)\n?/);
      }
      assert.equal(verdict(runs.get('testenv')!.results.get(rel)!), verdict(runs.get('real')!.results.get(rel)!));
    });
  }

  const expected = expectations();
  for (const file of yamlFiles(join(SUITE, 'invalid'))) {
    const rel = relative(SUITE, file);
    it(`refuses ${rel} for the stated reason on both, with the real apiserver's message`, () => {
      const subs = expected.get(rel) ?? [];
      assert.ok(subs.length > 0, `EXPECTED.md has no substring for ${rel}`);
      for (const backend of BACKENDS) {
        const r = runs.get(backend.name)!.results.get(rel)!;
        assert.notEqual(r.code, 0, `${backend.name} applied:\n${r.out}`);
        assert.match(r.out, /is invalid/);
        for (const sub of subs)
          assert.ok(r.out.includes(sub), `${backend.name}: kubectl output lacks ${JSON.stringify(sub)}:\n${r.out}`);
      }
      assert.equal(verdict(runs.get('testenv')!.results.get(rel)!), verdict(runs.get('real')!.results.get(rel)!));
    });
  }
});
