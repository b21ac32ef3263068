// RE2 patterns (CEL `matches`, `find`, `findAll`) compiled to JS RegExp once per pattern.
// RE2 and ECMAScript agree on the syntax the corpus uses; RE2-only syntax that JS rejects
// (e.g. `(?P<name>…)`, `\z`, inline `(?i)` flags) is rewritten where a JS equivalent exists.

const cache = new Map<string, RegExp>();

function translate(re2: string): { source: string; flags: string } {
  let source = re2;
  let flags = 'u';
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    for (const f of lead[1]!) if (f === 'i' || f === 'm' || f === 's') flags += f;
    source = source.slice(lead[0].length);
  }
  source = source.replace(/\(\?P</g, '(?<').replace(/\\z/g, '$(?![\\s\\S])').replace(/\\A/g, '^');
  return { source, flags };
}

/** Compiles (once) an RE2 pattern; throws a clear error when it cannot be expressed in JS. */
export function compileRegex(re2: string): RegExp {
  let r = cache.get(re2);
  if (r) return r;
  const { source, flags } = translate(re2);
  try {
    r = new RegExp(source, flags);
  } catch {
    try {
      r = new RegExp(source, flags.replace('u', ''));
    } catch (e) {
      throw new Error(`invalid regular expression ${JSON.stringify(re2)}: ${(e as Error).message}`);
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(re2, r);
  return r;
}

/** The `re2` engine hook for @bufbuild/cel's environment. */
export const re2Engine = { compile: (pattern: string) => compileRegex(pattern) };
