// The handlebars environment: one isolated instance, compiled strict, without
// HTML escaping, with only our target-aware helpers. Every CRD-derived string
// reaches output through a helper that knows where it lands.

import type HandlebarsType from 'handlebars';
import HandlebarsRuntime from 'handlebars/runtime.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isSafePathSegment,
  pluralName,
  privateName,
  propertyKey,
  publicName,
  safeIdentifier,
  tsString,
} from '../model/naming.js';
import { importPath, jsdoc, literal } from './ts-text.js';

/** The package root (from src/emit or dist/emit). */
const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Folder holding `templates/<generator>/*.hbs`. */
export const TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates');

/** Folder holding the starters: `starters/<name>/starter.json` and its `*.hbs` templates. */
export const STARTERS_DIR = join(PACKAGE_ROOT, 'starters');

type HelperFn = (...args: unknown[]) => unknown;

function str(v: unknown, helper: string): string {
  if (typeof v !== 'string') throw new Error(`template helper ${helper}: expected a string, got ${typeof v}`);
  return v;
}

/**
 * The helpers templates may call. Each takes model strings and returns code text:
 * - `tsString x` → a string literal, quoted as prettier quotes it (double unless more `"` than `'`)
 * - `jsdoc x [indent]` → a JSDoc block (or nothing); a star-slash inside is neutralised
 * - `ident x` → binding-safe identifier (`default` → `default_`)
 * - `public x` / `private x` → UpperCamel / lowerCamel identifiers
 * - `plural x` → English plural (`DatabaseManager` → `DatabaseManagers`)
 * - `propKey x` → property key, quoted when not an identifier
 * - `literal x` → TS expression for any JSON value
 * - `importPath from to` → `./types.js`-style relative specifier
 * - `segment x` → a checked output path segment (throws when unsafe)
 * - `or a b …` / `and a b …` → whether any / every argument is truthy (for `{{#if (or a b)}}`)
 */
export const HELPERS: Readonly<Record<string, HelperFn>> = {
  tsString: (x) => tsString(str(x, 'tsString')),
  jsdoc: (x, indent) =>
    x === undefined || x === null ? '' : jsdoc(str(x, 'jsdoc'), typeof indent === 'string' ? indent : ''),
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
  or: (...xs) => xs.some(Boolean),
  and: (...xs) => xs.every(Boolean),
};

// handlebars' runtime build: no compiler (templates come precompiled; the compiler is loaded
// only to compile a template that changed since the build). Its typings are the full package's.
const Handlebars = HandlebarsRuntime as unknown as typeof HandlebarsType;

/** The isolated handlebars (runtime) instance with {@link HELPERS} registered. */
export const hbs: typeof HandlebarsType = Handlebars.create();
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

const require = createRequire(import.meta.url);

/** A template as `Handlebars.precompile` writes it (a JavaScript object). */
type TemplateSpec = Parameters<typeof hbs.template>[0];

/** Compiles template source text with {@link COMPILE_OPTIONS} (the compiler is loaded on first use). */
export function compileTemplate(source: string): Template {
  const compiler = require('handlebars') as typeof HandlebarsType;
  // precompile + template is what compile does, on the instance that has our helpers;
  // precompile is typed as the spec object but returns it as JavaScript source text
  const code = compiler.precompile(source, COMPILE_OPTIONS) as unknown as string;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating Handlebars' own output for our templates is how its compile works
  const evaluate = new Function(`return ${code};`) as () => TemplateSpec;
  const spec = evaluate();
  const t = hbs.template(spec);
  return (data) => t(data);
}

/** Where the build writes every template precompiled (scripts/build-precompiled.mjs), beside this module in dist/. */
export const PRECOMPILED_TEMPLATES = './templates.precompiled.cjs';

let precompiled: Readonly<Record<string, { source: string; spec: TemplateSpec }>> | undefined;

/** The build's precompiled templates (none when running from src/). */
function precompiledTemplates(): Readonly<Record<string, { source: string; spec: TemplateSpec }>> {
  if (!precompiled) {
    try {
      precompiled = require(PRECOMPILED_TEMPLATES) as Record<string, { source: string; spec: TemplateSpec }>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
      precompiled = {};
    }
  }
  return precompiled;
}

const cache = new Map<string, Template>();

/**
 * Loads `templates/<generator>/<name>.hbs` once (cached): the build's precompiled template
 * while the file still has the text it was built from, else compiled now.
 * `loadTemplate('types', 'interface')` reads `templates/types/interface.hbs`; a generator
 * `starters/<name>` reads the starter's folder (`starters/<name>/<template>.hbs`).
 */
export function loadTemplate(generator: string, name: string): Template {
  const key = `${generator}/${name}`;
  let t = cache.get(key);
  if (!t) {
    const starter = /^starters\/([^/]+)$/.exec(generator);
    const file = starter
      ? join(STARTERS_DIR, starter[1], `${name}.hbs`)
      : join(TEMPLATES_DIR, generator, `${name}.hbs`);
    const source = readFileSync(file, 'utf8');
    const built = precompiledTemplates()[key];
    if (built && built.source === source) {
      const run = hbs.template(built.spec);
      t = (data) => run(data);
    } else t = compileTemplate(source);
    cache.set(key, t);
  }
  return t;
}

/** Renders `templates/<generator>/<name>.hbs` with `data`. */
export function render(generator: string, name: string, data: object): string {
  return loadTemplate(generator, name)(data);
}
