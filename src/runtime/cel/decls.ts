// The declarations the checker resolves calls against: CEL's standard library and the libraries of
// Kubernetes' CEL environment as k8s.io/apiserver v0.37 (Kubernetes 1.37) builds it
// (pkg/cel/environment/base.go): strings v2, sets, lists v3 (cel-go ext) and Kubernetes' lists v0,
// regex, url, ip, cidr, authz, quantity, semver v1, format, optional types. `member` overloads take the
// receiver as their first parameter. Signatures are written as cel-go prints types.
import { parseType, type CelType } from './types.js';

/** One overload: parameter types (receiver first for members) and the result type. */
export interface Overload {
  /** The function's name (`_?_:_`, `sets.contains`). */
  readonly name: string;
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  /** cel-go's overload id where the cost model needs it. */
  readonly id: string;
}

const decls = new Map<string, Overload[]>();

/**
 * Declares overloads of `name`: each entry `'(int, string) -> bool'` (global) or
 * `'string.(int) -> bool'` (member, receiver before the dot).
 */
function declare(name: string, ...sigs: string[]): void {
  const list = decls.get(name) ?? [];
  for (const sig of sigs) {
    const m = /^(?:(.+?)\.)?\((.*)\)\s*->\s*(.+)$/.exec(sig);
    if (!m) throw new Error(`bad signature ${sig}`);
    const params = splitTop(m[2]).map(parseType);
    const member = m[1] !== undefined;
    if (member) params.unshift(parseType(m[1]));
    list.push({ name, member, params, result: parseType(m[3]), id: `${name}:${sig}` });
  }
  decls.set(name, list);
}

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const NUM = ['int', 'uint', 'double'];
const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'duration', 'timestamp'];

// ---- operators ----
declare('!_', '(bool) -> bool');
declare('-_', '(int) -> int', '(double) -> double');
declare('_&&_', '(bool, bool) -> bool');
declare('_||_', '(bool, bool) -> bool');
declare('_?_:_', '(bool, A, A) -> A');
declare('_==_', '(A, A) -> bool');
declare('_!=_', '(A, A) -> bool');
for (const op of ['_<_', '_<=_', '_>_', '_>=_']) {
  declare(op, ...COMPARABLE.map((t) => `(${t}, ${t}) -> bool`));
  // CrossTypeNumericComparisons
  for (const a of NUM) for (const b of NUM) if (a !== b) declare(op, `(${a}, ${b}) -> bool`);
}
declare(
  '_+_',
  ...['int', 'uint', 'double', 'string', 'bytes'].map((t) => `(${t}, ${t}) -> ${t}`),
  '(list(A), list(A)) -> list(A)',
  '(timestamp, duration) -> timestamp',
  '(duration, timestamp) -> timestamp',
  '(duration, duration) -> duration',
);
declare(
  '_-_',
  ...NUM.map((t) => `(${t}, ${t}) -> ${t}`),
  '(timestamp, timestamp) -> duration',
  '(timestamp, duration) -> timestamp',
  '(duration, duration) -> duration',
);
declare('_*_', ...NUM.map((t) => `(${t}, ${t}) -> ${t}`));
declare('_/_', ...NUM.map((t) => `(${t}, ${t}) -> ${t}`));
declare('_%_', '(int, int) -> int', '(uint, uint) -> uint');
declare(
  '_[_]',
  '(list(A), int) -> A',
  '(map(A, B), A) -> B',
  '(optional(list(A)), int) -> optional(A)',
  '(optional(map(A, B)), A) -> optional(B)',
);
declare(
  '_[?_]',
  '(list(A), int) -> optional(A)',
  '(map(A, B), A) -> optional(B)',
  '(optional(list(A)), int) -> optional(A)',
  '(optional(map(A, B)), A) -> optional(B)',
);
declare('@in', '(A, list(A)) -> bool', '(A, map(A, B)) -> bool');
declare('@not_strictly_false', '(bool) -> bool');
declare('cel.@mapInsert', '(map(A, B), A, B) -> map(A, B)', '(map(A, B), map(A, B)) -> map(A, B)');

