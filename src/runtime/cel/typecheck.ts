// Kubernetes' escaping of property names for CEL (k8s.io/apiserver pkg/cel/escaping.go): a
// reserved word `if` is `__if__`; `__`, `.`, `-`, `/` become `__underscores__`, `__dot__`,
// `__dash__`, `__slash__`; a name with other characters is not reachable from CEL.

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** The apiserver's CEL escaping of a property name (`foo-bar` → `foo__dash__bar`); undefined when unreachable. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[_a-zA-Z][-._a-zA-Z0-9/]*$/.test(name)) return undefined;
  return name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
}

/** Reverses {@link escapePropertyName}. */
export function unescapePropertyName(name: string): string {
  const kw = /^__([a-z]+)__$/.exec(name);
  if (kw && RESERVED.has(kw[1])) return kw[1];
  return name.replace(
    /__(underscores|dot|dash|slash)__/g,
    (_, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w]!,
  );
}
