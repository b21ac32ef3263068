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
