// generate's cache: what a run read and wrote, so that the next run of the same target reads and
// hashes its inputs and redoes only what depends on the ones that changed. It lives in the output
// folder, `<out>/.crdgen-cache/` (with a .gitignore of its own: never committed; the stale scan and
// verify skip dot folders), and is safe to delete at any time: the next run is a cold one.
//
// Content-addressed: an input's checks are kept under its name and the hash of its bytes; a
// cluster of groups (the inputs that define them) keeps the output paths it produced under the
// hash of everything its files depend on: crdgen's own code, the run's options, its groups' names
// in generated code (what the files of one group read of the others: a group named like another
// changes them), and its inputs' names and hashes. Clusters with operators are always generated
// (their files read other groups' kinds and the user's reconcile.ts). A cluster whose key is known and whose files are on disk as the last run left
// them (size, times and inode as recorded) is not generated again. The output of a run that uses
// the cache is byte for byte the output of a run that does not.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Kind } from '../model/types.js';
import type { RenamedKind } from '../input/crd/index.js';
import type { FileStamp } from '../emit/output.js';
import { CACHE_DIR } from './cache-dir.js';

export { CACHE_DIR };

/** Format of the index file; a different one is ignored (a cold run). */
const FORMAT = 2;

/** What the checks of one input found: its diagnostics, its CRDs' groups, its served kinds (no schemas). */
export interface ScanRecord {
  diagnostics: Diagnostic[];
  groups: string[];
  kinds: { group: string; version: string; kind: Kind }[];
}

/** What one cluster of groups produced: its output paths, and the warnings building it gave (said again). */
export interface ClusterRecord {
  files: { path: string; userOwned?: boolean }[];
  renamed?: RenamedKind[];
}

interface Index {
  format: number;
  /** The key of the run's code and options: the rest is valid only under it. */
  key: string;
  scans: Record<string, ScanRecord>;
  clusters: Record<string, ClusterRecord>;
  stamps: Record<string, FileStamp>;
}

/** SHA-256 of `data`, hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** One target's cache, opened for a run with key `key`; see the file comment. */
export class GenerationCache {
  private readonly scans = new Map<string, ScanRecord>();
  private readonly clusters = new Map<string, ClusterRecord>();
  private readonly used = { scans: new Set<string>(), clusters: new Set<string>() };
  /** The stamps of the files the last run left (path → stamp). */
  readonly stamps: ReadonlyMap<string, FileStamp>;

  private constructor(
    private readonly dir: string,
    private readonly key: string,
    index: Index | undefined,
  ) {
    const stamps = new Map<string, FileStamp>();
    if (index && index.format === FORMAT && index.key === key) {
      for (const [k, v] of Object.entries(index.scans)) this.scans.set(k, v);
      for (const [k, v] of Object.entries(index.clusters)) this.clusters.set(k, v);
    }
    // the stamps hold whatever the key: they only say which files the last run wrote
    if (index && index.format === FORMAT) for (const [k, v] of Object.entries(index.stamps)) stamps.set(k, v);
    this.stamps = stamps;
  }

  /** Opens the cache of the output folder `out` for a run whose code and options hash to `key`. */
  static open(out: string, key: string): GenerationCache {
    const dir = join(out, CACHE_DIR);
    let index: Index | undefined;
    try {
      index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Index;
      if (typeof index !== 'object' || index === null || !index.scans || !index.clusters || !index.stamps)
        index = undefined;
    } catch {
      index = undefined; // none yet, or unreadable: a cold run
    }
    return new GenerationCache(dir, key, index);
  }

  /** The key of an input's checks: its name as shown, how it was found, and its bytes' hash. */
  static scanKey(file: string, fromDirectory: boolean, hash: string): string {
    return `${hash} ${fromDirectory ? 'd' : 'f'} ${file}`;
  }

  scan(key: string): ScanRecord | undefined {
    const r = this.scans.get(key);
    if (r) this.used.scans.add(key);
    return r;
  }

  putScan(key: string, record: ScanRecord): void {
    this.scans.set(key, record);
    this.used.scans.add(key);
  }

  cluster(key: string): ClusterRecord | undefined {
    const r = this.clusters.get(key);
    if (r) this.used.clusters.add(key);
    return r;
  }

  putCluster(key: string, record: ClusterRecord): void {
    this.clusters.set(key, record);
    this.used.clusters.add(key);
  }

  /**
   * Writes the index after a successful run: the records this run used (older ones go) and the
   * stamps of its generated files as they are now (`outFiles`: never the user's own, such as a
   * reconcile.ts written once — a stamp says a file is crdgen's, and a stale one is removed unread). Best effort: a cache that cannot be written
   * makes the next run a cold one, nothing else.
   */
  save(outFiles: readonly string[], outDir: string): void {
    const stamps: Record<string, FileStamp> = {};
    for (const p of outFiles) {
      try {
        const st = statSync(join(outDir, ...p.split('/')), { bigint: false });
        stamps[p] = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
      } catch {
        // gone (a removal): not recorded
      }
    }
    const keep = <T>(m: Map<string, T>, used: Set<string>): Record<string, T> => {
      const o: Record<string, T> = {};
      for (const k of [...used].sort()) o[k] = m.get(k)!;
      return o;
    };
    const index: Index = {
      format: FORMAT,
      key: this.key,
      scans: keep(this.scans, this.used.scans),
      clusters: keep(this.clusters, this.used.clusters),
      stamps,
    };
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(join(this.dir, '.gitignore'), '# crdgen generate cache (safe to delete)\n*\n');
      const tmp = join(this.dir, `.index.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(index));
      renameSync(tmp, join(this.dir, 'index.json'));
    } catch {
      attemptRemove(join(this.dir, `.index.${process.pid}.tmp`));
    }
  }
}

function attemptRemove(p: string): void {
  try {
    rmSync(p, { force: true });
  } catch {
    // best effort
  }
}

let identity: string | undefined;

/**
 * What identifies the code that generates: the package's version and the bytes of the running
 * build (the CLI bundle's folder; from sources, every file under src/), its templates and
 * starters, and the versions of its installed dependencies. Computed once per process.
 */
export function codeIdentity(): string {
  if (identity !== undefined) return identity;
  const hash = createHash('sha256');
  const here = dirname(fileURLToPath(import.meta.url));
  let root = here;
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
        dependencies?: Record<string, string>;
      };
      if (pkg.name === 'crdgen') {
        hash.update(`crdgen ${pkg.version ?? ''}\n`);
        for (const dep of Object.keys(pkg.dependencies ?? {}).sort())
          hash.update(`${dep} ${installedVersion(root, dep)}\n`);
        break;
      }
    } catch {
      // not the package root yet
    }
    root = dirname(root);
  }
  const code = basename(here) === 'cli-bundle' ? here : dirname(here);
  for (const dir of [code, join(root, 'templates'), join(root, 'starters')]) hashTree(hash, dir, '');
  identity = hash.digest('hex');
  return identity;
}

function installedVersion(root: string, dep: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'node_modules', dep, 'package.json'), 'utf8')) as { version?: string })
      .version!;
  } catch {
    return '?';
  }
}

function hashTree(hash: ReturnType<typeof createHash>, dir: string, rel: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) hashTree(hash, p, `${rel}${e.name}/`);
    else if (e.isFile()) {
      hash.update(`${rel}${e.name}\n`);
      hash.update(readFileSync(p));
    }
  }
}
