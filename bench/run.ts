// `npm run bench [-- <name>...]`: builds the package (`npm run build`), runs the benchmarks, each
// in its own process, and prints their tables (Markdown), then the targets' verdicts of the run as
// one table (each benchmark records its own, bench/lib/verdicts.ts), the total wall time of the
// whole command (build included), and last go-peers' one-line summary. With no name, runs the
// default set: deepcopy, workqueue, testenv, go-peers (the Go peers on the real control plane; it
// judges the informer targets too, on kube-apiserver), generate. Installs bench/'s own peer tools
// first when they are missing; go-peers builds its Go peers and the control plane when they are
// not cached. BENCH_NO_BUILD=1 skips the build (dist/ must exist).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH, REPO, requireBuild, snapshotPackage } from './lib/env.js';
import { machine } from './lib/stats.js';
import { readVerdicts, verdictTable } from './lib/verdicts.js';

/** Every benchmark: its file and what it measures. */
const SUITES: Record<string, { file: string; about: string; inDefault: boolean }> = {
  deepcopy: {
    file: 'deepcopy.ts',
    about: 'generated deepCopy vs structuredClone, JSON, rfdc, klona, fast-copy, lodash, hand-written',
    inDefault: true,
  },
  workqueue: {
    file: 'workqueue.ts',
    about: 'add/get/done cycles, 1/2/8 workers, duplicates, rate-limiting queue',
    inDefault: true,
  },
  testenv: { file: 'testenv-start.ts', about: 'startTestApiServer() start-up', inDefault: true },
  informer: {
    file: 'informer.ts',
    about:
      'informer sync/heap/event stream vs client-node makeInformer and the fetch+JSON.parse floor, on crdgen/testing, with a client-paced replay (go-peers judges the targets on kube-apiserver)',
    inDefault: false,
  },
  'go-peers': {
    file: 'go-peers.ts',
    about:
      'client-go, controller-runtime, client-node and crdgen on etcd + kube-apiserver + kwok: informers, operators, test server',
    inDefault: true,
  },
  scale: {
    file: 'scale.ts',
    about:
      'operators at scale (10k/50k/100k): streaming and paged informers vs client-go and client-node with the apiserver’s RSS and the limit, the operator vs controller-runtime, failover (issue #36)',
    inDefault: false,
  },
  operator: {
    file: 'operator.ts',
    about: 'generated operator vs a client-node one on crdgen/testing (go-peers measures it on the real control plane)',
    inDefault: false,
  },
  generate: {
    file: 'generate.ts',
    about: 'crdgen generate vs openapi-typescript, crd-generate, cdk8s import, json2ts; start-up; scaling',
    inDefault: true,
  },
  'generate-scale': {
    file: 'generate-scale.ts',
    about:
      'crdgen generate at 1x/4x/16x/32x the corpus (cold, one CRD changed) vs openapi-typescript; 16x in a 512 MB heap (issue #38)',
    inDefault: false,
  },
  sharding: {
    file: 'sharding.ts',
    about:
      'the generated operator on 1 and 3 replicas (--sharded, taskset), 3,000 objects: throughput with the platform’s share, partition, join/leave/crash times, the overlap checker (issue #33)',
    inDefault: false,
  },
  'runtime-cache': {
    file: 'runtime-cache.ts',
    about: 'queue, delaying queue, indexer, DeltaFIFO throughput (issue #3)',
    inDefault: false,
  },
  'ts-reader': { file: 'ts-reader.ts', about: 'TypeScript reader vs tsc --noEmit (issue #7)', inDefault: false },
  validation: {
    file: 'validation.ts',
    about: 'validate(): DatabaseManager, Gateway API examples (OpenAPI + list types + CEL) (issues #11, #27)',
    inDefault: false,
  },
  regex: {
    file: 'regex.ts',
    about:
      'RE2 engines for pattern/matches() on the corpus patterns: crdgen (re2js) vs the old RegExp translation, re2-wasm, @adguard/re2-wasm (and native re2 with BENCH_RE2_NATIVE)',
    inDefault: false,
  },
  cel: {
    file: 'cel-evaluators.ts',
    about: 'CEL evaluation: crdgen’s evaluator vs @bufbuild/cel on Gateway API rules (issue #27)',
    inDefault: false,
  },
};

