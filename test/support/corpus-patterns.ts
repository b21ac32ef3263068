// Every regular expression the corpus CRDs ship: OpenAPI `pattern` values and the string literals
// given to CEL `matches()`, `find()` and `findAll()` in their x-kubernetes-validations rules
// (../shared/corpus/crds), each once, with how often it occurs. Used by the RE2 engine's corpus
// test and bench/regex.ts.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseCel, type Expr } from '../../src/runtime/cel/syntax.js';
import { CORPUS, yamlFiles } from '../golden/support.js';

export interface CorpusPattern {
  pattern: string;
  /** Where it is used: `pattern` (OpenAPI) or `cel` (an argument of matches/find/findAll). */
  use: 'pattern' | 'cel';
  occurrences: number;
}

function celRegexes(e: Expr, out: string[]): void {
  if (e.k === 'call' && ['matches', 'find', 'findAll'].includes(e.fn)) {
    const lit = e.target && e.fn === 'matches' ? e.args[0] : e.target ? e.args[0] : e.args[1];
    if (lit?.k === 'lit' && typeof lit.v === 'string') out.push(lit.v);
  }
  const isExpr = (x: unknown): x is Expr =>
    typeof x === 'object' && x !== null && (x as { k?: unknown }).k !== undefined;
  for (const v of Object.values(e)) for (const x of Array.isArray(v) ? v : [v]) if (isExpr(x)) celRegexes(x, out);
}

/** The corpus' patterns, in first-seen order (files sorted). */
export function corpusPatterns(): CorpusPattern[] {
  const found = new Map<string, CorpusPattern>();
  const add = (pattern: string, use: CorpusPattern['use']) => {
    const key = `${use}\u0000${pattern}`;
    const p = found.get(key);
    if (p) p.occurrences++;
    else found.set(key, { pattern, use, occurrences: 1 });
  };
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (typeof x !== 'object' || x === null) return;
    for (const [k, v] of Object.entries(x)) {
      if (k === 'pattern' && typeof v === 'string') add(v, 'pattern');
      if (k === 'x-kubernetes-validations' && Array.isArray(v))
        for (const r of v as { rule?: unknown; messageExpression?: unknown }[])
          for (const src of [r.rule, r.messageExpression])
            if (typeof src === 'string' && /\b(matches|find|findAll)\(/.test(src)) {
              const out: string[] = [];
              celRegexes(parseCel(src), out);
              out.forEach((p) => add(p, 'cel'));
            }
      walk(v);
    }
  };
  for (const f of yamlFiles(CORPUS)) for (const d of parseAllDocuments(readFileSync(f, 'utf8'))) walk(d.toJS());
  return [...found.values()];
}
