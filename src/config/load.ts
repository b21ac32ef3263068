// Loading a config file with source positions: YAML (and JSON, which the `yaml`
// parser reads too) through `yaml`'s Document and LineCounter, checked with ajv
// against schema/crdgen.config.schema.json. Every problem is a diagnostic with
// file:line:col; nothing here throws on bad input.

import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ConfigFile, ConfigTarget, LoadedConfig, TargetSettings } from './types.js';

/** Absolute path of the published JSON Schema (shipped in the package's schema/ folder). */
export const CONFIG_SCHEMA_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'schema',
  'crdgen.config.schema.json',
);

let validator: ValidateFunction | undefined;
function validate(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
    validator = ajv.compile(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as object);
  }
  return validator;
}

/** Result of {@link loadConfig}: the config when valid, and every problem found. */
export interface ConfigLoadResult {
  config?: LoadedConfig;
  diagnostics: Diagnostic[];
}

type Seg = string | number;

function decodePointer(p: string): Seg[] {
  if (p === '') return [];
  return p
    .slice(1)
    .split('/')
    .map((s) => {
      const t = s.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(t) ? Number(t) : t;
    });
}

function showPath(path: readonly Seg[]): string {
  let s = '';
  for (const p of path)
    s +=
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(p)
          ? `${s === '' ? '' : '.'}${p}`
          : `[${JSON.stringify(p)}]`;
  return s === '' ? '(top level)' : s;
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(
        d[i - 1][j] + 1,
        d[i][j - 1] + 1,
        d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
    }
  }
  return d[a.length][b.length];
}

/** The closest of `candidates` to `word`, when close enough to be a typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Positions in one parsed document, under a prefix (["crdgen"] for package.json). */
class Positions {
  constructor(
    private readonly doc: Document,
    private readonly lc: LineCounter,
    private readonly prefix: readonly Seg[],
  ) {}

  private pos(offset: number): { line: number; col: number } {
    const p = this.lc.linePos(offset);
    return { line: p.line, col: p.col };
  }

  /** Position of the value at `path` (or of the nearest ancestor that exists). */
  at(path: readonly Seg[]): { line: number; col: number } | undefined {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn([...this.prefix, ...path.slice(0, n)], true);
      if (isNode(node) && node.range) return this.pos(node.range[0]);
    }
    const root = this.doc.contents;
    return root?.range ? this.pos(root.range[0]) : undefined;
  }

  /** Position of the key `key` in the mapping at `path`. */
  keyAt(path: readonly Seg[], key: string): { line: number; col: number } | undefined {
    const map =
      path.length === 0 && this.prefix.length === 0
        ? this.doc.contents
        : this.doc.getIn([...this.prefix, ...path], true);
    if (isMap(map)) {
      for (const item of map.items) {
        if (isPair(item) && isScalar(item.key) && String(item.key.value) === key && item.key.range)
          return this.pos(item.key.range[0]);
      }
    }
    return this.at(path);
  }
}

function schemaKeys(err: ErrorObject): string[] {
  const props = (err.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}

function describe(err: ErrorObject, path: readonly Seg[]): { message: string; hint?: string; keyPath?: string } {
  const where = showPath(path);
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = (err.params as { additionalProperty: string }).additionalProperty;
      const close = didYouMean(key, schemaKeys(err));
      return {
        message: `unknown key ${JSON.stringify(key)} in ${where}`,
        keyPath: key,
        ...(close ? { hint: `did you mean "${close}"?` } : {}),
      };
    }
    case 'type':
      return { message: `${where} must be ${(err.params as { type: string }).type}` };
    case 'enum': {
      const values = (err.params as { allowedValues: unknown[] }).allowedValues;
      const close = typeof err.data === 'string' ? didYouMean(err.data, values.map(String)) : undefined;
      // generators: the names, then their +name/-name forms and `all`, shown once
      const names = values.map(String).filter((v) => !v.startsWith('+') && !v.startsWith('-') && v !== 'all');
      const changes =
        names.length < values.length ? ' (each also as +name or -name, a change to the defaults; or all)' : '';
      return {
        message: `${where}: ${JSON.stringify(err.data)} is not one of ${names.map((v) => JSON.stringify(v)).join(', ')}${changes}`,
        ...(close ? { hint: `did you mean "${close}"?` } : {}),
      };
    }
    case 'oneOf':
      return { message: `${where} must be a string or a non-empty list of strings` };
    case 'pattern':
      if (path.length >= 2 && path.at(-2) === 'image' && path.at(-1) === 'base')
        return {
          message: `${where}: ${JSON.stringify(err.data)} is not node22-alpine, distroless nor an image reference`,
          hint: 'an image reference is [registry/]name[:tag][@digest] with a lowercase name, e.g. node:24-alpine or gcr.io/distroless/nodejs22-debian12:nonroot',
        };
      return { message: `${where} ${err.message ?? 'is invalid'}` };
    default:
      return { message: `${where} ${err.message ?? 'is invalid'}` };
  }
}

