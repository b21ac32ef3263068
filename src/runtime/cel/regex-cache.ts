// RE2 patterns of CEL `matches`, `find` and `findAll`, compiled as Go's regexp compiles them (the
// engine the OpenAPI `pattern` keyword uses too, linear-time), with cel-go's error for a pattern
// Go refuses.
import { compileRe2, Re2SyntaxError, type Re2 } from '../validation/re2.js';
import { CelEvalError } from './value.js';

/**
 * Compiles (once: the engine caches) an RE2 pattern; a pattern Go's regexp refuses throws a
 * CelEvalError with Go's text (`error parsing regexp: missing closing ): \`(\``), as cel-go reports it.
 */
export function compileRegex(re2: string): Re2 {
  try {
    return compileRe2(re2);
  } catch (e) {
    if (e instanceof Re2SyntaxError) throw new CelEvalError(e.message);
    throw e;
  }
}