// ---- standard functions ----
declare(
  'size',
  '(string) -> int',
  '(bytes) -> int',
  '(list(A)) -> int',
  '(map(A, B)) -> int',
  'string.() -> int',
  'bytes.() -> int',
  'list(A).() -> int',
  'map(A, B).() -> int',
);
declare(
  'int',
  '(int) -> int',
  '(uint) -> int',
  '(double) -> int',
  '(string) -> int',
  '(timestamp) -> int',
  '(duration) -> int',
);
declare('uint', '(uint) -> uint', '(int) -> uint', '(double) -> uint', '(string) -> uint');
declare('double', '(double) -> double', '(int) -> double', '(uint) -> double', '(string) -> double');
declare(
  'string',
  '(string) -> string',
  '(int) -> string',
  '(uint) -> string',
  '(double) -> string',
  '(bool) -> string',
  '(bytes) -> string',
  '(timestamp) -> string',
  '(duration) -> string',
  '(net.IP) -> string',
  '(net.CIDR) -> string',
  '(kubernetes.Semver) -> string',
);
declare('bytes', '(bytes) -> bytes', '(string) -> bytes');
declare('bool', '(bool) -> bool', '(string) -> bool');
declare('duration', '(duration) -> duration', '(string) -> duration');
declare('timestamp', '(timestamp) -> timestamp', '(string) -> timestamp', '(int) -> timestamp');
declare('type', '(A) -> type(A)');
declare('dyn', '(A) -> dyn');
declare('matches', '(string, string) -> bool', 'string.(string) -> bool');
declare('contains', 'string.(string) -> bool');
declare('startsWith', 'string.(string) -> bool');
declare('endsWith', 'string.(string) -> bool');
for (const f of [
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]) {
  declare(f, 'timestamp.() -> int', 'timestamp.(string) -> int');
}
for (const f of ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']) declare(f, 'duration.() -> int');

// ---- strings extension v2 ----
declare('charAt', 'string.(int) -> string');
declare('indexOf', 'string.(string) -> int', 'string.(string, int) -> int');
declare('lastIndexOf', 'string.(string) -> int', 'string.(string, int) -> int');
declare('lowerAscii', 'string.() -> string');
declare('upperAscii', 'string.() -> string');
declare('replace', 'string.(string, string) -> string', 'string.(string, string, int) -> string');
declare('split', 'string.(string) -> list(string)', 'string.(string, int) -> list(string)');
declare('substring', 'string.(int) -> string', 'string.(int, int) -> string');
declare('trim', 'string.() -> string');
declare('join', 'list(string).() -> string', 'list(string).(string) -> string');
declare('format', 'string.(list(dyn)) -> string');
declare('strings.quote', '(string) -> string');

// ---- sets ----
declare('sets.contains', '(list(A), list(A)) -> bool');
declare('sets.equivalent', '(list(A), list(A)) -> bool');
declare('sets.intersects', '(list(A), list(A)) -> bool');

// ---- cel-go lists extension v3 ----
declare('slice', 'list(A).(int, int) -> list(A)');
declare('flatten', 'list(list(A)).() -> list(A)', 'list(dyn).(int) -> list(dyn)');
declare('sort', ...COMPARABLE.map((t) => `list(${t}).() -> list(${t})`));
declare('@sortByAssociatedKeys', ...COMPARABLE.map((t) => `list(A).(list(${t})) -> list(A)`));
declare('lists.range', '(int) -> list(int)');
declare('reverse', 'list(A).() -> list(A)');
declare('distinct', 'list(A).() -> list(A)');

// ---- Kubernetes lists v0: what 1.37 offers new rules (its compatibility version is 1.36; lists v1's
// `includes`, new in 1.37, is only for rules already stored) ----
declare('isSorted', ...COMPARABLE.map((t) => `list(${t}).() -> bool`));
declare('sum', ...['int', 'uint', 'double', 'duration'].map((t) => `list(${t}).() -> ${t}`));
declare('min', ...COMPARABLE.map((t) => `list(${t}).() -> ${t}`));
declare('max', ...COMPARABLE.map((t) => `list(${t}).() -> ${t}`));
declare('indexOf', 'list(A).(A) -> int');
declare('lastIndexOf', 'list(A).(A) -> int');

// ---- regex ----
declare('find', 'string.(string) -> string');
declare('findAll', 'string.(string) -> list(string)', 'string.(string, int) -> list(string)');

// ---- url ----
declare('url', '(string) -> kubernetes.URL');
declare('isURL', '(string) -> bool');
for (const f of ['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'])
  declare(f, 'kubernetes.URL.() -> string');
declare('getQuery', 'kubernetes.URL.() -> map(string, list(string))');

// ---- ip / cidr ----
declare('ip', '(string) -> net.IP', 'net.CIDR.() -> net.IP');
declare('isIP', '(string) -> bool');
declare('ip.isCanonical', '(string) -> bool');
declare('family', 'net.IP.() -> int');
for (const f of ['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'])
  declare(f, 'net.IP.() -> bool');
declare('cidr', '(string) -> net.CIDR');
declare('isCIDR', '(string) -> bool');
declare('containsIP', 'net.CIDR.(string) -> bool', 'net.CIDR.(net.IP) -> bool');
declare('containsCIDR', 'net.CIDR.(string) -> bool', 'net.CIDR.(net.CIDR) -> bool');
declare('masked', 'net.CIDR.() -> net.CIDR');
declare('prefixLength', 'net.CIDR.() -> int');

// ---- authz (declared in every environment; only admission policies have an `authorizer`) ----
const AUTHZ = 'kubernetes.authorization';
declare('path', `${AUTHZ}.Authorizer.(string) -> ${AUTHZ}.PathCheck`);
declare('group', `${AUTHZ}.Authorizer.(string) -> ${AUTHZ}.GroupCheck`);
declare('serviceAccount', `${AUTHZ}.Authorizer.(string, string) -> ${AUTHZ}.Authorizer`);
declare('resource', `${AUTHZ}.GroupCheck.(string) -> ${AUTHZ}.ResourceCheck`);
for (const f of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'])
  declare(f, `${AUTHZ}.ResourceCheck.(string) -> ${AUTHZ}.ResourceCheck`);
declare(
  'check',
  `${AUTHZ}.PathCheck.(string) -> ${AUTHZ}.Decision`,
  `${AUTHZ}.ResourceCheck.(string) -> ${AUTHZ}.Decision`,
);
declare('errored', `${AUTHZ}.Decision.() -> bool`);
declare('error', `${AUTHZ}.Decision.() -> string`);
declare('allowed', `${AUTHZ}.Decision.() -> bool`);
declare('reason', `${AUTHZ}.Decision.() -> string`);

// ---- quantity ----
declare('quantity', '(string) -> kubernetes.Quantity');
declare('isQuantity', '(string) -> bool');
declare('sign', '(kubernetes.Quantity) -> int');
declare('isInteger', 'kubernetes.Quantity.() -> bool');
declare('asInteger', 'kubernetes.Quantity.() -> int');
declare('asApproximateFloat', 'kubernetes.Quantity.() -> double');
declare(
  'add',
  'kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity',
  'kubernetes.Quantity.(int) -> kubernetes.Quantity',
);
declare(
  'sub',
  'kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity',
  'kubernetes.Quantity.(int) -> kubernetes.Quantity',
);
declare(
  'isGreaterThan',
  'kubernetes.Quantity.(kubernetes.Quantity) -> bool',
  'kubernetes.Semver.(kubernetes.Semver) -> bool',
);
declare(
  'isLessThan',
  'kubernetes.Quantity.(kubernetes.Quantity) -> bool',
  'kubernetes.Semver.(kubernetes.Semver) -> bool',
);
declare(
  'compareTo',
  'kubernetes.Quantity.(kubernetes.Quantity) -> int',
  'kubernetes.Semver.(kubernetes.Semver) -> int',
);

// ---- semver v1 ----
declare('semver', '(string) -> kubernetes.Semver', '(string, bool) -> kubernetes.Semver');
declare('isSemver', '(string) -> bool', '(string, bool) -> bool');
declare('major', 'kubernetes.Semver.() -> int');
declare('minor', 'kubernetes.Semver.() -> int');
declare('patch', 'kubernetes.Semver.() -> int');

// ---- format ----
/** The named formats of Kubernetes' format library (`format.<name>()`). */
export const FORMAT_NAMES = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
];
for (const f of FORMAT_NAMES) declare(`format.${f}`, '() -> kubernetes.NamedFormat');
declare('format.named', '(string) -> optional(kubernetes.NamedFormat)');
declare('validate', 'kubernetes.NamedFormat.(string) -> optional(list(string))');

// ---- optional types ----
declare('optional.of', '(A) -> optional(A)');
declare('optional.ofNonZeroValue', '(A) -> optional(A)');
declare('optional.none', '() -> optional(A)');
declare('optional.unwrap', '(list(optional(A))) -> list(A)');
declare('unwrapOpt', 'list(optional(A)).() -> list(A)');
declare('hasValue', 'optional(A).() -> bool');
declare('value', 'optional(A).() -> A');
declare('or', 'optional(A).(optional(A)) -> optional(A)');
declare('orValue', 'optional(A).(A) -> A');
declare('first', 'list(A).() -> optional(A)');
declare('last', 'list(A).() -> optional(A)');

/** The overloads of a function name (undefined when the environment has no such function). */
export function overloads(name: string): readonly Overload[] | undefined {
  return decls.get(name);
}

/** Every declared function name. */
export function declaredFunctions(): string[] {
  return [...decls.keys()].sort();
}

/** Type names usable as identifiers (`type(x) == int`, `net.IP`). */
export const TYPE_IDENTS: ReadonlyMap<string, CelType> = new Map<string, CelType>(
  (
    [
      ['int', 'int'],
      ['uint', 'uint'],
      ['double', 'double'],
      ['bool', 'bool'],
      ['string', 'string'],
      ['bytes', 'bytes'],
      ['list', 'list(dyn)'],
      ['map', 'map(dyn, dyn)'],
      ['null_type', 'null'],
      ['type', 'type(dyn)'],
      ['google.protobuf.Duration', 'duration'],
      ['google.protobuf.Timestamp', 'timestamp'],
      ['optional_type', 'optional(dyn)'],
      ['net.IP', 'net.IP'],
      ['net.CIDR', 'net.CIDR'],
      ['kubernetes.URL', 'kubernetes.URL'],
      ['kubernetes.Quantity', 'kubernetes.Quantity'],
      ['kubernetes.Semver', 'kubernetes.Semver'],
      ['kubernetes.NamedFormat', 'kubernetes.NamedFormat'],
    ] as const
  ).map(([n, t]) => [n, parseType(t)]),
);
