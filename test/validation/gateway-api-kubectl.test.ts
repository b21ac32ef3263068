// The Gateway API suite as upstream runs it (tests/crd/crd_test.go: `kubectl apply -f` against
// envtest), here against crdgen's test API server: kubectl applies the Gateway API CRDs, then every
// valid example applies and every invalid one is refused with EXPECTED.md's substrings.
// kubectl: $KUBECTL, else Debian's 1.20 cached by scripts/ensure-kubectl.sh, else PATH; the test
// FAILS when there is none.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { CRDS, expectations, loadYaml, SUITE, yamlFiles } from './gateway-suite.js';

function findKubectl(): string | undefined {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const cached = join(ROOT, '.cache/kubectl-1.20/usr/bin/kubectl');
  if (existsSync(cached)) return cached;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'kubectl'))) return join(dir, 'kubectl');
  return undefined;
}

/** The namespaces the valid examples live in (created at server start; the examples are the subject). */
function exampleNamespaces(): string[] {
  const ns = new Set<string>();
  for (const f of yamlFiles(join(SUITE, 'valid'))) for (const o of loadYaml(f)) {
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
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Run { code: number; out: string }

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
    for (const l of [lane, ...found]) for (const g of l) for (const o of loadYaml(g)) {
      const m = (o.metadata ?? {}) as { namespace?: string; name?: string };
      laneOfKey.set(`${String(o.kind)}/${m.namespace ?? ''}/${m.name ?? ''}`, lane);
    }
  }
  return lanes.filter((l) => l.length > 0);
}

describe('Gateway API examples: kubectl apply against crdgen testenv', () => {
  const kubectl = findKubectl();
  let server: TestApiServer | undefined;
  let dir: string;
  const results = new Map<string, Run>();

  const run = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        kubectl!,
        [...args, `--cache-dir=${join(dir, 'cache')}`],
        { env: { ...process.env, HOME: dir, KUBECONFIG: server!.kubeconfigPath }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
    });

  before(async () => {
    assert.ok(kubectl, 'no kubectl found: set KUBECTL, run scripts/ensure-kubectl.sh, or put kubectl on PATH');
    dir = mkdtempSync(join(tmpdir(), 'crdgen-gateway-kubectl-'));
    server = await startTestApiServer({ objects: exampleNamespaces().map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })) });
    const crds = await run(['apply', '-f', CRDS]);
    assert.equal(crds.code, 0, `kubectl apply -f ${CRDS} failed:\n${crds.out}`);
    const files = [...yamlFiles(join(SUITE, 'valid')), ...yamlFiles(join(SUITE, 'invalid'))];
    await mapLimit(lanesOf(files), 3, async (lane) => {
      for (const f of lane) results.set(relative(SUITE, f), await run(['apply', '-f', f]));
    });
  });

  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs the three Gateway API CRDs', () => {
    assert.equal(results.size, yamlFiles(join(SUITE, 'valid')).length + 27);
  });

  for (const file of yamlFiles(join(SUITE, 'valid'))) {
    const rel = relative(SUITE, file);
    it(`applies ${rel}`, () => {
      const r = results.get(rel)!;
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, / (created|configured|unchanged)\n?/);
    });
  }

  const expected = expectations();
  for (const file of yamlFiles(join(SUITE, 'invalid'))) {
    const rel = relative(SUITE, file);
    it(`refuses ${rel} for the stated reason`, () => {
      const r = results.get(rel)!;
      assert.notEqual(r.code, 0, `applied:\n${r.out}`);
      assert.match(r.out, /is invalid/);
      const subs = expected.get(rel) ?? [];
      assert.ok(subs.length > 0, `EXPECTED.md has no substring for ${rel}`);
      for (const sub of subs) assert.ok(r.out.includes(sub), `kubectl output lacks ${JSON.stringify(sub)}:\n${r.out}`);
    });
  }
});
