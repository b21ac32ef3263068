// RE2 patterns (CEL `matches`, `find`, `findAll`) compiled to JS RegExp once per pattern,
// through the RE2 → JS translation the OpenAPI `pattern` keyword uses too.
import { compileRe2 } from '../validation/re2.js';
import { CelEvalError } from './value.js';

const cache = new Map<string, RegExp>();

/**
 * Compiles (once) an RE2 pattern; a pattern Go's regexp refuses throws a CelEvalError with Go's
 * text (`error parsing regexp: missing closing ): \`(\``), as cel-go reports it.
 */
export function compileRegex(re2: string): RegExp {
  let r = cache.get(re2);
  if (r) return r;
  try {
    r = compileRe2(re2);
  } catch (e) {
    const go = /(missing closing \]: .*|invalid escape sequence: .*)$/.exec((e as Error).message)?.[1];
    throw new CelEvalError(go ? `error parsing regexp: ${go}` : goRegexpError(re2));
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(re2, r);
  return r;
}

/** Go's regexp error for a pattern our RE2 translation refuses (the common cases). */
export function goRegexpError(p: string): string {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      const close = p.indexOf(']', i + 2);
      if (close < 0) return `error parsing regexp: missing closing ]: \`${p.slice(i)}\``;
    } else if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) return `error parsing regexp: unexpected ): \`${p}\``;
      depth--;
    } else if ((c === '*' || c === '+' || c === '?') && (i === 0 || p[i - 1] === '(' || p[i - 1] === '|'))
      return `error parsing regexp: missing argument to repetition operator: \`${c}\``;
  }
  if (depth > 0) return `error parsing regexp: missing closing ): \`${p}\``;
  return `error parsing regexp: invalid or unsupported syntax: \`${p}\``;
}
