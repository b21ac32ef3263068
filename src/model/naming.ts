// Naming helpers: the only place identifiers, property keys and path segments
// are made from model strings. Emitters and templates call these (templates via
// the `public`, `private`, `plural`, `ident`, `propKey` helpers); nothing else
// invents a name.

/**
 * Words that cannot be used as a binding name (variable, function, class,
 * interface, type alias) in strict-mode ECMAScript modules or TypeScript, plus
 * the TypeScript type keywords that cannot name a type (`string`, `number`, …).
 * Property keys do not need this list: `{ default: 1 }` is fine.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  // ECMAScript reserved words
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  // strict mode and module code
  'await',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
  'arguments',
  'eval',
  // TypeScript type names and contextual keywords that cannot name a type
  'any',
  'bigint',
  'boolean',
  'never',
  'number',
  'object',
  'string',
  'symbol',
  'undefined',
  'unknown',
  'type',
  'as',
  'asserts',
  'infer',
  'is',
  'keyof',
  'readonly',
  'unique',
  'declare',
  'namespace',
  'module',
  'abstract',
  'global',
  'require',
  'satisfies',
  'accessor',
  'out',
  // globals that generated code relies on and must not shadow
  'Object',
  'Array',
  'Record',
  'Partial',
  'Readonly',
  'Date',
  'Error',
  'JSON',
  'Map',
  'Set',
  'Promise',
  'Symbol',
  'String',
  'Number',
  'Boolean',
]);

const IDENTIFIER_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `s` is an ASCII IdentifierName (it may still be a reserved word). */
export function isIdentifierName(s: string): boolean {
  return IDENTIFIER_RE.test(s);
}

/** True when `s` is a reserved word (see {@link RESERVED_WORDS}). */
export function isReservedWord(s: string): boolean {
  return RESERVED_WORDS.has(s);
}

/**
 * A binding-safe identifier for `s`: characters outside `[A-Za-z0-9_$]` become
 * `_`, a leading digit gets a `_` prefix, and a reserved word gets a `_` suffix
 * (`default` → `default_`, `type` → `type_`). Never returns an empty string.
 */
export function safeIdentifier(s: string): string {
  let id = s.replace(/[^A-Za-z0-9_$]/g, '_');
  if (id === '') id = '_';
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (isReservedWord(id)) id = `${id}_`;
  return id;
}

