// The CEL type checker, as cel-go's checker decides for Kubernetes' environment: identifiers are
// resolved (comprehension variables, self/oldSelf, type names), fields are looked up in the
// schema's object types (escaped property names; reserved words reach `__if__`), calls are resolved
// against the declared overloads with type parameters, list and map literals must be homogeneous,
// and comprehension ranges must be lists or maps. Issues carry cel-go's wording and position.
import { overloads, TYPE_IDENTS, type Overload } from './decls.js';
import { ACCU, RESERVED, type CelIssue, type Expr } from './syntax.js';
import {
  assignable,
  BOOL,
  BYTES,
  DOUBLE,
  DYN,
  ERROR,
  INT,
  list,
  map,
  NULL,
  optional,
  sameType,
  STRING,
  substitute,
  typeOf,
  typeString,
  UINT,
  type CelType,
  type Subst,
} from './types.js';
import { Uint } from './value.js';

/** What checking produced: the result type, each node's type, the issues. */
export interface Checked {
  type: CelType;
  types: Map<number, CelType>;
  /** The overloads each call resolved to (for the cost model). */
  calls: Map<number, Overload[]>;
  issues: CelIssue[];
}

/** Variables visible to an expression. */
export type Declarations = ReadonlyMap<string, CelType>;

const KEYWORD_FIELD = new Set(['true', 'false', 'null', 'in', ...RESERVED]);

/** An object type's field, reached by its CEL name (escaped; a reserved word also by its plain name). */
export function objectField(t: Extract<CelType, { k: 'object' }>, name: string): CelType | undefined {
  const f = t.fields();
  return f.get(name) ?? (KEYWORD_FIELD.has(name) ? f.get(`__${name}__`) : undefined);
}

/** Checks `e` with the variables `vars`. */
export function check(e: Expr, vars: Declarations): Checked {
  return new Checker(vars).run(e);
}

class Checker {
  private readonly s: Subst = new Map();
  private readonly types = new Map<number, CelType>();
  private readonly calls = new Map<number, Overload[]>();
  private readonly issues: CelIssue[] = [];
  private fresh = 0;
  private scopes: Map<string, CelType>[] = [];

  constructor(private readonly vars: Declarations) {}

  run(e: Expr): Checked {
    const t = this.expr(e);
    for (const [id, ty] of this.types) this.types.set(id, substitute(ty, this.s, true));
    return { type: substitute(t, this.s, true), types: this.types, calls: this.calls, issues: this.issues };
  }

  private err(pos: number, message: string): CelType {
    this.issues.push({ pos, message });
    return ERROR;
  }

  private set(e: Expr, t: CelType): CelType {
    this.types.set(e.id, t);
    return t;
  }