function asList(v: string | string[] | undefined): string[] | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? [v] : v;
}

/** Merges top-level settings into each target; reports targets missing inputs or out. */
function toTargets(cfg: ConfigFile, positions: Positions, file: string, diagnostics: Diagnostic[]): ConfigTarget[] {
  const { targets, $schema: _schema, ...shared } = cfg;
  const list: Array<TargetSettings & { name?: string }> = targets ?? [{}];
  const out: ConfigTarget[] = [];
  list.forEach((t, i) => {
    const merged: TargetSettings & { name?: string } = { ...shared, ...t };
    const inputs = asList(merged.inputs);
    const path: Seg[] = targets ? ['targets', i] : [];
    const missing = [inputs === undefined ? 'inputs' : '', merged.out === undefined ? 'out' : ''].filter(
      (s) => s !== '',
    );
    if (missing.length > 0 || inputs === undefined || merged.out === undefined) {
      diagnostics.push({
        severity: 'error',
        code: 'CFG003',
        file,
        ...positions.at(path),
        message: `${targets ? `targets[${i}]` : 'the config'} needs ${missing.map((m) => `"${m}"`).join(' and ')}`,
        hint: targets ? 'set it in the target or at the top level' : 'set "inputs" and "out", or list "targets"',
      });
      return;
    }
    const { name, inputs: _i, out: o, ...rest } = merged;
    out.push({ ...rest, name: name ?? o, inputs, out: o });
  });
  return out;
}

/**
 * Reads and validates the config at `absPath`. `display` is the name used in
 * diagnostics (e.g. relative to the current folder). A package.json is read for
 * its "crdgen" key. Unknown keys, wrong types and missing inputs/out are
 * diagnostics with the line and column of the offending key or value.
 * `command` is how the user runs crdgen, for hints (`npx crdgen init`).
 */
export function loadConfig(absPath: string, display: string, command = 'crdgen'): ConfigLoadResult {
  let text: string;
  try {
    text = readFileSync(absPath, 'utf8');
  } catch (e) {
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'CFG001',
          file: display,
          message: `cannot read config: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        },
      ],
    };
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      diagnostics: doc.errors.map((e) => {
        const p = lc.linePos(e.pos[0]);
        return {
          severity: 'error' as const,
          code: 'CFG002',
          file: display,
          line: p.line,
          col: p.col,
          message: e.message.split('\n')[0] ?? 'syntax error',
        };
      }),
    };
  }
  const isPkg = basename(absPath) === 'package.json';
  const prefix: Seg[] = isPkg ? ['crdgen'] : [];
  const whole = doc.toJS({ maxAliasCount: 100 }) as unknown;
  const value = isPkg ? (whole as Record<string, unknown> | null)?.['crdgen'] : whole;
  const positions = new Positions(doc, lc, prefix);
  const diagnostics: Diagnostic[] = [];
  const v = validate();
  if (value === null || value === undefined || !v(value)) {
    if (value === null || value === undefined) {
      diagnostics.push({
        severity: 'error',
        code: 'CFG003',
        file: display,
        ...positions.at([]),
        message: 'the config is empty',
        hint: `run \`${command} init\` for a starter config`,
      });
    }
    for (const err of v.errors ?? []) {
      if (err.keyword === 'if' || (err.keyword !== 'oneOf' && /\/oneOf\//.test(err.schemaPath))) continue; // oneOf branches: one message for the whole
      const path = decodePointer(err.instancePath);
      const d = describe(err, path);
      const pos = d.keyPath !== undefined ? positions.keyAt(path, d.keyPath) : positions.at(path);
      diagnostics.push({
        severity: 'error',
        code: 'CFG003',
        file: display,
        ...pos,
        message: d.message,
        ...(d.hint ? { hint: d.hint } : {}),
      });
    }
    diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
    return { diagnostics };
  }
  const targets = toTargets(value, positions, display, diagnostics);
  if (diagnostics.length > 0) return { diagnostics };
  return { config: { file: absPath, dir: dirname(absPath), targets }, diagnostics };
}
