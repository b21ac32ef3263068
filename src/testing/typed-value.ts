// Operations on a JSON value read through a TypeSchema (structured-merge-diff's typed
// package): validation, the set of fields a value sets, the comparison of two values (added,
// modified and removed fields), the merge of an applied configuration into a live object, and
// the removal of a set of fields. Semantics, error texts and orderings follow that package.
import type { Atom, ListType, MapType, Scalar, TypeRef, TypeSchema } from './field-schema.js';
import { FieldSet, compareElements, elementString, goQuote, keyElement, valuesEqual } from './fieldpath.js';
import type { Path, PathElement, Value } from './fieldpath.js';
import { setOwn } from '../runtime/meta/json.js';

type Rec = Record<string, Value>;

const isMap = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Rec, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** One schema error at a path (`.spec.replicas: expected numeric (int or float), got string`). */
export interface TypedError {
  path: string;
  message: string;
}

/** The errors as structured-merge-diff prints them (one, or `errors:` and one per line). */
export function formatTypedErrors(errs: TypedError[]): string {
  const one = (e: TypedError): string => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errs.length === 1) return one(errs[0]);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

/** Thrown by operations on values that do not fit their schema. */
export class TypedValueError extends Error {
  constructor(readonly errors: TypedError[]) {
    super(formatTypedErrors(errors));
  }
}

// ---- Go formatting of values in error messages ----------------------------------------------

function goNumber(n: number): string {
  return String(n);
}

/** Go's `%v` of an unstructured value. */
function goV(v: Value): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isMap(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goV(v[k])}`)
      .join(' ')}]`;
  return typeof v; // a bigint, symbol or function: no decoded JSON value
}

/** Go's `%#v` of an unstructured value. */
function goHashV(v: Value): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goHashV).join(', ')}}`;
  if (isMap(v))
    return `map[string]interface {}{${Object.keys(v)
      .sort()
      .map((k) => `${goQuote(k)}:${goHashV(v[k])}`)
      .join(', ')}}`;
  return typeof v; // a bigint, symbol or function: no decoded JSON value
}

function goType(v: Value): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  return '<nil>';
}

// ---- atoms ------------------------------------------------------------------------------

type Form = 'map' | 'scalar' | 'list';

/** The form of `atom` a value takes (deduceAtom, then handleAtom's order: map, scalar, list). */
function formOf(atom: Atom, v: Value): Form | undefined {
  if (v !== undefined && v !== null) {
    if ((typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') && atom.scalar) return 'scalar';
    if (Array.isArray(v) && atom.list) return 'list';
    if (isMap(v) && atom.map) return 'map';
  }
  return atom.map ? 'map' : atom.scalar ? 'scalar' : atom.list ? 'list' : undefined;
}

/** Whether deduction picked the same form for both values (Atom.Equals of the deduced atoms). */
function sameDeduction(atom: Atom, a: Value, b: Value): boolean {
  const d = (v: Value): string => {
    if (v !== undefined && v !== null) {
      if ((typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') && atom.scalar) return 's';
      if (Array.isArray(v) && atom.list) return 'l';
      if (isMap(v) && atom.map) return 'm';
    }
    return '*';
  };
  return d(a) === d(b);
}

function typeName(tr: TypeRef): string {
  return tr.named ?? 'inlined type';
}

function resolveOrThrow(schema: TypeSchema, tr: TypeRef, path: string): Atom {
  const a = schema.resolve(tr);
  if (!a) throw new TypedValueError([{ path, message: `schema error: no type found matching: ${typeName(tr)}` }]);
  return a;
}

function invalidAtom(tr: TypeRef, path: string): TypedValueError {
  return new TypedValueError([
    { path, message: `schema error: invalid atom: ${tr.named ? `named type: ${tr.named}` : 'inlined'}` },
  ]);
}

function scalarError(t: Scalar, v: Value): string | undefined {
  if (v === undefined || v === null) return undefined;
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goType(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goHashV(v)}}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got &{${goV(v)}}`;
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'
        ? undefined
        : `expected any scalar, got &{${goV(v)}}`;
  }
}

