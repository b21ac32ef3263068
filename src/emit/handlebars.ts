// The handlebars environment: one isolated instance, compiled strict, without
// HTML escaping, with only our target-aware helpers. Every CRD-derived string
// reaches output through a helper that knows where it lands.

import Handlebars from 'handlebars';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSafePathSegment, pluralName, privateName, propertyKey, publicName, safeIdentifier, tsString } from '../model/naming.js';
import { importPath, jsdoc, literal } from './ts-text.js';

/** Folder holding `templates/<generator>/*.hbs` (package root, from src/emit or dist/emit). */
export const TEMPLATES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'templates');

type HelperFn = (...args: unknown[]) => string;

function str(v: unknown, helper: string): string {
  if (typeof v !== 'string') throw new Error(`template helper ${helper}: expected a string, got ${typeof v}`);
  return v;
}

/**
 * The helpers templates may call. Each takes model strings and returns code text:
 * - `tsString x` → `'…'` string literal
 * - `jsdoc x [indent]` → a JSDoc block (or nothing); a star-slash inside is neutralised
 * - `ident x` → binding-safe identifier (`default` → `default_`)
 * - `public x` / `private x` → UpperCamel / lowerCamel identifiers
 * - `plural x` → English plural (`DatabaseManager` → `DatabaseManagers`)
 * - `propKey x` → property key, quoted when not an identifier
 * - `literal x` → TS expression for any JSON value
 * - `importPath from to` → `./types.js`-style relative specifier
 * - `segment x` → a checked output path segment (throws when unsafe)
 */
export const HELPERS: Readonly<Record<string, HelperFn>> = {
  tsString: (x) => tsString(str(x, 'tsString')),
  jsdoc: (x, indent) => (x === undefined || x === null ? '' : jsdoc(str(x, 'jsdoc'), typeof indent === 'string' ? indent : '')),
  ident: (x) => safeIdentifier(str(x, 'ident')),
  public: (x) => publicName(str(x, 'public')),
  private: (x) => privateName(str(x, 'private')),
  plural: (x) => pluralName(str(x, 'plural')),
  propKey: (x) => propertyKey(str(x, 'propKey')),
  literal: (x) => literal(x),
  importPath: (from, to) => tsString(importPath(str(from, 'importPath'), str(to, 'importPath'))),
  segment: (x) => {
    const s = str(x, 'segment');
    if (!isSafePathSegment(s)) throw new Error(`template helper segment: unsafe path segment ${JSON.stringify(s)}`);
    return s;
  },
};

/** The isolated handlebars instance with {@link HELPERS} registered. */
export const hbs: typeof Handlebars = Handlebars.create();
for (const [name, fn] of Object.entries(HELPERS)) {
  // Handlebars passes an `options` hash last; drop it so helpers see only their arguments.
  hbs.registerHelper(name, (...args: unknown[]) => fn(...args.slice(0, -1)));
}

const KNOWN_HELPERS = Object.fromEntries(Object.keys(HELPERS).map((k) => [k, true])) as Record<string, true>;

/** Compile options used for every template: strict, no HTML escaping, only known helpers. */
export const COMPILE_OPTIONS = {
  strict: true,
  noEscape: true,
  knownHelpersOnly: true,
  knownHelpers: KNOWN_HELPERS,
} as const;

/** A compiled template: data in, text out. */
export type Template = (data: object) => string;

/** Compiles template source text with {@link COMPILE_OPTIONS}. */
export function compileTemplate(source: string): Template {
  const t = hbs.compile(source, COMPILE_OPTIONS);
  return (data) => t(data);
}

const cache = new Map<string, Template>();

/**
 * Loads and compiles `templates/<generator>/<name>.hbs` once (cached).
 * `loadTemplate('types', 'interface')` reads `templates/types/interface.hbs`.
 */
export function loadTemplate(generator: string, name: string): Template {
  const key = `${generator}/${name}`;
  let t = cache.get(key);
  if (!t) {
    t = compileTemplate(readFileSync(join(TEMPLATES_DIR, generator, `${name}.hbs`), 'utf8'));
    cache.set(key, t);
  }
  return t;
}

/** Renders `templates/<generator>/<name>.hbs` with `data`. */
export function render(generator: string, name: string, data: object): string {
  return loadTemplate(generator, name)(data);
}