  private lookup(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i].get(name);
      if (t) return t;
    }
    return this.vars.get(name.startsWith('.') ? name.slice(1) : name);
  }

  /** `a.b.c` as a qualified name when it is made of identifiers only. */
  private qualified(e: Expr): string | undefined {
    if (e.k === 'ident') return e.name.startsWith('.') ? e.name.slice(1) : e.name;
    if (e.k === 'select' && !e.test) {
      const q = this.qualified(e.operand);
      return q === undefined ? undefined : `${q}.${e.field}`;
    }
    return undefined;
  }

  private rootIsVariable(e: Expr): boolean {
    while (e.k === 'select') e = e.operand;
    return e.k === 'ident' && this.lookup(e.name) !== undefined;
  }

  private paramFresh(t: CelType, names: Map<string, CelType>): CelType {
    switch (t.k) {
      case 'param': {
        let p = names.get(t.name);
        if (!p) names.set(t.name, (p = { k: 'param', name: `_${t.name}${this.fresh++}` }));
        return p;
      }
      case 'list':
        return list(this.paramFresh(t.elem, names));
      case 'map':
        return map(this.paramFresh(t.key, names), this.paramFresh(t.value, names));
      case 'opaque':
        return t.params.length
          ? { k: 'opaque', name: t.name, params: t.params.map((p) => this.paramFresh(p, names)) }
          : t;
      case 'type':
        return typeOf(this.paramFresh(t.of, names));
    }
    return t;
  }

  private newParam(): CelType {
    return { k: 'param', name: `_T${this.fresh++}` };
  }

  private expr(e: Expr): CelType {
    switch (e.k) {
      case 'lit':
        return this.set(e, litType(e.v));
      case 'ident': {
        const t = this.lookup(e.name);
        if (t) return this.set(e, t);
        const ty = TYPE_IDENTS.get(e.name.replace(/^\./, ''));
        if (ty) return this.set(e, typeOf(ty));
        return this.set(e, this.err(e.pos, `undeclared reference to '${e.name.replace(/^\./, '')}' (in container '')`));
      }
      case 'select':
        return this.set(e, this.select(e));
      case 'call':
        return this.set(e, this.call(e));
      case 'list': {
        let elem: CelType | undefined;
        e.elems.forEach((x, i) => {
          let t = this.expr(x);
          if (e.optional[i]) {
            const s = new Map(this.s);
            const p = this.newParam();
            if (assignable(optional(p), t, s)) {
              for (const [k, v] of s) this.s.set(k, v);
              t = substitute(p, this.s);
            } else
              t = this.err(
                x.pos,
                `expected type 'optional_type' but found '${typeString(substitute(t, this.s, true))}'`,
              );
          }
          elem = this.join(elem, t, x.pos);
        });
        return this.set(e, list(elem ?? this.newParam()));
      }
      case 'map': {
        let key: CelType | undefined;
        let value: CelType | undefined;
        for (const en of e.entries) {
          key = this.join(key, this.expr(en.key), en.key.pos);
          let vt = this.expr(en.value);
          if (en.optional) {
            const s = new Map(this.s);
            const p = this.newParam();
            if (assignable(optional(p), vt, s)) {
              for (const [k, v] of s) this.s.set(k, v);
              vt = substitute(p, this.s);
            } else
              vt = this.err(
                en.value.pos,
                `expected type 'optional_type' but found '${typeString(substitute(vt, this.s, true))}'`,
              );
          }
          value = this.join(value, vt, en.value.pos);
        }
        return this.set(e, map(key ?? this.newParam(), value ?? this.newParam()));
      }
      case 'struct':
        for (const f of e.fields) this.expr(f.value);
        return this.set(e, this.err(e.pos, `undeclared reference to '${e.name.replace(/^\./, '')}' (in container '')`));
      case 'comp':
        return this.set(e, this.comp(e));
    }
  }

  /** The element type of a literal: the common type, or dyn when elements differ (the AST validators refuse that). */
  private join(prev: CelType | undefined, t: CelType, _pos: number): CelType {
    if (prev === undefined) return t;
    const s = new Map(this.s);
    if (assignable(prev, t, s) && assignable(t, prev, s)) {
      for (const [k, v] of s) this.s.set(k, v);
      return substitute(prev, this.s);
    }
    return DYN;
  }

  private select(e: Extract<Expr, { k: 'select' }>): CelType {
    if (!e.test && !this.rootIsVariable(e)) {
      const q = this.qualified(e);
      if (q !== undefined) {
        const v = this.vars.get(q);
        if (v) return v;
        const ty = TYPE_IDENTS.get(q);
        if (ty) return typeOf(ty);
      }
    }
    const ot = substitute(this.expr(e.operand), this.s);
    const ft = this.field(ot, e.field, e.pos);
    return e.test ? (ft === ERROR ? ERROR : BOOL) : ft;
  }

  private field(ot: CelType, name: string, pos: number): CelType {
    switch (ot.k) {
      case 'object': {
        const f = objectField(ot, name);
        return f ?? this.err(pos, `undefined field '${name}'`);
      }
      case 'map':
        if (!assignable(ot.key, STRING, new Map(this.s)))
          return this.err(pos, `type '${typeString(ot)}' does not support field selection`);
        return ot.value;
      case 'dyn':
      case 'error':
      case 'param':
        return DYN;
      case 'opaque':
        if (ot.name === 'optional_type') return optional(this.unopt(this.field(ot.params[0], name, pos)));
    }
    return this.err(pos, `type '${typeString(ot)}' does not support field selection`);
  }

  private unopt(t: CelType): CelType {
    return t.k === 'opaque' && t.name === 'optional_type' ? t.params[0] : t;
  }

  private call(e: Extract<Expr, { k: 'call' }>): CelType {
    if (e.fn === '_?._') {
      const ot = substitute(this.expr(e.args[0]), this.s);
      const name = (e.args[1] as { v: string }).v;
      this.expr(e.args[1]);
      const base = ot.k === 'opaque' && ot.name === 'optional_type' ? ot.params[0] : ot;
      const ft = this.field(base, name, e.pos);
      return ft === ERROR ? ERROR : optional(this.unopt(ft));
    }
    let name = e.fn;
    let target = e.target;
    if (target && !this.rootIsVariable(target)) {
      const q = this.qualified(target);
      if (q !== undefined && overloads(`${q}.${e.fn}`)) {
        name = `${q}.${e.fn}`;
        target = undefined;
      }
    }
    const args = e.args.map((a) => this.expr(a));
    const argTypes = target ? [this.expr(target), ...args] : args;
    const decl = overloads(name);
    if (!decl) return this.err(e.pos, `undeclared reference to '${name}' (in container '')`);
    return this.resolve(e, name, !!target, argTypes);
  }

  private resolve(e: Expr, name: string, member: boolean, argTypes: CelType[]): CelType {
    const cands = overloads(name)!.filter((o) => o.member === member && o.params.length === argTypes.length);
    let result: CelType | undefined;
    let committed: Subst | undefined;
    const matched: Overload[] = [];
    for (const o of cands) {
      const names = new Map<string, CelType>();
      const params = o.params.map((p) => this.paramFresh(p, names));
      const s = new Map(this.s);
      if (!params.every((p, i) => assignable(p, argTypes[i], s))) continue;
      matched.push(o);
      const r = substitute(this.paramFresh(o.result, names), s);
      if (result === undefined) {
        result = r;
        committed = s;
      } else if (!sameType(substitute(result, s, true), substitute(r, s, true))) {
        result = DYN;
      }
    }
    if (result === undefined) {
      if (argTypes.some((t) => t === ERROR)) return ERROR;
      const shown = argTypes.map((t) => typeString(substitute(t, this.s, true)));
      const applied = member ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      return this.err(e.pos, `found no matching overload for '${name}' applied to '${applied}'`);
    }
    if (matched.length === 1 && committed) for (const [k, v] of committed) this.s.set(k, v);
    this.calls.set(e.id, matched);
    return result;
  }

  private comp(e: Extract<Expr, { k: 'comp' }>): CelType {
    const rt = substitute(this.expr(e.range), this.s);
    let it1: CelType = DYN;
    let it2: CelType = DYN;
    switch (rt.k) {
      case 'list':
        if (e.iterVar2 !== undefined) {
          it1 = INT;
          it2 = rt.elem;
        } else it1 = rt.elem;
        break;
      case 'map':
        it1 = rt.key;
        it2 = rt.value;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        break;
      default:
        this.err(
          e.range.pos,
          `expression of type '${typeString(rt)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
    }
    const accuT = this.expr(e.init);
    const scope = new Map<string, CelType>([[e.accuVar, accuT]]);
    this.scopes.push(scope);
    const inner = new Map<string, CelType>([[e.iterVar, it1]]);
    if (e.iterVar2 !== undefined) inner.set(e.iterVar2, it2);
    this.scopes.push(inner);
    const ct = this.expr(e.cond);
    if (!assignable(BOOL, ct, new Map(this.s)))
      this.err(e.cond.pos, `expected type 'bool' but found '${typeString(ct)}'`);
    const st = this.expr(e.step);
    const s = new Map(this.s);
    if (assignable(accuT, st, s)) for (const [k, v] of s) this.s.set(k, v);
    else
      this.err(
        e.step.pos,
        `expected type '${typeString(substitute(accuT, this.s, true))}' but found '${typeString(substitute(st, this.s, true))}'`,
      );
    this.scopes.pop();
    const r = this.expr(e.result);
    this.scopes.pop();
    return r;
  }
}

function litType(v: unknown): CelType {
  switch (typeof v) {
    case 'bigint':
      return INT;
    case 'number':
      return DOUBLE;
    case 'string':
      return STRING;
    case 'boolean':
      return BOOL;
  }
  if (v === null) return NULL;
  if (v instanceof Uint) return UINT;
  if (v instanceof Uint8Array) return BYTES;
  return DYN;
}

export { ACCU };
