// The import graph of a set of TypeScript sources, read with the TypeScript compiler's parser
// (static, `export … from`, `import type`, `import()` calls and `import('…')` types), and the
// check of its edges against the layers of rules.ts.

import ts from 'typescript';
import { posix } from 'node:path';
import type { Layer } from './rules.js';

export interface ImportEdge {
  /** The importing file, POSIX, relative to the repository root. */
  from: string;
  /** 1-based position of the module specifier. */
  line: number;
  col: number;
  specifier: string;
  /** The file a relative specifier names (undefined for packages and unresolved paths). */
  target?: string;
  /** The npm package a bare specifier names (`yaml`, `@scope/name`); undefined for `node:` modules. */
  pkg?: string;
}

/** Every import of `path`'s source `text`. `exists` says whether a repository path is a file. */
export function importsOf(path: string, text: string, exists: (p: string) => boolean): ImportEdge[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: ImportEdge[] = [];
  const add = (lit: ts.Node) => {
    if (!ts.isStringLiteralLike(lit)) return;
    const { line, character } = sf.getLineAndCharacterOfPosition(lit.getStart(sf));
    const edge: ImportEdge = { from: path, line: line + 1, col: character + 1, specifier: lit.text };
    if (lit.text.startsWith('.')) {
      const target = resolveRelative(path, lit.text, exists);
      if (target !== undefined) edge.target = target;
    } else if (!lit.text.startsWith('node:')) {
      const parts = lit.text.split('/');
      edge.pkg = lit.text.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    }
    out.push(edge);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0
    )
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (or `.d.ts`, `.tsx`, a folder's `index.ts`) when that file exists. */
function resolveRelative(from: string, spec: string, exists: (p: string) => boolean): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  const stem = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
  const candidates = /\.(js|mjs|cjs|jsx)$/.test(base)
    ? [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, base]
    : [base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find(exists);
}

/** The layer a path belongs to: the longest matching prefix (or exact file). */
export function layerOf(path: string, layers: readonly Layer[]): Layer | undefined {
  let best: Layer | undefined;
  let bestLen = -1;
  for (const l of layers) {
    for (const p of l.paths) {
      const hit = p.endsWith('/') ? path.startsWith(p) : path === p;
      if (hit && p.length > bestLen) {
        best = l;
        bestLen = p.length;
      }
    }
  }
  return best;
}

export interface Violation {
  edge: ImportEdge;
  message: string;
}

/**
 * The imports that break a rule. `scope` is the folder the rules govern (`src/`): a file in it
 * outside every layer, a relative import that resolves to no file, an import of a layer (or a file
 * of one) that is not allowed, or a forbidden package, each with the rule in words.
 */
export function checkImports(
  edges: readonly ImportEdge[],
  layers: readonly Layer[],
  hints: Readonly<Record<string, string>> = {},
  scope = 'src/',
): Violation[] {
  const out: Violation[] = [];
  const where = (e: ImportEdge) => `${e.from}:${e.line}:${e.col}`;
  const rule = (l: Layer) =>
    `${l.name} (${l.paths.join(', ')}: ${l.role}) may import ${l.may.length ? l.may.join(', ') : 'no other layer'}`;
  const noLayer = new Set<string>();
  for (const e of edges) {
    const from = layerOf(e.from, layers);
    if (!from) {
      if (!noLayer.has(e.from))
        out.push({
          edge: e,
          message: `${e.from}: belongs to no layer of test/architecture/rules.ts; give its folder a rule`,
        });
      noLayer.add(e.from);
      continue;
    }
    if (e.pkg !== undefined) {
      if (from.forbiddenPackages?.includes(e.pkg)) {
        out.push({
          edge: e,
          message: `${where(e)}: imports ${e.specifier}, a package only the generator uses; ${from.name} (${from.role}) must not load ${from.forbiddenPackages.join(', ')}`,
        });
      }
      continue;
    }
    if (!e.specifier.startsWith('.')) continue; // node: built-ins
    if (e.target === undefined) {
      out.push({ edge: e, message: `${where(e)}: ${JSON.stringify(e.specifier)} resolves to no file` });
      continue;
    }
    if (!e.target.startsWith(scope)) continue;
    const to = layerOf(e.target, layers);
    if (to === from) continue;
    if (to && from.may.includes(to.name)) continue;
    if (from.files?.some((f) => f.path === e.target)) continue;
    const hint = to ? hints[`${from.name}→${to.name}`] : undefined;
    out.push({
      edge: e,
      message: `${where(e)}: imports ${e.target}${to ? ` (${to.name})` : ' (no layer)'}, which breaks the rule "${rule(from)}"${hint ? `; ${hint}` : ''}`,
    });
  }
  return out;
}

/**
 * The cycles between the folders of `root` (`src/runtime/`): a file directly in `root` counts as a
 * folder of its own; the `entryPoints` (the package's, which assemble every folder) belong to no
 * folder, their imports are not counted, and a file of `root` that imports one is reported. Each
 * cycle is reported once, as the imports that close it, one per step.
 */
export function folderCycles(edges: readonly ImportEdge[], root: string, entryPoints: readonly string[]): string[] {
  const entries = new Set(entryPoints);
  const folderOf = (p: string) => p.slice(root.length).split('/')[0];
  const out: string[] = [];
  /** folder → folder it imports → the first import that does */
  const next = new Map<string, Map<string, ImportEdge>>();
  for (const e of edges) {
    if (!e.from.startsWith(root) || entries.has(e.from) || !e.target?.startsWith(root)) continue;
    if (entries.has(e.target)) {
      out.push(
        `${e.from}:${e.line}:${e.col}: imports the package's entry point ${e.target}, which imports every folder of ${root}; import the module that defines what it needs`,
      );
      continue;
    }
    const [a, b] = [folderOf(e.from), folderOf(e.target)];
    if (a === b) continue;
    const m = next.get(a) ?? new Map<string, ImportEdge>();
    if (!m.has(b)) m.set(b, e);
    next.set(a, m);
  }
  // Tarjan's strongly connected components; a component of more than one folder holds a cycle
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(next.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        c.push(w);
        if (w === v) break;
      }
      if (c.length > 1) components.push(c.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  /** The shortest cycle through `start` inside `inside` (folders from `start` back to it), if any. */
  const cycleThrough = (start: string, inside: ReadonlySet<string>): string[] | undefined => {
    const via = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length && !via.has(start); i++) {
      for (const w of [...(next.get(queue[i])?.keys() ?? [])].sort()) {
        if (!inside.has(w) || via.has(w)) continue;
        via.set(w, queue[i]);
        queue.push(w);
      }
    }
    if (!via.has(start)) return undefined;
    const path = [start];
    for (let v = via.get(start)!; v !== start; v = via.get(v)!) path.unshift(v);
    path.unshift(start);
    return path;
  };
  for (const c of components) {
    // the shortest cycle of the component (the first folder's, alphabetically, among equals)
    const inside = new Set(c);
    let path: string[] = [];
    for (const start of c) {
      const p = cycleThrough(start, inside);
      if (p && (path.length === 0 || p.length < path.length)) path = p;
    }
    const steps = path.slice(1).map((b, i) => {
      const e = next.get(path[i])!.get(b)!;
      return `${path[i]} → ${b} (${e.from}:${e.line}:${e.col})`;
    });
    out.push(
      `folders of ${root} import each other: ${steps.join(', ')}${c.length > path.length - 1 ? `; the cycle takes in ${c.join(', ')}` : ''}`,
    );
  }
  return out;
}
