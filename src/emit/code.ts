// The code builder emitters write through (what gengo's import tracker and ts-poet do for Go and
// TypeScript): an import tracker that hands out local names and writes the import declarations,
// and pieces of code laid out for the column their placeholder stands at in a template, so
// templates keep the shape of the code and emitters never count columns.

import { compareStrings } from '../model/order.js';
import { render } from './handlebars.js';

interface TrackedModule {
  /** Imported name → local name. */
  names: Map<string, string>;
  /** Imported names used only as types. */
  typeOnly: Set<string>;
  /** The local name of `import * as <local>`, if the module is imported whole. */
  namespace?: string;
}

/**
 * Where a module's declaration goes: `node:` built-ins, then packages (and absolute paths or URLs,
 * such as a runtime given by path), then relative modules; by specifier within each.
 */
function compareModules(a: string, b: string): number {
  const rank = (m: string): number => (m.startsWith('node:') ? 0 : m.startsWith('.') ? 2 : 1);
  return rank(a) - rank(b) || compareStrings(a, b);
}

/**
 * The imports of one generated file. `use(module, name)` gives the name to write in the code;
 * `declarations()` the `import` lines, one per module (and one more for a module also imported
 * whole), ordered by {@link compareModules}: value specifiers sorted, then `type` ones sorted
 * (`import type { … }` when all are types).
 */
export class ImportTracker {
  private readonly modules = new Map<string, TrackedModule>();

  /**
   * @param declared the names the file itself declares (an imported name equal to one of them is
   *   aliased where the module allows it, and reported by {@link ImportTracker.localNames} otherwise)
   * @param options.aliasPrefixes per module specifier, the prefix of its aliases: with
   *   `{ 'crdgen/runtime': 'Runtime' }` the runtime's `Watch` is imported `Watch as RuntimeWatch` in a
   *   file that has a `Watch` of its own
   */
  constructor(
    private readonly declared: readonly string[] = [],
    private readonly options: { aliasPrefixes?: Readonly<Record<string, string>> } = {},
  ) {}

  private module(module: string): TrackedModule {
    let m = this.modules.get(module);
    if (!m) {
      m = { names: new Map(), typeOnly: new Set() };
      this.modules.set(module, m);
    }
    return m;
  }

  /**
   * The local name of `name` from `module` (a module specifier as written, e.g. `./types.js`).
   * A name already declared by the file or imported from another module is aliased with the
   * module's prefix, if it has one; `as` names it whatever else is taken (a collision is then
   * the emitter's to report, through {@link ImportTracker.localNames}). `type: true` imports it
   * for types only (unless it is also used as a value). The same name of the same module always
   * gets the same local name.
   */
  use(module: string, name: string, options: { type?: boolean; as?: string } = {}): string {
    const m = this.module(module);
    let local = m.names.get(name);
    if (local === undefined) {
      const prefix = this.options.aliasPrefixes?.[module];
      local = options.as ?? (prefix !== undefined && this.isTaken(name) ? `${prefix}${name}` : name);
      m.names.set(name, local);
      if (options.type) m.typeOnly.add(name);
    } else if (!options.type) m.typeOnly.delete(name);
    return local;
  }

  /** `import * as <local> from "<module>"`: the module as one namespace object; returns `local`. */
  useNamespace(module: string, local: string): string {
    this.module(module).namespace = local;
    return local;
  }

  private isTaken(name: string): boolean {
    return this.localNames().includes(name);
  }

  /** Every name the file binds: its declarations, then each import's local name. Two equal entries are a collision. */
  localNames(): string[] {
    return [
      ...this.declared,
      ...[...this.modules.values()].flatMap((m) => [
        ...(m.namespace !== undefined ? [m.namespace] : []),
        ...m.names.values(),
      ]),
    ];
  }

