// CEL types for the checker: primitives, list, map, the schema's object types, opaque library
// types (optional_type, net.IP, kubernetes.Quantity …), type(T), type parameters. Printed as
// cel-go prints them in its messages (`list(int)`, `map(string, dyn)`, `google.protobuf.Duration`).

/** A CEL type. */
export type CelType =
  | {
      k:
        | 'int'
        | 'uint'
        | 'double'
        | 'bool'
        | 'string'
        | 'bytes'
        | 'null_type'
        | 'dyn'
        | 'error'
        | 'duration'
        | 'timestamp';
    }
  | { k: 'list'; elem: CelType }
  | { k: 'map'; key: CelType; value: CelType }
  | { k: 'object'; name: string; fields: () => ReadonlyMap<string, CelType> }
  | { k: 'opaque'; name: string; params: CelType[] }
  | { k: 'type'; of: CelType }
  | { k: 'param'; name: string };

type Simple = Exclude<CelType['k'], 'list' | 'map' | 'object' | 'opaque' | 'type' | 'param'>;
const simple = new Map<Simple, CelType>();
/** The type of a simple kind (shared instances). */
export function T(k: Simple): CelType {
  let t = simple.get(k);
  if (!t) simple.set(k, (t = { k } as CelType));
  return t;
}
export const INT = T('int');
export const UINT = T('uint');
export const DOUBLE = T('double');
export const BOOL = T('bool');
export const STRING = T('string');
export const BYTES = T('bytes');
export const NULL = T('null_type');
export const DYN = T('dyn');
export const ERROR = T('error');
export const DURATION = T('duration');
export const TIMESTAMP = T('timestamp');
export const list = (elem: CelType): CelType => ({ k: 'list', elem });
export const map = (key: CelType, value: CelType): CelType => ({ k: 'map', key, value });
export const opaque = (name: string, ...params: CelType[]): CelType => ({ k: 'opaque', name, params });
export const optional = (t: CelType): CelType => opaque('optional_type', t);
export const typeOf = (t: CelType): CelType => ({ k: 'type', of: t });

/** cel-go's name of a type in messages. */
export function typeString(t: CelType): string {
  switch (t.k) {
    case 'duration':
      return 'google.protobuf.Duration';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'list':
      return `list(${typeString(t.elem)})`;
    case 'map':
      return `map(${typeString(t.key)}, ${typeString(t.value)})`;
    case 'object':
      return t.name;
    case 'opaque':
      return t.params.length ? `${t.name}(${t.params.map(typeString).join(', ')})` : t.name;
    case 'type':
      return `type(${typeString(t.of)})`;
    case 'param':
      return t.name;
    case 'error':
      return '*error*';
    case 'null_type':
      return 'null';
    default:
      return t.k;
  }
}

/** Parses a signature type (`list(A)`, `map(string, B)`, `optional(A)`, `net.IP`); single capitals are parameters. */
export function parseType(s: string): CelType {
  let i = 0;
  const ws = () => {
    while (s[i] === ' ') i++;
  };
  const one = (): CelType => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(s.slice(i))!;
    i += m[0].length;
    const name = m[0];
    const args: CelType[] = [];
    ws();
    if (s[i] === '(') {
      i++;
      for (;;) {
        args.push(one());
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        i++;
        break;
      }
    }
    if (/^[A-Z]$/.test(name)) return { k: 'param', name };
    switch (name) {
      case 'list':
        return list(args[0]);
      case 'map':
        return map(args[0], args[1]);
      case 'optional':
        return optional(args[0]);
      case 'type':
        return typeOf(args[0] ?? DYN);
      case 'int':
      case 'uint':
      case 'double':
      case 'bool':
      case 'string':
      case 'bytes':
      case 'dyn':
      case 'duration':
      case 'timestamp':
        return T(name);
      case 'null':
        return NULL;
    }
    return opaque(name, ...args);
  };
  return one();
}

/** Type substitution built while resolving overloads. */
export type Subst = Map<string, CelType>;

