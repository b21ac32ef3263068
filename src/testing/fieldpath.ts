// Field paths and sets of them, as structured-merge-diff's fieldpath package defines them:
// a path element is a field name (`f:`), an associative-list key (`k:{"name":"http"}`), a
// set item's value (`v:"a"`) or a list index (`i:0`); a set is a tree whose nodes list their
// members (paths that end there) and their children. The ordering, the set operations and the
// FieldsV1 encoding (`.` marks a node that is also a member) follow that package; the code is
// our own.

/** A JSON value as decoded (numbers are one type; integral ones are Go's int64). */
export type Value = unknown;

/** One step of a field path. */
export type PathElement =
  | { kind: 'field'; name: string }
  | { kind: 'key'; fields: [string, Value][] }
  | { kind: 'value'; value: Value }
  | { kind: 'index'; index: number };

export type Path = PathElement[];

export const field = (name: string): PathElement => ({ kind: 'field', name });

/** A key element; `fields` are sorted by name. */
export function keyElement(fields: [string, Value][]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

// ---- values -----------------------------------------------------------------------------

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Code-point order (Go compares strings bytewise, which for UTF-8 is code-point order). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order differs from code-point order only between surrogates and U+E000..U+FFFF
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function rank(v: Value): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isMap(v)) return 4;
  if (v === null) return 5;
  return 6;
}

/** The total order of values: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const x = a as Value[];
      const y = b as Value[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    case 4: {
      const x = a as Record<string, Value>;
      const y = b as Record<string, Value>;
      const lx = Object.keys(x).length;
      const ly = Object.keys(y).length;
      if (lx === 0 && ly === 0) return 0;
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(compareStrings);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const hx = Object.prototype.hasOwnProperty.call(x, k);
        const hy = Object.prototype.hasOwnProperty.call(y, k);
        let c: number;
        if (i === lx) c = -1;
        else if (i === ly) c = 1;
        else if (!hx) c = 1;
        else if (!hy) c = -1;
        else c = compareValues(x[k], y[k]);
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of values (numbers by value, maps regardless of key order). */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]));
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && valuesEqual(a[k], b[k]));
  }
  return false;
}