function goQuoteList(keys: string[]): string {
  return `[${keys.map(goQuote).join(' ')}]`;
}

/** The path element of a list item (a key of a map list, or the value of a set item). */
export function listItemElement(schema: TypeSchema, list: ListType, child: Value): PathElement {
  if (list.relationship !== 'associative') throw new Error('invalid indexing of non-associative list');
  if (list.keys.length > 0) {
    if (child === null) throw new Error('associative list with keys may not have a null element');
    if (!isMap(child)) throw new Error('associative list with keys may not have non-map elements');
    const fields: [string, Value][] = [];
    for (const k of list.keys) {
      if (own(child, k)) fields.push([k, child[k]]);
      else {
        const atom = schema.resolve(list.elementType);
        if (!atom) throw new Error(`couldn't find default value for ${k}: invalid elementType for list`);
        if (!atom.map)
          throw new Error(`couldn't find default value for ${k}: associative list may not have non-map types`);
        const def = atom.map.fields.get(k)?.default;
        if (def !== undefined && def !== null) fields.push([k, def]);
      }
    }
    if (fields.length === 0) {
      throw new Error(
        `associative list with keys has an element that omits all key fields ${goQuoteList(list.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(fields);
  }
  if (isMap(child)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(child)) throw new Error('not supported: associative list with lists as elements');
  if (child === null || child === undefined)
    throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: 'value', value: child };
}

function tryElement(schema: TypeSchema, list: ListType, child: Value): PathElement | undefined {
  try {
    return listItemElement(schema, list, child);
  } catch {
    return undefined;
  }
}

function fieldType(m: MapType, key: string): TypeRef | undefined {
  return m.fields.get(key)?.type ?? m.elementType;
}

class ElementMap<T> {
  private readonly items: { pe: PathElement; v: T }[] = [];
  get(pe: PathElement): { v: T } | undefined {
    const x = this.items.find((i) => compareElements(i.pe, pe) === 0);
    return x ? { v: x.v } : undefined;
  }
  set(pe: PathElement, v: T): void {
    const x = this.items.find((i) => compareElements(i.pe, pe) === 0);
    if (x) x.v = v;
    else this.items.push({ pe, v });
  }
}

// ---- validation -------------------------------------------------------------------------

/** Schema errors of a value (none: it fits). Duplicates in sets and map lists are errors unless allowed. */
export function validateTyped(schema: TypeSchema, tr: TypeRef, v: Value, allowDuplicates: boolean): TypedError[] {
  const errs: TypedError[] = [];
  const walk = (tr: TypeRef, v: Value, path: string): void => {
    const atom = schema.resolve(tr);
    if (!atom) {
      errs.push({ path, message: `schema error: no type found matching: ${typeName(tr)}` });
      return;
    }
    const form = formOf(atom, v);
    if (form === 'scalar') {
      const e = scalarError(atom.scalar!, v);
      if (e) errs.push({ path, message: e });
    } else if (form === 'list') {
      if (v === null || v === undefined) return;
      if (!Array.isArray(v)) {
        errs.push({ path, message: `expected list, got &{${goV(v)}}` });
        return;
      }
      const list = atom.list!;
      const seen = new ElementMap<true>();
      for (let i = 0; i < v.length; i++) {
        let pe: PathElement;
        if (list.relationship !== 'associative') pe = { kind: 'index', index: i };
        else {
          try {
            pe = listItemElement(schema, list, v[i]);
          } catch (e) {
            errs.push({ path, message: `element ${i}: ${(e as Error).message}` });
            return;
          }
          if (seen.get(pe) && !allowDuplicates)
            errs.push({ path, message: `duplicate entries for key ${elementString(pe)}` });
          seen.set(pe, true);
        }
        walk(list.elementType, v[i], path + elementString(pe));
      }
    } else if (form === 'map') {
      if (v === null || v === undefined) return;
      if (!isMap(v)) {
        errs.push({ path, message: `expected map, got &{${goV(v)}}` });
        return;
      }
      const m = atom.map!;
      for (const [k, x] of Object.entries(v)) {
        const t = fieldType(m, k);
        if (!t) {
          errs.push({ path: `${path}.${k}`, message: 'field not declared in schema' });
          return;
        }
        walk(t, x, `${path}.${k}`);
      }
    } else
      errs.push({ path, message: `schema error: invalid atom: ${tr.named ? `named type: ${tr.named}` : 'inlined'}` });
  };
  walk(tr, v, '');
  return errs;
}

/**
 * The value without the fields its schema does not declare (what decoding into a built-in's
 * Go struct drops), so that the field manager reads a stored object as the apiserver would.
 */
export function pruneUndeclared(schema: TypeSchema, tr: TypeRef, v: Value): Value {
  const atom = schema.resolve(tr);
  if (!atom) return v;
  const form = formOf(atom, v);
  if (form === 'list' && Array.isArray(v)) return v.map((x) => pruneUndeclared(schema, atom.list!.elementType, x));
  if (form === 'map' && isMap(v)) {
    const out: Rec = {};
    for (const [k, x] of Object.entries(v)) {
      const t = fieldType(atom.map!, k);
      if (t) setOwn(out, k, pruneUndeclared(schema, t, x));
    }
    return out;
  }
  return v;
}

// ---- the field set of a value -------------------------------------------------------------

/** Every field and item a value sets, as ownership counts it (TypedValue.ToFieldSet). */
export function toFieldSet(schema: TypeSchema, tr: TypeRef, value: Value): FieldSet {
  const set = new FieldSet();
  const walk = (tr: TypeRef, v: Value, path: Path): void => {
    const atom = schema.resolve(tr);
    if (!atom) return;
    const form = formOf(atom, v);
    if (form === 'scalar') set.insert(path);
    else if (form === 'list') {
      const list = atom.list!;
      if (list.relationship === 'atomic') {
        set.insert(path);
        return;
      }
      if (!Array.isArray(v)) return;
      const pes = v.map((c) => tryElement(schema, list, c));
      const seen = new ElementMap<number>();
      for (const pe of pes) if (pe) seen.set(pe, (seen.get(pe)?.v ?? 0) + 1);
      const dupDone = new ElementMap<true>();
      pes.forEach((pe, i) => {
        if (!pe) return;
        if (seen.get(pe)!.v > 1) {
          if (!dupDone.get(pe)) {
            set.insert([...path, pe]);
            dupDone.set(pe, true);
          }
          return;
        }
        walk(list.elementType, v[i], [...path, pe]);
        set.insert([...path, pe]);
      });
    } else if (form === 'map') {
      const m = atom.map!;
      if (m.relationship === 'atomic') {
        set.insert(path);
        return;
      }
      if (!isMap(v)) return;
      for (const [k, x] of Object.entries(v)) {
        const p: Path = [...path, { kind: 'field', name: k }];
        const t = fieldType(m, k);
        if (t) walk(t, x, p);
        if (x === null || (isMap(x) && Object.keys(x).length === 0)) set.insert(p);
        else if (!m.fields.has(k)) set.insert(p);
      }
    }
  };
  walk(tr, value, []);
  return set;
}

/** Adds to the members every struct field that has children (Set.EnsureNamedFieldsAreMembers). */
export function ensureNamedFieldsAreMembers(schema: TypeSchema, tr: TypeRef | undefined, s: FieldSet): FieldSet {
  const atom = tr ? schema.resolve(tr) : undefined;
  const out = new FieldSet();
  out.members = [...s.members];
  for (const c of s.children) {
    let childType: TypeRef | undefined;
    if (c.pe.kind === 'field' && atom?.map) {
      if (atom.map.fields.has(c.pe.name)) out.addMember(c.pe);
      childType = fieldType(atom.map, c.pe.name);
    } else if (c.pe.kind === 'key' && atom?.list) childType = atom.list.elementType;
    out.children.push({ pe: c.pe, set: ensureNamedFieldsAreMembers(schema, childType, c.set) });
  }
  return out;
}

// ---- comparison -------------------------------------------------------------------------

/** What changed from one value to another, by field (TypedValue.Compare). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareTyped(schema: TypeSchema, tr: TypeRef, lhs: Value, rhs: Value): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const node = (tr: TypeRef, l: Value, r: Value, path: Path): void => {
    const atom = resolveOrThrow(schema, tr, pathStringOf(path));
    const state = { inLeaf: false };
    if (r === undefined) handle(atom, tr, l, l, r, path, state);
    else if (l === undefined || sameDeduction(atom, l, r)) handle(atom, tr, r, l, r, path, state);
    else {
      handle(atom, tr, l, l, r, path, { inLeaf: false });
      handle(atom, tr, r, l, r, path, state);
    }
    if (!state.inLeaf) {
      if (l === undefined) c.added.insert(path);
      else if (r === undefined) c.removed.insert(path);
    }
  };
  const leaf = (l: Value, r: Value, path: Path, state: { inLeaf: boolean }): void => {
    if (state.inLeaf) return;
    state.inLeaf = true;
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!valuesEqual(r, l)) c.modified.insert(path);
  };
  const handle = (
    atom: Atom,
    tr: TypeRef,
    deduceFrom: Value,
    l: Value,
    r: Value,
    path: Path,
    state: { inLeaf: boolean },
  ): void => {
    const form = formOf(atom, deduceFrom);
    if (form === 'scalar') {
      if (scalarError(atom.scalar!, l) && scalarError(atom.scalar!, r)) return;
      leaf(l, r, path, state);
    } else if (form === 'list') {
      const list = atom.list!;
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (list.relationship === 'atomic' || (!ll?.length && !rl?.length)) {
        leaf(l, r, path, state);
        return;
      }
      compareItems(list, ll ?? [], rl ?? [], path);
    } else if (form === 'map') {
      const m = atom.map!;
      const lm = isMap(l) ? l : undefined;
      const rm = isMap(r) ? r : undefined;
      const lEmpty = !lm || Object.keys(lm).length === 0;
      const rEmpty = !rm || Object.keys(rm).length === 0;
      if (m.relationship === 'atomic' || (lEmpty && rEmpty)) {
        leaf(l, r, path, state);
        return;
      }
      for (const k of zipKeys(lm, rm)) {
        const t = fieldType(m, k) ?? {};
        node(t, lm && own(lm, k) ? lm[k] : undefined, rm && own(rm, k) ? rm[k] : undefined, [
          ...path,
          { kind: 'field', name: k },
        ]);
      }
    } else throw invalidAtom(tr, pathStringOf(path));
  };
  const compareItems = (list: ListType, l: Value[], r: Value[], path: Path): void => {
    const all: PathElement[] = [];
    const lv = new ElementMap<Value[]>();
    const rv = new ElementMap<Value[]>();
    for (const x of l) {
      const pe = tryElement(schema, list, x);
      if (!pe) continue;
      const got = lv.get(pe);
      if (got) got.v.push(x);
      else {
        lv.set(pe, [x]);
        all.push(pe);
      }
    }
    for (const x of r) {
      const pe = tryElement(schema, list, x);
      if (!pe) continue;
      const got = rv.get(pe);
      if (got) got.v.push(x);
      else {
        rv.set(pe, [x]);
        if (!lv.get(pe)) all.push(pe);
      }
    }
    for (const pe of all) {
      const ls = lv.get(pe)?.v ?? [];
      const rs = rv.get(pe)?.v ?? [];
      const p = [...path, pe];
      if (ls.length <= 1 && rs.length <= 1) node(list.elementType, ls[0], rs[0], p);
      else if (ls.length >= 2 && rs.length >= 2) {
        if (ls.length !== rs.length || ls.some((x, i) => !valuesEqual(x, rs[i]))) c.modified.insert(p);
      } else if (ls.length >= 2) {
        if (rs.length) node(list.elementType, undefined, rs[0], p);
        c.removed.insert(p);
      } else {
        if (ls.length) node(list.elementType, ls[0], undefined, p);
        c.added.insert(p);
      }
    }
  };
  node(tr, lhs, rhs, []);
  return c;
}

function zipKeys(a: Rec | undefined, b: Rec | undefined): string[] {
  const keys = a ? Object.keys(a) : [];
  if (b) for (const k of Object.keys(b)) if (!a || !own(a, k)) keys.push(k);
  return keys;
}

function pathStringOf(p: Path): string {
  return p.map(elementString).join('');
}

// ---- merge ------------------------------------------------------------------------------

/**
 * Merges an applied configuration into a live value (TypedValue.Merge): scalars and atomic
 * lists/maps take the configuration's value, granular maps merge by key, sets and map lists by
 * item, keeping the live order where the configuration changes nothing and following the
 * configuration's order for the items it names. Throws for a configuration with duplicate items.
 */
export function mergeTyped(schema: TypeSchema, tr: TypeRef, lhs: Value, rhs: Value): Value {
  const node = (tr: TypeRef, l: Value, r: Value, path: Path): Value => {
    const atom = resolveOrThrow(schema, tr, pathStringOf(path));
    const state = { inLeaf: false, out: undefined as Value };
    if (r === undefined) handle(atom, tr, l, l, r, path, state);
    else if (l === undefined || sameDeduction(atom, l, r)) handle(atom, tr, r, l, r, path, state);
    else {
      handle(atom, tr, l, l, r, path, { inLeaf: false, out: undefined });
      handle(atom, tr, r, l, r, path, state);
    }
    return state.out;
  };
  const leaf = (l: Value, r: Value, state: { inLeaf: boolean; out: Value }): void => {
    if (state.inLeaf) return;
    state.inLeaf = true;
    state.out = r !== undefined ? structuredClone(r) : l !== undefined ? structuredClone(l) : undefined;
  };
  const handle = (
    atom: Atom,
    tr: TypeRef,
    deduceFrom: Value,
    l: Value,
    r: Value,
    path: Path,
    state: { inLeaf: boolean; out: Value },
  ): void => {
    const form = formOf(atom, deduceFrom);
    if (form === 'scalar') {
      const le = scalarError(atom.scalar!, l);
      const re = scalarError(atom.scalar!, r);
      if (le && re)
        throw new TypedValueError([
          { path: pathStringOf(path), message: `lhs: ${le}` },
          { path: pathStringOf(path), message: `rhs: ${re}` },
        ]);
      leaf(l, r, state);
    } else if (form === 'list') {
      const list = atom.list!;
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (list.relationship === 'atomic' || (!ll?.length && !rl?.length)) {
        leaf(l, r, state);
        return;
      }
      const out = mergeItems(list, ll, rl, path);
      if (out.length > 0) state.out = out;
    } else if (form === 'map') {
      const m = atom.map!;
      const lm = isMap(l) ? l : undefined;
      const rm = isMap(r) ? r : undefined;
      const lEmpty = !lm || Object.keys(lm).length === 0;
      const rEmpty = !rm || Object.keys(rm).length === 0;
      if (m.relationship === 'atomic' || (lEmpty && rEmpty)) {
        leaf(l, r, state);
        return;
      }
      const out: Rec = {};
      for (const k of zipKeys(lm, rm)) {
        const t = fieldType(m, k) ?? {};
        const v = node(t, lm && own(lm, k) ? lm[k] : undefined, rm && own(rm, k) ? rm[k] : undefined, [
          ...path,
          { kind: 'field', name: k },
        ]);
        if (v !== undefined) setOwn(out, k, v);
      }
      if (Object.keys(out).length > 0) state.out = out;
    } else throw invalidAtom(tr, pathStringOf(path));
  };
  const index = (
    list: ListType,
    items: Value[] | undefined,
    allowDuplicates: boolean,
    path: Path,
  ): { pes: PathElement[]; observed: ElementMap<Value> } => {
    const pes: PathElement[] = [];
    const observed = new ElementMap<Value>();
    const errs: TypedError[] = [];
    (items ?? []).forEach((child, i) => {
      let pe: PathElement;
      try {
        pe = listItemElement(schema, list, child);
      } catch (e) {
        errs.push({ path: pathStringOf(path), message: `element ${i}: ${(e as Error).message}` });
        return;
      }
      const found = observed.get(pe);
      if (found && !allowDuplicates) {
        errs.push({ path: pathStringOf(path), message: `duplicate entries for key ${elementString(pe)}` });
        return;
      }
      // a duplicated live item is not merged with the configuration's
      observed.set(pe, found ? null : child);
      pes.push(pe);
    });
    if (errs.length) throw new TypedValueError(errs);
    return { pes, observed };
  };
  const mergeItems = (list: ListType, l: Value[] | undefined, r: Value[] | undefined, path: Path): Value[] => {
    const out: Value[] = [];
    const R = index(list, r, false, path);
    const L = index(list, l, true, path);
    const eq = (a: PathElement, b: PathElement): boolean => compareElements(a, b) === 0;
    const shared = R.pes.filter((pe) => L.observed.get(pe));
    let nextShared = shared.shift();
    const mergedRhs = new ElementMap<true>();
    const item = (pe: PathElement, lc: Value, rc: Value): void => {
      const v = node(list.elementType, lc, rc, [...path, pe]);
      if (v !== undefined) out.push(v);
    };
    let li = 0;
    let ri = 0;
    while (li < L.pes.length || ri < R.pes.length) {
      if (li < L.pes.length && ri < R.pes.length) {
        const pe = L.pes[li];
        if (eq(pe, R.pes[ri])) {
          mergedRhs.set(pe, true);
          item(pe, L.observed.get(pe)?.v, R.observed.get(pe)?.v);
          li++;
          ri++;
          nextShared = shared.shift();
          continue;
        }
        if (R.observed.get(pe) && nextShared && !eq(nextShared, pe)) {
          li++;
          continue;
        }
      }
      if (li < L.pes.length) {
        const pe = L.pes[li];
        if (!R.observed.get(pe)) {
          item(pe, l![li], undefined);
          li++;
          continue;
        } else if (mergedRhs.get(pe)) li++;
      }
      if (ri < R.pes.length) {
        const pe = R.pes[ri];
        mergedRhs.set(pe, true);
        item(pe, L.observed.get(pe)?.v, R.observed.get(pe)?.v);
        ri++;
        if (nextShared && eq(nextShared, pe)) nextShared = shared.shift();
      }
    }
    return out;
  };
  return node(tr, lhs, rhs, []);
}

// ---- removal ----------------------------------------------------------------------------

/** The value without the fields and items of `toRemove` (TypedValue.RemoveItems). */
export function removeItemsTyped(schema: TypeSchema, tr: TypeRef, value: Value, toRemove: FieldSet): Value {
  const walk = (tr: TypeRef, v: Value, rm: FieldSet): Value => {
    const atom = schema.resolve(tr);
    if (!atom) return undefined;
    const form = formOf(atom, v);
    if (form === 'scalar') return v;
    if (form === 'list') {
      if (!Array.isArray(v) || v.length === 0) return undefined;
      const list = atom.list!;
      if (list.relationship === 'atomic') return undefined;
      const items: Value[] = [];
      for (const item of v) {
        const pe = tryElement(schema, list, item);
        if (!pe) {
          items.push(item);
          continue;
        }
        if (rm.hasMember(pe)) continue;
        const sub = rm.child(pe);
        items.push(sub && !sub.empty() ? (walk(list.elementType, item, sub) ?? null) : item);
      }
      return items.length ? items : undefined;
    }
    if (form === 'map') {
      if (!isMap(v) || Object.keys(v).length === 0) return undefined;
      const m = atom.map!;
      if (m.relationship === 'atomic') return undefined;
      const out: Rec = {};
      for (const [k, x] of Object.entries(v)) {
        const pe: PathElement = { kind: 'field', name: k };
        if (rm.hasMember(pe)) continue;
        const sub = rm.child(pe);
        const t = fieldType(m, k) ?? {};
        const nv = sub && !sub.empty() ? (walk(t, x, sub) ?? null) : x;
        setOwn(out, k, nv);
      }
      return Object.keys(out).length ? out : undefined;
    }
    return undefined;
  };
  return walk(tr, value, toRemove);
}
