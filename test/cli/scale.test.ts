// generate and verify at scale (src/cli/stream.ts): the output written group by group is the
// in-memory pipeline's, with worker threads or without; a run that uses the cache writes what a
// cold run writes after random edits of its inputs; out of memory is an error that leaves the
// output folder as it was; a heap today's in-memory pipeline runs out of is enough.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CORPUS, FIXTURES, readTree, ROOT } from '../golden/support.js';
import { run } from './support.js';
import { resolveTargets, type GenerateFlags } from '../../src/cli/options.js';
import { buildTarget } from '../../src/cli/pipeline.js';
import { Reporter } from '../../src/cli/report.js';
import { CACHE_DIR } from '../../src/cli/cache-dir.js';
import { editOne, renameGroups } from '../../bench/lib/replicate.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-scale-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The corpus as one consistent API set (as bench/generate.ts takes it): no kind defined twice. */
function corpusFiles(): string[] {
  const skip = new Set([
    'sample-controller/crd.yaml',
    'sample-controller/crd-validation.yaml',
    'prometheus-operator/servicemonitor.crd.yaml',
    'sample-controller/example-foo.yaml',
  ]);
  const files: string[] = [];
  for (const dir of readdirSync(CORPUS).sort()) {
    if (!statSync(join(CORPUS, dir)).isDirectory()) continue;
    for (const f of readdirSync(join(CORPUS, dir)).sort())
      if (/\.ya?ml$/.test(f) && !skip.has(`${dir}/${f}`)) files.push(join(CORPUS, dir, f));
  }
  return files;
}

/** Copies `files` into a new folder of the test (one subfolder per corpus project); returns it. */
function inputsFolder(name: string, files: readonly string[], copies = 1): string {
  const dir = join(tmp, name);
  for (let i = 0; i < copies; i++)
    for (const f of files) {
      const to = join(dir, `r${i}`, basename(join(f, '..')), basename(f));
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(to, renameGroups(readFileSync(f, 'utf8'), i, f));
    }
  return dir;
}

/** The files the in-memory pipeline generates for `argv` (generate's arguments, `--out` included) in `cwd`. */
async function inMemory(argv: string[], cwd: string): Promise<Map<string, string>> {
  const flags: GenerateFlags = {};
  const inputs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') flags.out = argv[++i];
    else if (a === '--generators') flags.generators = argv[++i];
    else if (a === '--controller') (flags.controller ??= []).push(argv[++i]);
    else if (a === '--webhooks') flags.webhooks = true;
    else inputs.push(a);
  }
  const io = {
    stdout: () => undefined,
    stderr: () => undefined,
    readStdin: () => Promise.resolve(new Uint8Array()),
    cwd,
  };
  const resolution = await resolveTargets(inputs, flags, (n) => flags[n] !== undefined, io, true);
  const built = await buildTarget(resolution.targets[0], io, new Reporter(io, 'generate', { quiet: true }));
  assert.ok(built);
  return new Map(built.files.map((f) => [f.path, f.contents]));
}

const CASES: [string, string[], string][] = [
  ['every default generator', [], '0'],
  ['every generator, in worker threads', ['--generators', 'all'], '1'],
  ['an operator with webhooks beside the corpus', ['--controller', 'DatabaseManager', '--webhooks'], '1'],
];
for (const [name, extra, workers] of CASES) {
  test(`streamed output is the in-memory pipeline's: ${name}`, async () => {
    const dir = join(tmp, `same-${name.split(' ')[1]}`);
    mkdirSync(dir, { recursive: true });
    const inputs = [
      ...corpusFiles(),
      ...(extra.includes('--webhooks') ? [join(FIXTURES, 'databasemanager', 'crd.yaml')] : []),
    ];
    const argv = [...inputs, ...extra, '--out', 'out'];
    const r = await run(['generate', ...argv], dir, { env: { CRDGEN_WORKERS: workers } });
    assert.equal(r.code, 0, r.stderr);
    const expected = await inMemory(argv, dir);
    const written = readTree(join(dir, 'out'));
    assert.deepEqual([...written.keys()].sort(), [...expected.keys()].sort());
    for (const [p, text] of expected) assert.equal(written.get(p), text, p);
    const v = await run(['verify', ...argv], dir, { env: { CRDGEN_WORKERS: workers } });
    assert.equal(v.code, 0, v.stdout + v.stderr);
  });
}