/** Go's `%q` of a string (what the apiserver prints in paths: `[name="http"]`). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 0xc) out += '\\f';
    else if (c === 0xb) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

/** structured-merge-diff's value.ToString: strings quoted, lists in brackets. */
export function valueToString(v: Value): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  if (isMap(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}=${valueToString(x)}`)
      .join('');
  return typeof v; // a bigint, symbol or function: no decoded JSON value
}

/** JSON as Go's encoding/json writes it (HTML-safe escapes, compact). */
export function goJson(v: Value): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${goJsonString(k)}:${goJson(v[k])}`)
      .join(',')}}`;
  }
  return 'null';
}

function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (
      c >= 0xd800 &&
      c <= 0xdbff &&
      i + 1 < s.length &&
      s.charCodeAt(i + 1) >= 0xdc00 &&
      s.charCodeAt(i + 1) <= 0xdfff
    ) {
      out += ch + s[i + 1];
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

// ---- path elements ----------------------------------------------------------------------

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeys(a: [string, Value][], b: [string, Value][]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i][0], b[i][0]);
    if (c !== 0) return c;
    const d = compareValues(a[i][1], b[i][1]);
    if (d !== 0) return d;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Field names before keys before values before indices; then by content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] < KIND_ORDER[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeys(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return a.index - (b as typeof a).index;
  }
}

/** `.name`, `[name="http"]`, `[="a"]`, `[0]` (as in conflict messages and schema errors). */
export function elementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export function pathString(p: Path): string {
  return p.map(elementString).join('');
}

/** The FieldsV1 key of an element: `f:name`, `k:{...}`, `v:...`, `i:N`. */
export function serializeElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Thrown for FieldsV1 the apiserver could not decode. */
export class FieldsV1Error extends Error {}

/** Parses a FieldsV1 key; undefined for an unknown element type (which decoding skips). */
export function deserializeElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsV1Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new FieldsV1Error(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return field(rest);
    case 'v':
      return { kind: 'value', value: parseJson(rest) };
    case 'k': {
      const v = parseJson(rest);
      if (!isMap(v)) throw new FieldsV1Error(`parsing key as path element: ${rest}`);
      return keyElement(Object.entries(v));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest)) throw new FieldsV1Error(`strconv.Atoi: parsing ${goQuote(rest)}: invalid syntax`);
      return { kind: 'index', index: Number(rest) };
    }
    default:
      return undefined;
  }
}

function parseJson(s: string): Value {
  try {
    return JSON.parse(s) as Value;
  } catch {
    throw new FieldsV1Error(`parsing key as path element: ${s}`);
  }
}

// ---- sets -------------------------------------------------------------------------------

function search<T>(arr: readonly T[], pe: PathElement, get: (x: T) => PathElement): { found: boolean; at: number } {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = compareElements(get(arr[mid]), pe);
    if (c === 0) return { found: true, at: mid };
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return { found: false, at: lo };
}

const self = (pe: PathElement): PathElement => pe;

interface Child {
  pe: PathElement;
  set: FieldSet;
}

/** A set of field paths (structured-merge-diff's fieldpath.Set). */
export class FieldSet {
  /** Elements that end a path here, sorted. */
  members: PathElement[] = [];
  /** Subtrees, sorted by element. */
  children: Child[] = [];

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (path.length > 0) this.insertFrom(path, 0);
  }

  private insertFrom(path: Path, i: number): void {
    if (i === path.length - 1) this.addMember(path[i]);
    else this.descend(path[i]).insertFrom(path, i + 1);
  }

  addMember(pe: PathElement): void {
    const r = search(this.members, pe, self);
    if (!r.found) this.members.splice(r.at, 0, pe);
  }

  /** The child set at `pe`, created when missing. */
  descend(pe: PathElement): FieldSet {
    const r = search(this.children, pe, (c) => c.pe);
    if (r.found) return this.children[r.at].set;
    const set = new FieldSet();
    this.children.splice(r.at, 0, { pe, set });
    return set;
  }

  child(pe: PathElement): FieldSet | undefined {
    const r = search(this.children, pe, (c) => c.pe);
    return r.found ? this.children[r.at].set : undefined;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self).found;
  }

  has(path: Path): boolean {
    return path.length > 0 && this.hasFrom(path, 0);
  }

  private hasFrom(path: Path, i: number): boolean {
    if (i === path.length - 1) return this.hasMember(path[i]);
    return this.child(path[i])?.hasFrom(path, i + 1) ?? false;
  }

  /** The subtree under `pe` (empty when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  size(): number {
    return this.members.length + this.children.reduce((n, c) => n + c.set.size(), 0);
  }

  copy(): FieldSet {
    const s = new FieldSet();
    s.members = [...this.members];
    s.children = this.children.map((c) => ({ pe: c.pe, set: c.set.copy() }));
    return s;
  }

  equals(o: FieldSet): boolean {
    if (this.members.length !== o.members.length || this.children.length !== o.children.length) return false;
    if (this.members.some((m, i) => compareElements(m, o.members[i]) !== 0)) return false;
    return this.children.every(
      (c, i) => compareElements(c.pe, o.children[i].pe) === 0 && c.set.equals(o.children[i].set),
    );
  }

  union(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.members = mergeSorted(this.members, o.members, 'union');
    let i = 0;
    let j = 0;
    while (i < this.children.length || j < o.children.length) {
      const a = this.children[i];
      const b = o.children[j];
      const c = !a ? 1 : !b ? -1 : compareElements(a.pe, b.pe);
      if (c < 0) {
        s.children.push(a);
        i++;
      } else if (c > 0) {
        s.children.push(b);
        j++;
      } else {
        s.children.push({ pe: a.pe, set: a.set.union(b.set) });
        i++;
        j++;
      }
    }
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.members = mergeSorted(this.members, o.members, 'intersection');
    for (const c of this.children) {
      const other = o.child(c.pe);
      if (!other) continue;
      const r = c.set.intersection(other);
      if (!r.empty()) s.children.push({ pe: c.pe, set: r });
    }
    return s;
  }

  /** Removes exactly the paths of `o` (a member of `o` does not remove what is below it). */
  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.members = mergeSorted(this.members, o.members, 'difference');
    for (const c of this.children) {
      const other = o.child(c.pe);
      if (!other) {
        s.children.push(c);
        continue;
      }
      const d = c.set.difference(other);
      if (!d.empty()) s.children.push({ pe: c.pe, set: d });
    }
    return s;
  }

  /** Removes the paths of `o` and everything below its members. */
  recursiveDifference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.members = mergeSorted(this.members, o.members, 'difference');
    for (const c of this.children) {
      if (o.hasMember(c.pe)) continue;
      const other = o.child(c.pe);
      if (!other) {
        s.children.push(c);
        continue;
      }
      const d = c.set.recursiveDifference(other);
      if (!d.empty()) s.children.push({ pe: c.pe, set: d });
    }
    return s;
  }

  /** Every path, members of a node before its children's paths. */
  iterate(fn: (p: Path) => void, prefix: Path = []): void {
    for (const m of this.members) fn([...prefix, m]);
    for (const c of this.children) c.set.iterate(fn, [...prefix, c.pe]);
  }

  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  /** FieldsV1 as the apiserver serialises it. */
  toFieldsV1(): Record<string, unknown> {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (includeSelf && (this.members.length || this.children.length)) out['.'] = {};
    let mi = 0;
    let ci = 0;
    while (mi < this.members.length || ci < this.children.length) {
      const m = this.members[mi];
      const c = this.children[ci];
      const d = !m ? 1 : !c ? -1 : compareElements(m, c.pe);
      if (d < 0) {
        out[serializeElement(m)] = {};
        mi++;
      } else if (d > 0) {
        out[serializeElement(c.pe)] = c.set.emit(false);
        ci++;
      } else {
        out[serializeElement(c.pe)] = c.set.emit(true);
        mi++;
        ci++;
      }
    }
    return out;
  }

  /** Decodes FieldsV1; throws FieldsV1Error where the apiserver would fail to decode. */
  static fromFieldsV1(v: unknown): FieldSet {
    if (v === undefined || v === null) return new FieldSet();
    if (!isMap(v)) throw new FieldsV1Error('FieldsV1 must be a JSON object');
    return readNode(v).children ?? new FieldSet();
  }
}

function readNode(v: Record<string, unknown>): { children: FieldSet | undefined; isMember: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const [key, sub] of Object.entries(v)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = deserializeElement(key);
    if (!pe) continue;
    if (!isMap(sub)) throw new FieldsV1Error(`FieldsV1 value of ${key} must be a JSON object`);
    const r = readNode(sub);
    if (r.isMember) (children ??= new FieldSet()).addMember(pe);
    if (r.children) {
      children ??= new FieldSet();
      const at = children.descend(pe);
      const merged = at.union(r.children);
      at.members = merged.members;
      at.children = merged.children;
    }
  }
  if (!children) isMember = true;
  return { children, isMember };
}

function mergeSorted(a: PathElement[], b: PathElement[], op: 'union' | 'intersection' | 'difference'): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareElements(a[i], b[j]);
    if (c < 0) {
      if (op !== 'intersection') out.push(a[i]);
      i++;
    } else if (c > 0) {
      if (op === 'union') out.push(b[j]);
      j++;
    } else {
      if (op !== 'difference') out.push(a[i]);
      i++;
      j++;
    }
  }
  if (op !== 'intersection') while (i < a.length) out.push(a[i++]);
  if (op === 'union') while (j < b.length) out.push(b[j++]);
  return out;
}
