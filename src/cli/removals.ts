// What `generate` says before it removes generated files a user builds on: an operator whose
// kind no longer gets one (its generated files in controllers/<kind>/ all go), and the user's own
// files the removal leaves behind — the reconcile.ts beside the removed controller.ts, any file
// of theirs under --out that imports a removed file or names one (a path in a string, an entry of
// a kustomization.yaml: the operator's config/ moved from flat files to kustomize bases) — each
// with what to do, so that nothing the user owns is left breaking the build without a message.

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { PlanEntry } from '../emit/writer.js';
import { isGeneratedContents } from '../emit/header.js';
import { compareStrings } from '../model/order.js';

/** How the run was told which kinds get an operator, for the messages. */
export interface RemovalContext {
  /** The output folder, absolute. */
  out: string;
  /** Shows an absolute path to the user. */
  show: (abs: string) => string;
  /** The config file whose `controllers:` said it, as shown; undefined: the command line (--controller). */
  config?: string;
}

const OPERATOR_FILE = /^controllers\/([^/]+)\//;
const SOURCE_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const KUSTOMIZATION_FILE = /(^|\/)(kustomization\.ya?ml|Kustomization)$/;
const STRING_LITERAL = /(['"])((?:\.{1,2}\/)?[^'"\n]+\.ya?ml)\1/g;
/** The operator manifests of the flat config/ layout: now kustomize bases under config/. */
const FLAT_MANIFEST = /^controllers\/[^/]+\/config\/(crd|rbac|manager|metrics|webhooks)\.yaml$/;
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every file under `dir` (relative POSIX paths under `root`), dot entries and node_modules skipped. */
function filesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => compareStrings(a.name, b.name))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...filesUnder(root, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** `a, b and c`. */
function listOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The yaml package, loaded on first use: only a kustomization among the user's files needs it, and
 * every generate run imports this module.
 */
function yaml(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}

/**
 * The files of `removed` that the user's file `p` names: the entries of a kustomization
 * (resources, components, patches…), or in source, a YAML path in a string — relative to the
 * file (`./config/crd.yaml`) or ending in the path under --out (a path from the project's root).
 */
function namedFiles(p: string, text: string, removed: ReadonlySet<string>): string[] {
  const dir = posix.dirname(p);
  const found = new Set<string>();
  const relative = (entry: string): void => {
    const t = posix.normalize(posix.join(dir, entry));
    if (removed.has(t)) found.add(t);
  };
  if (KUSTOMIZATION_FILE.test(p)) {
    let docs: unknown[];
    try {
      docs = yaml()
        .parseAllDocuments(text)
        .map((d) => d.toJS() as unknown);
    } catch {
      return [];
    }
    for (const doc of docs) {
      if (doc === null || typeof doc !== 'object') continue;
      const k = doc as Record<string, unknown>;
      for (const key of ['resources', 'bases', 'components', 'crds', 'patchesStrategicMerge']) {
        const list = k[key];
        if (Array.isArray(list)) for (const e of list) if (typeof e === 'string') relative(e);
      }
      for (const key of ['patches', 'patchesJson6902']) {
        const list = k[key];
        if (Array.isArray(list))
          for (const e of list)
            if (e !== null && typeof e === 'object' && typeof (e as { path?: unknown }).path === 'string')
              relative((e as { path: string }).path);
      }
    }
  } else {
    for (const m of text.matchAll(STRING_LITERAL)) {
      const s = m[2];
      if (s.startsWith('./') || s.startsWith('../')) relative(s);
      else for (const r of removed) if (s === r || s.endsWith(`/${r}`)) found.add(r);
    }
  }
  return [...found].sort(compareStrings);
}

/** What to do with a file of the user's that names the flat config/ layout's manifests. */
function flatHint(p: string, stays: ReadonlySet<string>, ctx: RemovalContext): string {
  const operator = OPERATOR_FILE.exec(p)?.[1];
  const config = operator !== undefined ? `controllers/${operator}/config` : 'config';
  const show = (rel: string): string => ctx.show(join(ctx.out, ...rel.split('/')));
  const moved = "the operator's manifests are kustomize bases now (config/crd/, rbac/, manager/, …)";
  if (KUSTOMIZATION_FILE.test(p))
    return `${moved} and ${show(`${config}/default`)}/ builds them all (crdgen manifests): carry your changes (images, patches, resources) over to ${show(`${config}/default/kustomization.yaml`)}, then delete this file`;
  const crd = [...stays].find((s) => s.startsWith(`${config}/crd/`) && !KUSTOMIZATION_FILE.test(s));
  return crd !== undefined
    ? `${moved}: the CRD is ${show(crd)} now; change the path in this file`
    : `${moved}: change the paths in this file`;
}

/** The generated files an import specifier of `from` may mean (`./controller.js` → controller.ts, …). */
function importTargets(from: string, spec: string): string[] {
  const p = posix.normalize(posix.join(posix.dirname(from), spec));
  const stem = p.replace(/\.(js|mjs|cjs|ts|mts|cts)$/, '');
  return [p, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${stem}/index.ts`];
}

/**
 * Warnings for the removals in `plan`: `GEN007` per operator folder whose generated files all go,
 * `GEN008` per file of the user's the removal leaves behind (in such a folder, or importing a
 * removed file). Empty when the plan removes nothing.
 */
export function removalWarnings(plan: readonly PlanEntry[], ctx: RemovalContext): Diagnostic[] {
  const removed = new Set(plan.filter((p) => p.action === 'remove').map((p) => p.path));
  if (removed.size === 0) return [];
  const stays = new Set(plan.filter((p) => p.action !== 'remove').map((p) => p.path));
  const keepHint =
    ctx.config !== undefined
      ? `name the kind under controllers: in ${ctx.config} again to keep its operator`
      : 'give --controller <Kind> again to keep its operator';
  const why =
    ctx.config !== undefined
      ? `its kind is no longer under controllers: in ${ctx.config}`
      : 'no --controller names its kind';
  const out: Diagnostic[] = [];
  // operators that go as a whole: every generated file of controllers/<kind>/ is removed, none stays
  const folders = new Map<string, string[]>();
  for (const p of removed) {
    const m = OPERATOR_FILE.exec(p);
    if (m) folders.set(m[1], [...(folders.get(m[1]) ?? []), p]);
  }
  const goneFolders = [...folders.keys()].filter((k) => ![...stays].some((p) => p.startsWith(`controllers/${k}/`)));
  for (const k of goneFolders.sort(compareStrings)) {
    const files = folders
      .get(k)!
      .map((p) => p.slice(`controllers/${k}/`.length))
      .sort(compareStrings);
    out.push({
      severity: 'warning',
      code: 'GEN007',
      file: `${ctx.show(join(ctx.out, 'controllers', k))}/`,
      message: `removing the generated operator (${files.length} files: ${files.join(', ')}): ${why}`,
      hint: keepHint,
    });
  }
  // the user's files left behind
  const left = new Map<string, { reason: string; operator: boolean; named?: boolean; flat?: boolean }>();
  for (const k of goneFolders)
    for (const p of filesUnder(ctx.out, `controllers/${k}`))
      if (!removed.has(p)) left.set(p, { reason: 'the generated operator around it is removed', operator: true });
  for (const p of filesUnder(ctx.out, '')) {
    if (removed.has(p) || !(SOURCE_FILE.test(p) || KUSTOMIZATION_FILE.test(p))) continue;
    let text: string;
    try {
      text = readFileSync(join(ctx.out, p), 'utf8');
    } catch {
      continue;
    }
    if (isGeneratedContents(text)) continue;
    let imports = false;
    if (SOURCE_FILE.test(p))
      for (const m of text.matchAll(RELATIVE_IMPORT)) {
        const gone = importTargets(p, m[1]).find((t) => removed.has(t));
        if (gone !== undefined) {
          left.set(p, { reason: `it imports ${m[1]}, which this run removes`, operator: OPERATOR_FILE.test(gone) });
          imports = true;
          break;
        }
      }
    // a file that only names removed files (read at run or build time): said unless the whole operator goes
    if (imports || left.has(p)) continue;
    const named = namedFiles(p, text, removed);
    if (named.length > 0)
      left.set(p, {
        reason: `it names ${listOf(named.map((t) => posix.relative(posix.dirname(p), t)))}, which this run removes`,
        operator: named.some((t) => OPERATOR_FILE.test(t)),
        named: true,
        flat: named.some((t) => FLAT_MANIFEST.test(t)),
      });
  }
  for (const [p, { reason, operator, named, flat }] of [...left].sort((a, b) => compareStrings(a[0], b[0]))) {
    const folder = goneFolders.includes(OPERATOR_FILE.exec(p)?.[1] ?? '') ? OPERATOR_FILE.exec(p) : null;
    out.push({
      severity: 'warning',
      code: 'GEN008',
      file: ctx.show(join(ctx.out, ...p.split('/'))),
      message: `this file is yours and stays: ${reason}${SOURCE_FILE.test(p) && named !== true ? ', so the project no longer compiles with it' : ''}`,
      hint: folder
        ? `delete it (and ${ctx.show(join(ctx.out, 'controllers', folder[1]))}/) if the kind needs no operator, or ${keepHint}`
        : flat
          ? flatHint(p, stays, ctx)
          : operator
            ? `change or delete it, or ${keepHint}`
            : 'change or delete it: the inputs no longer generate what it imports',
    });
  }
  return out;
}
