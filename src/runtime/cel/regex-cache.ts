// RE2 patterns (CEL `matches`, `find`, `findAll`) compiled to JS RegExp once per pattern,
// through the RE2 → JS translation the OpenAPI `pattern` keyword uses too.
import { compileRe2 } from '../validation/re2.js';

const cache = new Map<string, RegExp>();

/** Compiles (once) an RE2 pattern; throws a clear error when it cannot be expressed in JS. */
export function compileRegex(re2: string): RegExp {
  let r = cache.get(re2);
  if (r) return r;
  try {
    r = compileRe2(re2);
  } catch (e) {
    throw new Error(`invalid regular expression ${JSON.stringify(re2)}: ${(e as Error).message}`);
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(re2, r);
  return r;
}
