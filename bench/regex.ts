// Regular-expression engines for OpenAPI `pattern` and CEL `matches()`: which one crdgen matches with.
// Side by side on the corpus's real patterns (every `pattern` of ../shared/corpus/crds and every
// regex literal of its CEL rules) and strings generated from them (each pattern's matching strings
// and one-character edits, as test/unit/runtime/validation/re2-corpus.test.ts makes them):
//   - crdgen: src/runtime/validation/re2.ts (re2js, a JavaScript port of Go's regexp, + Go 1.26's parse rules)
//   - translated RegExp: the RE2 → JavaScript RegExp translation crdgen used before (V8's backtracking engine)
//   - re2-wasm (Google's RE2 in WebAssembly) and @adguard/re2-wasm (its maintained fork): bench/'s peers
//   - re2 (the native binding, node-re2) when BENCH_RE2_NATIVE names an installed copy: it needs a
//     C++ build on install (its prebuilt binaries come from GitHub), and its current versions Node 22
// For each: Go's verdict on the RE2 corner cases (test/support/re2-go.json, recorded from Go),
// agreement with crdgen on the generated strings, compile time, match time (median CPU ns per
// test() over all strings), the time on a 10,000-character adversarial value, and install size.
// Run: npm run bench -- regex   (or: npx tsx bench/regex.ts)
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { compileRe2 } from '../src/runtime/validation/re2.js';
import { corpusPatterns } from '../test/support/corpus-patterns.js';
import { compileRe2 as compileTranslated } from '../test/support/re2-legacy.js';
import { readRecording } from '../test/support/re2-go.js';
import { fmt, table } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const ROUNDS = 15;
const require = createRequire(import.meta.url);

interface Matcher {
  test(s: string): boolean;
}
interface Engine {
  name: string;
  compile(p: string): Matcher;
  /** The package folder whose size is the install size (null: part of Node). */
  dir: string | null;
  native: boolean;
  /** Backtracks: adversarial values are only tried short (they would not finish). */
  backtracks?: boolean;
  /** A WebAssembly heap that never frees compiled patterns: the package name, for the leak count. */
  wasm?: string;
}

type WasmRE2 = new (p: string, flags: string) => Matcher;
function wasmEngine(name: string, pkg: string): Engine | undefined {
  try {
    const { RE2 } = require(pkg) as { RE2: WasmRE2 };
    const dir = dirname(dirname(dirname(require.resolve(pkg))));
    return { name, compile: (p) => new RE2(p, 'u'), dir, native: false, wasm: dir };
  } catch {
    console.error(`(${pkg} is not installed in bench/node_modules: npm ci in bench/)`);
    return undefined;
  }
}

function nativeEngine(): Engine | undefined {
  const dir = process.env.BENCH_RE2_NATIVE;
  if (!dir) return undefined;
  const RE2 = require(dir) as WasmRE2;
  return { name: 're2 (native)', compile: (p) => new RE2(p, 'u'), dir, native: true };
}

const ENGINES: Engine[] = [
  { name: 'crdgen (re2js)', compile: compileRe2, dir: dirname(dirname(require.resolve('re2js'))), native: false },
  {
    name: 'translated RegExp',
    compile: (p: string) => compileTranslated(p),
    dir: null,
    native: false,
    backtracks: true,
  },
  wasmEngine('re2-wasm', 're2-wasm'),
  wasmEngine('@adguard/re2-wasm', '@adguard/re2-wasm'),
  nativeEngine(),
].filter((e): e is Engine => e !== undefined);

const ALPHABET = [...'aZ09-_./:@%*+?()[]{}|^$\\ \t\n!#,;=~`\'"', 'é', '😀'];
/** Strings the pattern matches (fast-check's stringMatching on its translation) and edits of them. */
function samples(pattern: string, seed: number): string[] {
  const matching = fc.sample(fc.stringMatching(compileTranslated(pattern)), { seed, numRuns: 40 });
  const edits = fc.sample(
    fc.tuple(fc.constantFrom(...matching), fc.nat(), fc.constantFrom(...ALPHABET), fc.integer({ min: 0, max: 2 })),
    { seed: seed + 1, numRuns: 80 },
  );
  return [
    ...new Set([
      ...matching,
      ...edits.map(([s, at, c, k]) => {
        const i = s.length === 0 ? 0 : at % s.length;
        return k === 0 ? s.slice(0, i) + c + s.slice(i) : s.slice(0, i) + (k === 2 ? c : '') + s.slice(i + 1);
      }),
    ]),
  ];
}

function cpuNs(fn: () => void): number {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) * 1000;
}

function medianNsPerCall(fn: () => void, calls: number): number {
  fn();
  const res: number[] = [];
  for (let r = 0; r < ROUNDS; r++) res.push(cpuNs(fn) / calls);
  res.sort((a, b) => a - b);
  return res[Math.floor(res.length / 2)];
}

/** How many distinct small patterns a WebAssembly engine compiles before its heap is exhausted (a child process). */
function compilesBeforeAbort(dir: string): string {
  const script = `const { RE2 } = require(${JSON.stringify(dir)}); let n = 0;
    try { for (; n < 50000; n++) new RE2('^[a-z0-9]([-a-z0-9]*[a-z0-9])?' + n, 'u').test('abc'); } catch {}
    console.log(n);`;
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const n = Number(out.trim().split('\n').pop());
  return n >= 50000 ? 'no abort in 50,000' : `${n.toLocaleString('en-US')} patterns`;
}