/** Splits a name into words at separators and at lower→upper / acronym→word boundaries. */
export function splitWords(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * UpperCamelCase name for a type or exported symbol, keeping the input's inner
 * capitals: `DatabaseManager` → `DatabaseManager`, `deploymentName` →
 * `DeploymentName`, `x-kubernetes-foo` → `XKubernetesFoo`, `9lives` → `_9lives`.
 * The result is always a valid, non-reserved identifier.
 */
export function publicName(s: string): string {
  const parts = s.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const joined = parts.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return safeIdentifier(joined === '' ? '_' : joined);
}

/**
 * lowerCamelCase name for a local, parameter or method, lower-casing a leading
 * acronym as a whole: `DatabaseManager` → `databaseManager`, `HTTPRoute` →
 * `httpRoute`, `URL` → `url`. Reserved results get a `_` suffix (`Default` → `default_`).
 */
export function privateName(s: string): string {
  const pub = publicName(s).replace(/^_+/, '');
  if (pub === '') return '_';
  const m = /^([A-Z]+)([A-Z][a-z].*)$/.exec(pub);
  let out: string;
  if (m) out = m[1].toLowerCase() + m[2];
  else if (/^[A-Z]+$/.test(pub)) out = pub.toLowerCase();
  else {
    const lead = /^[A-Z]+/.exec(pub);
    const n = lead ? lead[0].length : 0;
    out =
      n > 1 && /[0-9]/.test(pub[n] ?? '')
        ? pub.slice(0, n).toLowerCase() + pub.slice(n)
        : pub[0].toLowerCase() + pub.slice(1);
  }
  return safeIdentifier(out);
}

/**
 * English plural of a kind-like name, as gengo's plural namer does:
 * `DatabaseManager` → `DatabaseManagers`, `Policy` → `Policies`, `Ingress` →
 * `Ingresses`, `Endpoints` → `Endpoints`. Case of the input is kept.
 */
export function pluralName(s: string): string {
  if (s === '') return s;
  if (/(Endpoints|endpoints|Data|data|Info|info)$/.test(s)) return s;
  if (/(s|x|z|ch|sh)$/i.test(s)) return `${s}es`;
  if (/[^aeiouAEIOU]y$/.test(s)) return `${s.slice(0, -1)}ies`;
  if (/[^aeiouAEIOU]Y$/.test(s)) return `${s.slice(0, -1)}IES`;
  return `${s}s`;
}

/**
 * Irregular English plurals for kind names (gengo's namer handles the regular ones),
 * used when the input gives no plural of its own (TypeScript input) and as a check.
 */
export const IRREGULAR_PLURALS: Readonly<Record<string, string>> = {
  Endpoints: 'Endpoints',
  Person: 'People',
  Child: 'Children',
  Index: 'Indices',
  Matrix: 'Matrices',
  Schema: 'Schemas',
  Data: 'Data',
  Status: 'Statuses',
};

/**
 * Property key as written in an interface or object literal: bare when it is
 * an IdentifierName (`replicas`, `default`, `$ref`, `é`), quoted otherwise (`"x-foo"`,
 * `"a.b"`), as prettier's `quoteProps: "as-needed"` writes keys. Quoting by {@link tsString}.
 */
export function propertyKey(name: string): string {
  return isIdentifierName(name) || ES5_IDENTIFIER_RE.test(name) ? name : tsString(name);
}

/** IdentifierName with Unicode letters: prettier writes such keys without quotes. */
const ES5_IDENTIFIER_RE = /^[$_\p{L}\p{Nl}][$_\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;

/**
 * Property access expression on `obj`: `obj.replicas`, `obj['x-foo']`.
 * `__proto__` is always bracketed; note that *assigning* `o['__proto__']` still
 * sets the prototype, so writers of such keys must use `Object.defineProperty`.
 */
export function propertyAccess(obj: string, name: string): string {
  return isIdentifierName(name) && name !== '__proto__' ? `${obj}.${name}` : `${obj}[${tsString(name)}]`;
}

/**
 * A TypeScript string literal for any string, quoted as prettier quotes it: double quotes,
 * unless the text holds more double than single quotes. Backslash, the chosen quote, line
 * terminators (including U+2028/U+2029), other control characters and lone surrogates are
 * escaped, so the result is always one valid token (and one prettier leaves as it is).
 */
export function tsString(s: string): string {
  let doubles = 0;
  let singles = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) doubles++;
    else if (c === 0x27) singles++;
  }
  const q = doubles > singles ? "'" : '"';
  let out = q;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (
      c < 0x20 ||
      c === 0x7f ||
      c === 0x2028 ||
      c === 0x2029 ||
      (c >= 0xd800 && c <= 0xdfff && !isPairedSurrogate(s, i))
    ) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      out += ch + s[i + 1];
      i++;
    } else out += ch;
  }
  return out + q;
}

/**
 * A number as prettier prints a numeric literal: JavaScript's shortest form with the `+` of
 * a positive exponent dropped (`1e+21` → `1e21`); `-0` stays `-0`.
 */
export function numberLiteral(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`numberLiteral: non-finite number ${n}`);
  return Object.is(n, -0) ? '-0' : String(n).replace('e+', 'e');
}

function isPairedSurrogate(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff;
  }
  return false; // a low surrogate reached here is unpaired (pairs are consumed at the high half)
}

/** DNS-1123 label: lower-case alphanumerics and `-`, starting and ending alphanumeric, ≤ 63. */
export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
}

/** DNS-1123 subdomain: dot-separated DNS-1123 labels, ≤ 253 characters. */
export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}

