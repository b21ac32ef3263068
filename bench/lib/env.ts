// Where things are: the repository, the built CLI, the corpus, and the peer tools that
// bench/package.json installs (loaded by name at run time, so the project's typecheck does
// not need them installed).
import { cpSync, existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root. */
export const REPO = resolve(import.meta.dirname, '..', '..');
/** The bench folder (its own package.json and node_modules). */
export const BENCH = join(REPO, 'bench');
/**
 * The package under test: a snapshot of the built package (dist/, bin/, templates/, schema/,
 * package.json) that `npm run bench` takes before it starts, so that another engineer's
 * `npm run build` in the same tree cannot swap modules under a running benchmark; the
 * repository itself when a benchmark is run directly.
 */
export const PKG = process.env.CRDGEN_BENCH_PKG ?? REPO;
/** The CLI as a user runs it. */
export const CRDGEN_BIN = join(PKG, 'bin', 'crdgen.js');
/** The shared CRD corpus (30 files). */
export const CORPUS = resolve(REPO, '..', 'shared', 'corpus', 'crds');
/** The DatabaseManager CRD. */
export const DM_CRD = join(REPO, 'fixtures', 'databasemanager', 'crd.yaml');

/** Throws a clear error unless `npm run build` has produced dist/. */
export function requireBuild(): void {
  if (!existsSync(join(PKG, 'dist', 'cli-bundle', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
}

/** Imports a module from the built package (dist/), as a user's code would. */
export async function importDist<T>(subpath: string): Promise<T> {
  requireBuild();
  return (await import(join(PKG, 'dist', subpath))) as T;
}

/** Imports a peer tool installed under bench/node_modules; a clear error when missing. */
export async function importPeer<T>(name: string): Promise<T> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as T;
  } catch (e) {
    throw new Error(`peer "${name}" is not installed: run \`npm --prefix bench ci\` (${(e as Error).message})`);
  }
}

/** The path of a peer tool's executable in bench/node_modules/.bin. */
export function peerBin(name: string): string {
  const p = join(BENCH, 'node_modules', '.bin', name);
  if (!existsSync(p)) throw new Error(`peer CLI "${name}" is not installed: run \`npm --prefix bench ci\``);
  return p;
}

/**
 * Copies the built package to a temporary folder (node_modules linked, not copied) and returns
 * it; the caller passes it to the benchmarks as CRDGEN_BENCH_PKG and removes it afterwards.
 */
export function snapshotPackage(): string {
  requireBuild();
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-bench-pkg-'));
  for (const part of ['dist', 'bin', 'templates', 'schema', 'package.json']) {
    if (existsSync(join(REPO, part))) cpSync(join(REPO, part), join(dir, part), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}