/** A small PRNG (mulberry32), so that a failing sequence of edits can be run again by its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('a run that uses the cache writes what a cold run writes, after random edits (seeded)', async () => {
  const seed = Number(process.env.CRDGEN_SCALE_SEED ?? 38);
  const random = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const small = corpusFiles().filter((f) => statSync(f).size < 100_000);
  const dir = inputsFolder('edits', small);
  const inputs = (): string[] =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((p) => p.endsWith('.yaml'))
      .sort();
  const removed: { path: string; text: string }[] = [];
  let copies = 0;
  const edits: Record<string, () => string | undefined> = {
    description: () => {
      const p = pick(inputs());
      const text = readFileSync(join(dir, p), 'utf8');
      const lines = text.split('\n');
      const at = lines.map((l, i) => (/^\s*description: [A-Za-z][^#:'"]*$/.test(l) ? i : -1)).filter((i) => i >= 0);
      if (at.length === 0) return undefined;
      const i = pick(at);
      lines[i] = `${lines[i].trimEnd()} Edited ${Math.floor(random() * 1e6)}.`;
      writeFileSync(join(dir, p), lines.join('\n'));
      return `description in ${p}`;
    },
    remove: () => {
      const all = inputs();
      if (all.length < 4) return undefined;
      const p = pick(all);
      removed.push({ path: p, text: readFileSync(join(dir, p), 'utf8') });
      rmSync(join(dir, p));
      return `removed ${p}`;
    },
    restore: () => {
      const r = removed.pop();
      if (!r) return undefined;
      writeFileSync(join(dir, r.path), r.text);
      return `restored ${r.path}`;
    },
    collide: () => {
      // a group whose first label another group has too: both get longer names in generated code
      const p = pick(inputs().filter((x) => x.startsWith('r0/')));
      const to = join(dir, `c${++copies}`, p.slice(3));
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(
        to,
        renameGroups(readFileSync(join(dir, p), 'utf8'), (g) => g.replace(/^([^.]+)/, `$1.c${copies}`), p),
      );
      return `copied ${p} under groups named like its own`;
    },
    copy: () => {
      const p = pick(inputs().filter((x) => x.startsWith('r0/')));
      const to = join(dir, `c${++copies}`, p.slice(3));
      mkdirSync(join(to, '..'), { recursive: true });
      writeFileSync(to, renameGroups(readFileSync(join(dir, p), 'utf8'), 10 + copies, p));
      return `copied ${p} under renamed groups`;
    },
  };
  const argv = (out: string, ...more: string[]) => ['generate', dir, '--out', out, ...more];
  assert.equal((await run(argv(join(tmp, 'inc')), tmp)).code, 0);
  for (let round = 0; round < 8; round++) {
    const done: string[] = [];
    for (let k = 0; k < 2; k++) {
      const what = edits[pick(Object.keys(edits))]();
      if (what !== undefined) done.push(what);
    }
    const before = readTree(join(tmp, 'inc'));
    const inc = await run(argv(join(tmp, 'inc')), tmp);
    const cold = join(tmp, `cold${round}`);
    const full = await run(argv(cold, '--no-cache'), tmp);
    const why = `seed ${seed}, round ${round}: ${done.join('; ')}`;
    assert.equal(inc.code, 0, `${why}\n${inc.stderr}`);
    assert.match(inc.stdout, /\(\d+ from the cache\)/, `${why}: the groups no edit touched come from the cache`);
    assert.equal(full.code, 0, `${why}\n${full.stderr}`);
    const after = readTree(join(tmp, 'inc'));
    assert.deepEqual(after, readTree(cold), why);
    // the summary counts what changed on disk
    const written = [...after].filter(([p, t]) => before.get(p) !== t).length;
    const gone = [...before.keys()].filter((p) => !after.has(p)).length;
    const counts = `${written} written, ${after.size - written} unchanged`.replace(/^0 written, /, '');
    assert.ok(inc.stdout.includes(counts), `${why}: ${inc.stdout}`);
    if (gone > 0) assert.ok(inc.stdout.includes(`removed ${gone} stale`), `${why}: ${inc.stdout}`);
    rmSync(cold, { recursive: true, force: true });
  }
});

test('nothing changed: every group from the cache, nothing written; an edited file or a lost cache is made good', async () => {
  const dir = inputsFolder('again', corpusFiles().slice(0, 8));
  const out = join(tmp, 'again-out');
  const first = await run(['generate', dir, '--out', out], tmp);
  assert.equal(first.code, 0, first.stderr);
  const tree = readTree(out);
  const again = await run(['generate', dir, '--out', out], tmp);
  assert.equal(again.code, 0, again.stderr);
  // the files that span groups (clientset.ts, the fake clientset, the informer factory) are made again
  assert.match(again.stdout, new RegExp(`: ${tree.size} unchanged \\(${tree.size - 3} from the cache\\)\\n$`));
  const edited = 'apis/cert-manager.io/v1/types.ts';
  writeFileSync(join(out, edited), `${tree.get(edited)}// mine\n`);
  const restored = await run(['generate', dir, '--out', out], tmp);
  assert.match(restored.stdout, /: 1 written, \d+ unchanged \(\d+ from the cache\)\n$/);
  assert.deepEqual(readTree(out), tree);
  rmSync(join(out, CACHE_DIR), { recursive: true });
  const cold = await run(['generate', dir, '--out', out], tmp);
  assert.match(cold.stdout, new RegExp(`: ${tree.size} unchanged\\n$`));
  assert.deepEqual(readTree(out), tree);
  assert.equal(
    readFileSync(join(out, CACHE_DIR, '.gitignore'), 'utf8')
      .trim()
      .split('\n')
      .pop(),
    '*',
  );
});

test('one CRD changed: only its groups are generated again, only the files that changed are written', async () => {
  const files = corpusFiles().slice(0, 8);
  const dir = inputsFolder('one-edit', files);
  const inputs = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.yaml'))
    .sort();
  const groupsOf = (p: string): string[] => [
    ...new Set([...readFileSync(join(dir, p), 'utf8').matchAll(/^\s*group: (\S+)\s*$/gm)].map((m) => m[1])),
  ];
  // an input whose groups no other input defines: its cluster of groups is itself alone
  const edited = inputs.find((p) => groupsOf(p).every((g) => inputs.every((q) => q === p || !groupsOf(q).includes(g))));
  assert.ok(edited, 'an input with groups of its own');
  const out = join(tmp, 'one-edit-out');
  assert.equal((await run(['generate', dir, '--out', out], tmp)).code, 0);
  const stamp = (p: string): string => {
    const st = statSync(join(out, p));
    return `${st.ino} ${st.mtimeMs}`;
  };
  const before = readTree(out);
  const stamps = new Map([...before.keys()].map((p) => [p, stamp(p)]));
  editOne(join(dir, edited), 0);
  const inc = await run(['generate', dir, '--out', out], tmp);
  assert.equal(inc.code, 0, inc.stderr);
  // generated again: the edited input's files (what a run of it alone writes: its groups' files and
  // the three that span groups); every other group's came from the cache
  const alone = join(tmp, 'one-edit-alone');
  assert.equal((await run(['generate', join(dir, edited), '--out', alone, '--no-cache'], tmp)).code, 0);
  const again = readTree(alone).size;
  const after = readTree(out);
  assert.ok(again < after.size / 2, `${again} of ${after.size}`);
  assert.match(inc.stdout, new RegExp(`: \\d+ written, \\d+ unchanged \\(${after.size - again} from the cache\\)\\n$`));
  // written: exactly the files whose contents changed; every other file left alone on disk
  const changed = [...after].filter(([p, t]) => before.get(p) !== t).map(([p]) => p);
  assert.ok(changed.length > 0 && changed.length < again, changed.join(', '));
  assert.ok(inc.stdout.includes(`: ${changed.length} written, ${after.size - changed.length} unchanged`), inc.stdout);
  for (const p of after.keys()) if (!changed.includes(p)) assert.equal(stamp(p), stamps.get(p), `${p} was rewritten`);
  // and the result is a cold run's, byte for byte
  const cold = join(tmp, 'one-edit-cold');
  assert.equal((await run(['generate', dir, '--out', cold, '--no-cache'], tmp)).code, 0);
  assert.deepEqual(after, readTree(cold));
  // the cache is written only where generate may use it: not with --no-cache, never by verify
  assert.equal(existsSync(join(cold, CACHE_DIR)), false, '--no-cache wrote a cache');
  assert.equal((await run(['verify', dir, '--out', cold], tmp)).code, 0);
  assert.equal(existsSync(join(cold, CACHE_DIR)), false, 'verify wrote a cache');
});

const BIN = join(ROOT, 'bin', 'crdgen.js');

/** Every entry under `dir`, dot entries too, → contents (`<dir>` for folders). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out.set(`${rel}${e.name}/`, '<dir>');
        walk(p, `${rel}${e.name}/`);
      } else out.set(`${rel}${e.name}`, readFileSync(p, 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}

test(
  'a heap too small for the run: a coded error, exit 1, the output folder as it was',
  { skip: !existsSync(join(ROOT, 'dist', 'cli-bundle', 'main.js')) && 'needs npm run build' },
  () => {
    const dir = inputsFolder('oom', corpusFiles());
    const project = join(tmp, 'oom-project');
    const out = join(project, 'gen');
    mkdirSync(project);
    // an output folder from an earlier run, with a file of the user's in it
    cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(project, 'crd.yaml'));
    const first = spawnSync(process.execPath, [BIN, 'generate', 'crd.yaml', '--out', 'gen'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(first.status, 0, first.stderr);
    writeFileSync(join(out, 'notes.md'), 'mine\n');
    const before = snapshot(project);
    const r = spawnSync(process.execPath, ['--max-old-space-size=20', BIN, 'generate', dir, '--out', 'gen'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(r.signal, null, `killed by ${r.signal}: ${r.stderr.slice(-500)}`);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^error CLI004 out of memory while .*: \d+ MB of the heap in use, its limit is \d+ MB$/m);
    assert.match(r.stderr, /hint: give node a larger heap, e\.g\. NODE_OPTIONS=--max-old-space-size=\d+ /);
    assert.match(r.stderr, /nothing was written/);
    assert.doesNotMatch(r.stderr, /FATAL|\n\s+at /);
    assert.deepEqual(snapshot(project), before, 'the output folder and the project as they were');
  },
);

test(
  'a heap the in-memory pipeline runs out of is enough: generate and verify of the corpus twice over',
  { skip: !existsSync(join(ROOT, 'dist', 'cli-bundle', 'main.js')) && 'needs npm run build' },
  () => {
    // the whole-model pipeline this replaced stopped with V8's fatal out-of-memory here (the corpus
    // twice over, 11 MB of YAML, needed more than 128 MB of old space); group by group, 64 MB do
    const dir = inputsFolder('bounded', corpusFiles(), 2);
    for (const workers of ['0', '1']) {
      const env = { ...process.env, NODE_OPTIONS: '', CRDGEN_WORKERS: workers };
      const out = join(tmp, `bounded-out-${workers}`);
      const g = spawnSync(process.execPath, ['--max-old-space-size=64', BIN, 'generate', dir, '--out', out], {
        encoding: 'utf8',
        env,
      });
      assert.equal(g.status, 0, `${g.signal ?? ''} ${g.stderr.slice(-800)}`);
      assert.match(g.stdout, /^generated \d+ files for 82 kinds in 38 groups: \d+ written\n$/);
      const v = spawnSync(process.execPath, ['--max-old-space-size=64', BIN, 'verify', dir, '--out', out], {
        encoding: 'utf8',
        env,
      });
      assert.equal(v.status, 0, `${v.signal ?? ''} ${v.stdout.slice(-400)} ${v.stderr.slice(-800)}`);
    }
    // in the main thread alone, a 64 MB heap keeps the checked CRDs of the first inputs as objects
    // (2 MB of YAML), those of the next ones packed (4 MB of buffers) and parses the others again;
    // the worker threads parse every input again: the same files
    const alone = readTree(join(tmp, 'bounded-out-0'));
    const workers = readTree(join(tmp, 'bounded-out-1'));
    assert.deepEqual([...alone.keys()].sort(), [...workers.keys()].sort());
    for (const [p, text] of workers) assert.equal(alone.get(p), text, p);
  },
);