/** Applies a substitution (unbound parameters become `dyn` when `finalize`). */
export function substitute(t: CelType, s: Subst, finalize = false): CelType {
  switch (t.k) {
    case 'param': {
      const b = s.get(t.name);
      if (b) return substitute(b, s, finalize);
      return finalize ? DYN : t;
    }
    case 'list':
      return list(substitute(t.elem, s, finalize));
    case 'map':
      return map(substitute(t.key, s, finalize), substitute(t.value, s, finalize));
    case 'opaque':
      return t.params.length ? opaque(t.name, ...t.params.map((p) => substitute(p, s, finalize))) : t;
    case 'type':
      return typeOf(substitute(t.of, s, finalize));
    default:
      return t;
  }
}

function occurs(name: string, t: CelType, s: Subst): boolean {
  switch (t.k) {
    case 'param':
      if (t.name === name) return true;
      return s.has(t.name) ? occurs(name, s.get(t.name)!, s) : false;
    case 'list':
      return occurs(name, t.elem, s);
    case 'map':
      return occurs(name, t.key, s) || occurs(name, t.value, s);
    case 'opaque':
      return t.params.some((p) => occurs(name, p, s));
    case 'type':
      return occurs(name, t.of, s);
  }
  return false;
}

/** Is a value of type `from` assignable where `to` is expected? Extends `s` (cel-go's isAssignable). */
export function assignable(to: CelType, from: CelType, s: Subst): boolean {
  if (to.k === 'param') {
    const b = s.get(to.name);
    if (b)
      return (
        assignable(b, from, s) ||
        (from.k !== 'param' && assignable(from, b, s) && (s.set(to.name, widen(b, from)), true))
      );
    if (from.k === 'param' && from.name === to.name) return true;
    if (occurs(to.name, from, s)) return false;
    s.set(to.name, from);
    return true;
  }
  if (from.k === 'param') {
    const b = s.get(from.name);
    if (b) return assignable(to, b, s);
    if (occurs(from.name, to, s)) return false;
    s.set(from.name, to);
    return true;
  }
  if (to.k === 'dyn' || from.k === 'dyn' || to.k === 'error' || from.k === 'error') return true;
  if (to.k === 'null_type') return from.k === 'null_type';
  if (from.k === 'null_type') return to.k === 'object';
  switch (to.k) {
    case 'list':
      return from.k === 'list' && assignable(to.elem, from.elem, s);
    case 'map':
      return from.k === 'map' && assignable(to.key, from.key, s) && assignable(to.value, from.value, s);
    case 'object':
      return from.k === 'object' && from.name === to.name;
    case 'opaque':
      return (
        from.k === 'opaque' &&
        from.name === to.name &&
        from.params.length === to.params.length &&
        to.params.every((p, i) => assignable(p, from.params[i], s))
      );
    case 'type':
      // cel-go does not compare the parameters of type(T) when assigning
      return from.k === 'type';
  }
  return to.k === from.k;
}

/** The more general of two types bound to one parameter (dyn when they differ). */
function widen(a: CelType, b: CelType): CelType {
  return sameType(a, b) ? a : DYN;
}

/** Exact type equality. */
export function sameType(a: CelType, b: CelType): boolean {
  if (a === b) return true;
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'list':
      return sameType(a.elem, (b as typeof a).elem);
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'object':
      return a.name === (b as typeof a).name;
    case 'opaque': {
      const o = b as typeof a;
      return (
        a.name === o.name && a.params.length === o.params.length && a.params.every((p, i) => sameType(p, o.params[i]))
      );
    }
    case 'type':
      return sameType(a.of, (b as typeof a).of);
    case 'param':
      return a.name === (b as typeof a).name;
  }
  return true;
}

/** True for dyn or error (or an unbound parameter): nothing is known statically. */
export function isDynLike(t: CelType): boolean {
  return t.k === 'dyn' || t.k === 'error' || t.k === 'param';
}