/** DNS-1035 label: like DNS-1123 but starting with a letter (CRD version names). */
export function isDns1035Label(s: string): boolean {
  return s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);
}

/**
 * True when `s` may be used as one segment of an output path: non-empty, not
 * `.`/`..`, no `/`, `\`, NUL or other control characters, no `:` (drive
 * letters, NTFS streams), ≤ 255 characters. Group and version names are checked
 * with this before they become `apis/<group>/<version>/`.
 */
export function isSafePathSegment(s: string): boolean {
  return s.length > 0 && s.length <= 255 && s !== '.' && s !== '..' && !/[/\\:\u0000-\u001f\u007f]/.test(s);
}

/** True for a kind name: an identifier in UpperCamelCase (`DatabaseManager`, `HTTPRoute`). */
export function isKindName(s: string): boolean {
  return /^[A-Z][A-Za-z0-9]*$/.test(s);
}

/**
 * Kube-aware version ordering (as apimachinery's `CompareKubeAwareVersionStrings`):
 * all GA versions, then beta, then alpha; higher numbers first within each; non-kube versions last
 * in lexical order. Returns < 0 when `a` sorts before `b`.
 */
export function compareKubeVersions(a: string, b: string): number {
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (pa && pb) {
    if (pa.rank !== pb.rank) return pb.rank - pa.rank;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function parseKubeVersion(v: string): { major: number; rank: number; minor: number } | undefined {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return undefined;
  const rank = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return { major: Number(m[1]), rank, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** The TypeScript name of a kind's type: `kind.typeName` when the reader chose one, else the kind. */
export function typeName(k: { kind: string; typeName?: string }): string {
  return k.typeName ?? k.kind;
}

/** The TypeScript name of a kind's list type: `kind.listTypeName` when the reader chose one, else the list kind. */
export function listTypeName(k: { listKind: string; listTypeName?: string }): string {
  return k.listTypeName ?? k.listKind;
}

/**
 * Global names generated code must not shadow with a kind's type: TypeScript's and Node's
 * built-in types and values (a type named `Promise` or `Error` in a module breaks its own code).
 */
export const SHADOWED_GLOBALS: ReadonlySet<string> = new Set([
  'Object',
  'Function',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Array',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'Promise',
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
  'Date',
  'RegExp',
  'JSON',
  'Math',
  'Reflect',
  'Proxy',
  'Intl',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Atomics',
  'Iterator',
  'Generator',
  'Record',
  'Partial',
  'Required',
  'Readonly',
  'Pick',
  'Omit',
  'Exclude',
  'Extract',
  'NonNullable',
  'ReturnType',
  'Parameters',
  'InstanceType',
  'Awaited',
  'Uppercase',
  'Lowercase',
  'Capitalize',
  'Uncapitalize',
  'PropertyKey',
  'PromiseLike',
  'ArrayLike',
  'Iterable',
  'AsyncIterable',
  'Buffer',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'Event',
  'EventTarget',
  'Headers',
  'Request',
  'Response',
  'Blob',
  'File',
  'FormData',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'Uint8ClampedArray',
  'NodeJS',
  'Infinity',
  'NaN',
  'globalThis',
  'console',
  'process',
  'undefined',
]);

/**
 * A safe TypeScript type name for an API kind: the kind itself when it is an UpperCamelCase
 * identifier that shadows nothing (`reserved` lists names generated code already uses), else its
 * words in PascalCase (`widget` → `Widget`, `Wid-get` → `WidGet`), with `Kind` added when that is
 * still taken or starts with a digit (`Object` → `ObjectKind`).
 */
export function kindTypeName(kind: string, reserved: ReadonlySet<string>): string {
  const taken = (s: string): boolean => isReservedWord(s) || SHADOWED_GLOBALS.has(s) || reserved.has(s);
  if (isKindName(kind) && !taken(kind)) return kind;
  let name = kind
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
  if (name === '' || /^[0-9]/.test(name)) name = `Kind${name}`;
  if (taken(name)) name = `${name}Kind`;
  return name;
}