function usage(): string {
  return `usage: npm run bench [-- <name>...]\n${Object.entries(SUITES)
    .map(([n, s]) => `  ${n.padEnd(14)} ${s.about}${s.inDefault ? '' : ' (only when named)'}`)
    .join('\n')}`;
}

function main(): number {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    console.log(usage());
    return 0;
  }
  const unknown = args.filter((a) => !(a in SUITES));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.map((u) => JSON.stringify(u)).join(', ')}\n${usage()}`);
    return 2;
  }
  const names = args.length > 0 ? args : Object.keys(SUITES).filter((n) => SUITES[n].inDefault);
  const t0 = performance.now();
  const build = process.env.BENCH_NO_BUILD !== '1';
  const command = `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`;
  if (build) {
    const b = spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
    if (b.status !== 0) {
      console.error('npm run build failed');
      return 1;
    }
  }
  requireBuild();
  if (!existsSync(join(BENCH, 'node_modules', '.package-lock.json'))) {
    console.error('installing the peer tools of bench/package.json (npm ci, once)…');
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: BENCH, stdio: 'inherit' });
    if (r.status !== 0) return 1;
  }
  // The BENCH_* settings that change what runs (rounds, scale) are part of the command.
  const settings = Object.keys(process.env)
    .filter((k) => k.startsWith('BENCH_'))
    .sort()
    .map((k) => `${k}=${process.env[k]} `)
    .join('');
  console.log(
    `# crdgen benchmarks — ${new Date().toISOString()}\n\nmachine: ${machine()}\ncommand: ${settings}${command}\n`,
  );
  const pkg = snapshotPackage();
  const check = spawnSync(process.execPath, [join(pkg, 'bin', 'crdgen.js'), '--version'], { encoding: 'utf8' });
  if (check.status !== 0) {
    console.error(`the built package does not start (a build in progress?): ${check.stderr}`);
    rmSync(pkg, { recursive: true, force: true });
    return 1;
  }
  const verdictDir = mkdtempSync(join(tmpdir(), 'crdgen-bench-verdicts-'));
  const verdicts = join(verdictDir, 'verdicts.jsonl');
  const lastLines = join(verdictDir, 'last-lines.txt');
  let failed = 0;
  for (const name of names) {
    const s = SUITES[name];
    const t = performance.now();
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(BENCH, s.file)], {
      cwd: REPO,
      stdio: 'inherit',
      env: {
        ...process.env,
        CRDGEN_BENCH_PKG: pkg,
        CRDGEN_BENCH_VERDICTS: verdicts,
        CRDGEN_BENCH_LAST_LINES: lastLines,
      },
    });
    const secs = ((performance.now() - t) / 1000).toFixed(0);
    if (r.status !== 0) {
      failed++;
      console.log(`\n(${name} FAILED with exit ${r.status ?? r.signal} after ${secs} s)\n`);
    } else {
      console.log(`\n(${name}: ${secs} s)\n`);
    }
  }
  rmSync(pkg, { recursive: true, force: true });
  const all = readVerdicts(verdicts);
  const last = existsSync(lastLines) ? readFileSync(lastLines, 'utf8').trim() : '';
  rmSync(verdictDir, { recursive: true, force: true });
  if (all.length > 0) console.log(`## Targets of this run\n\n${verdictTable(all)}\n`);
  const total = (performance.now() - t0) / 1000;
  console.log(
    `total wall time of \`${command}\` (${build ? 'build included' : 'no build'}): ${Math.floor(total / 60)} min ${Math.round(total % 60)} s; load average at the end: ${machine().split('load average ')[1]}`,
  );
  // a benchmark's one-line summary (go-peers') is the last line of the output
  if (last) console.log(`\n${last}`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = main();