  /**
   * The import declarations, joined by newlines; `declaration` writes one with named specifiers
   * (`importDecl` of src/generate/layout.ts: quoting and prettier's line breaking are the
   * emitter's side, through its `importLines`), `namespace` one of a whole module.
   */
  declarations(
    declaration: (specifiers: readonly string[], module: string, typeOnly: boolean) => string,
    namespace: (local: string, module: string) => string,
  ): string {
    const out: string[] = [];
    for (const [module, m] of [...this.modules].sort(([a], [b]) => compareModules(a, b))) {
      if (m.namespace !== undefined) out.push(namespace(m.namespace, module));
      if (m.names.size === 0) continue;
      const spec = (name: string): string => (m.names.get(name) === name ? name : `${name} as ${m.names.get(name)}`);
      const all = [...m.names.keys()];
      const values = all.filter((n) => !m.typeOnly.has(n)).sort(compareStrings);
      const types = all.filter((n) => m.typeOnly.has(n)).sort(compareStrings);
      const specifiers =
        values.length === 0 ? types.map(spec) : [...values.map(spec), ...types.map((n) => `type ${spec(n)}`)];
      out.push(declaration(specifiers, module, values.length === 0));
    }
    return out.join('\n');
  }
}

/** A piece of code that lays itself out for the column it starts at. */
export class AtColumn {
  /** `layout(column)` returns the code with its first line indented by `column` spaces. */
  constructor(readonly layout: (column: number) => string) {}
}

/**
 * Code laid out where its placeholder stands: in the template, `{{name}}` alone on its line after
 * the indentation the code has there (`  {{listSignature}}` inside an interface); `layout` gets
 * that indentation's width and returns the line(s) with it (the layout helpers of
 * src/generate/layout.ts take the width first: `atColumn((w) => signatureLine(w, 'list', …))`).
 */
export function atColumn(layout: (column: number) => string): AtColumn {
  return new AtColumn(layout);
}

/**
 * Renders `templates/<generator>/<name>.hbs` as `render` does, every {@link AtColumn} value of
 * `data` (at any depth of its plain objects and arrays) laid out at its placeholder's column.
 * Throws when such a placeholder does not stand alone after the indentation of its line.
 */
export function renderCode(generator: string, name: string, data: object): string {
  return layOut((d) => render(generator, name, d), data, `template ${generator}/${name}`);
}

const LINE_END = new Set(['\n', '\r', '\u2028', '\u2029']);

/**
 * `text` with each placeholder (`open`, a number, NUL) that stands alone on its line after spaces
 * replaced by `by(its column, its number)`, the spaces included; others are left. (What
 * `/^( *)<open>(\d+)\u0000$/gm` would replace, found with indexOf: a pattern of its own for each
 * call would be compiled and run by V8's interpreter each time.)
 */
function replacePlaceholders(text: string, open: string, by: (column: number, i: number) => string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + open.length)) {
    let start = at;
    while (start > from && text[start - 1] === ' ') start--;
    if (start > 0 && !LINE_END.has(text[start - 1])) continue;
    let end = at + open.length;
    while (text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end === at + open.length || text[end] !== '\u0000') continue;
    if (end + 1 < text.length && !LINE_END.has(text[end + 1])) continue;
    out += text.slice(from, start) + by(at - start, Number(text.slice(at + open.length, end)));
    from = end + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** {@link renderCode} over any template function (`what` names it in errors). */
export function layOut(template: (data: object) => string, data: object, what = 'template'): string {
  const pieces: AtColumn[] = [];
  const nonce = Math.random().toString(36).slice(2);
  const mark = (i: number): string => `\u0000col:${nonce}:${i}\u0000`;
  // the data with each AtColumn swapped for its placeholder: only the arrays and plain objects
  // above one are copied, the rest is handed over as it is (templates only read their data)
  const swap = (v: unknown): unknown => {
    if (v instanceof AtColumn) {
      pieces.push(v);
      return mark(pieces.length - 1);
    }
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = swap(v[i]);
        if (x !== v[i]) (out ??= v.slice())[i] = x;
      }
      return out ?? v;
    }
    if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      const o = v as Record<string, unknown>;
      let out: Record<string, unknown> | undefined;
      for (const k of Object.keys(o)) {
        const x = swap(o[k]);
        // (defined, not assigned: a `__proto__` key stays a key)
        if (x !== o[k])
          Object.defineProperty((out ??= { ...o }), k, {
            value: x,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
      return out ?? v;
    }
    return v;
  };
  const text = template(swap(data) as object);
  if (pieces.length === 0) return text;
  const out = replacePlaceholders(text, `\u0000col:${nonce}:`, (pad, i) => pieces[i].layout(pad));
  if (out.includes(`\u0000col:${nonce}:`))
    throw new Error(`${what}: a laid-out placeholder must stand alone on its line after the indentation`);
  return out;
}