function duKb(dir: string): number {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);
}

const corpus = corpusPatterns();
const inputs = corpus.map((p, i) => samples(p.pattern, 5000 + i));
const nInputs = inputs.reduce((n, xs) => n + xs.length, 0);
const recording = readRecording();
console.log(
  `${corpus.length} corpus patterns (${corpus.filter((p) => p.use === 'pattern').length} OpenAPI, ${corpus.filter((p) => p.use === 'cel').length} CEL; ${corpus.reduce((n, p) => n + p.occurrences, 0)} uses), ${nInputs} generated strings; ${recording.length} RE2 corner cases recorded from Go\n`,
);

const ADVERSARIAL: [string, string][] = [
  ['^(a+)+$', 'a'],
  ['(a|aa)+$', 'a'],
  ['(a*)*b', 'a'],
  ['(x+x+)+y', 'x'],
  ['^(\\w+\\s?)*$', 'ab '],
];

const rows: string[][] = [];
const advRows: string[][] = [];
const reference = ENGINES[0];
let refVerdicts: boolean[][] = [];
const perCall: Record<string, number> = {};
for (const e of ENGINES) {
  // compile: each corpus pattern once, cold (first compile in this process)
  let compileNs = 0;
  const compiled = corpus.map((p) => {
    let m: Matcher | undefined;
    compileNs += cpuNs(() => (m = e.compile(p.pattern)));
    return m!;
  });
  // Go's syntax verdicts: accepted/refused as recorded
  let goAgree = 0;
  let skipped = 0;
  for (const r of recording) {
    // the WebAssembly heap is 16 MB and cannot grow: a pattern this large aborts the process
    if (e.wasm && r.pattern.length > 2000) {
      skipped++;
      continue;
    }
    let ok = true;
    try {
      if (e.backtracks && /\\[xp]\{[^}]*$/.test(r.pattern))
        throw new Error('the translation loops on an unclosed \\x{ / \\p{');
      e.compile(r.pattern);
    } catch {
      ok = false;
    }
    if (ok === (r.error === null)) goAgree++;
  }
  if (e === reference) refVerdicts = inputs.map((xs, i) => xs.map((x) => compiled[i].test(x)));
  let disagree = 0;
  inputs.forEach((xs, i) => xs.forEach((s, j) => (disagree += compiled[i].test(s) === refVerdicts[i][j] ? 0 : 1)));
  const ns = medianNsPerCall(() => {
    for (let i = 0; i < compiled.length; i++) for (const s of inputs[i]) compiled[i].test(s);
  }, nInputs);
  perCall[e.name] = ns;
  rows.push([
    e.name,
    `${goAgree}/${recording.length}${skipped ? ` (${skipped} too large: abort)` : ''}`,
    e === reference ? '—' : String(disagree),
    fmt(compileNs / 1e6 / corpus.length, 3),
    fmt(ns, 3),
    e.dir ? `${fmt(duKb(e.dir) / 1024, 2)} MB` : 'in Node',
    e.native ? 'yes (C++ toolchain)' : 'no',
    e.wasm ? `aborts after ${compilesBeforeAbort(e.wasm)}` : 'no limit',
  ]);
  for (const [p, unit] of ADVERSARIAL) {
    const m = e.compile(p);
    if (e.backtracks) {
      const at = (n: number) => cpuNs(() => m.test(unit.repeat(n) + '!')) / 1e6;
      const [a, b] = [at(20), at(24)];
      advRows.push([e.name, p, `not run (${fmt(a, 2)} ms at 20 units, ${fmt(b, 2)} ms at 24: ×${fmt(b / a, 2)})`]);
    } else {
      const v = unit.repeat(Math.ceil(10_000 / unit.length)).slice(0, 10_000) + '!';
      advRows.push([e.name, p, `${fmt(cpuNs(() => m.test(v)) / 1e6, 3)} ms`]);
    }
  }
}

console.log(
  table(
    [
      'engine',
      'Go syntax verdicts',
      'differs from crdgen',
      'compile ms/pattern',
      'match ns/call',
      'install size',
      'native build',
      'compiled patterns kept',
    ],
    rows,
  ),
);
console.log('\nA 10,000-character adversarial value (the unit repeated, then `!`), CPU time of one test():\n');
console.log(table(['engine', 'pattern', 'time'], advRows));

const ratio = perCall['crdgen (re2js)'] / perCall['translated RegExp'];
console.log(
  `\n- ${recordVerdict({
    target: 'RE2 match cost on corpus patterns (linear time; recorded)',
    crdgen: `${fmt(perCall['crdgen (re2js)'])} ns/call`,
    peers: Object.entries(perCall)
      .filter(([n]) => n !== 'crdgen (re2js)')
      .map(([n, v]) => `${n} ${fmt(v)} ns`)
      .join('; '),
    judged: `${fmt(ratio, 3)}× the backtracking translation`,
    met: null,
    command: 'npm run bench -- regex',
  })}`,
);
console.log(
  `\n(the package folders' sizes are du -sk of ${ENGINES.filter((e) => e.dir)
    .map((e) => join(e.dir!))
    .join(', ')})`,
);
