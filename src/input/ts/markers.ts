// The marker catalogue: every `// +marker` the TypeScript reader knows, where it may stand,
// and how its value parses. Parsing a marker comment gives a ParsedMarker or a diagnostic.
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { ALL_VERBS, type SourcePos } from '../../model/types.js';
import { tsDiag } from './diagnostics.js';
import {
  MarkerSyntaxError,
  parseArgs,
  parseBool,
  parseInt32,
  parseJson,
  parseList,
  parseNumber,
  parseString,
  type ListItem,
} from './marker-grammar.js';

/**
 * Where a marker may stand: the file (or a folder's doc.ts), a kind's interface, any named
 * type (interface or type alias, including kinds), or a property.
 */
export type MarkerTarget = 'file' | 'kind' | 'type' | 'field';

/** How the text after the name parses. */
export type ValueForm =
  | { form: 'flag' }
  | { form: 'value'; type: ValueType }
  | { form: 'args'; args: Record<string, ArgSpec>; optional?: boolean };

/** Types of single values. */
export type ValueType = 'int' | 'number' | 'string' | 'bool' | 'json' | 'list' | 'verbs';

/** One named argument. */
export interface ArgSpec {
  type: ValueType;
  required?: boolean;
}

/** A catalogue entry. */
export interface MarkerDef {
  name: string;
  targets: MarkerTarget[];
  value: ValueForm;
}

const SCHEMA: MarkerTarget[] = ['type', 'field'];
const v = (type: ValueType): ValueForm => ({ form: 'value', type });
const flag: ValueForm = { form: 'flag' };

/** Every marker the reader knows. */
export const MARKERS: readonly MarkerDef[] = [
  // file level (doc.ts or the file's leading comment)
  { name: 'groupName', targets: ['file'], value: v('string') },
  { name: 'versionName', targets: ['file'], value: v('string') },
  // client-gen
  { name: 'genclient', targets: ['kind'], value: flag },
  { name: 'genclient:nonNamespaced', targets: ['kind'], value: flag },
  { name: 'genclient:noStatus', targets: ['kind'], value: flag },
  { name: 'genclient:noVerbs', targets: ['kind'], value: flag },
  { name: 'genclient:readonly', targets: ['kind'], value: flag },
  { name: 'genclient:onlyVerbs', targets: ['kind'], value: v('verbs') },
  { name: 'genclient:skipVerbs', targets: ['kind'], value: v('verbs') },
  { name: 'k8s:deepcopy-gen', targets: ['kind'], value: v('bool') },
  // controller-gen, kind level
  {
    name: 'kubebuilder:resource',
    targets: ['kind'],
    value: {
      form: 'args',
      args: {
        path: { type: 'string' },
        singular: { type: 'string' },
        shortName: { type: 'list' },
        categories: { type: 'list' },
        scope: { type: 'string' },
      },
    },
  },
  { name: 'kubebuilder:subresource:status', targets: ['kind'], value: flag },
  {
    name: 'kubebuilder:subresource:scale',
    targets: ['kind'],
    value: {
      form: 'args',
      args: {
        specpath: { type: 'string', required: true },
        statuspath: { type: 'string', required: true },
        selectorpath: { type: 'string' },
      },
    },
  },
  {
    name: 'kubebuilder:printcolumn',
    targets: ['kind'],
    value: {
      form: 'args',
      args: {
        name: { type: 'string', required: true },
        type: { type: 'string', required: true },
        JSONPath: { type: 'string', required: true },
        description: { type: 'string' },
        format: { type: 'string' },
        priority: { type: 'int' },
      },
    },
  },
  { name: 'kubebuilder:storageversion', targets: ['kind'], value: flag },
  { name: 'kubebuilder:unservedversion', targets: ['kind'], value: flag },
  {
    name: 'kubebuilder:deprecatedversion',
    targets: ['kind'],
    value: { form: 'args', args: { warning: { type: 'string' } }, optional: true },
  },
  // controller-gen, schema level (a named type or a property)
  { name: 'kubebuilder:validation:Minimum', targets: SCHEMA, value: v('number') },
  { name: 'kubebuilder:validation:Maximum', targets: SCHEMA, value: v('number') },
  { name: 'kubebuilder:validation:ExclusiveMinimum', targets: SCHEMA, value: v('bool') },
  { name: 'kubebuilder:validation:ExclusiveMaximum', targets: SCHEMA, value: v('bool') },
  { name: 'kubebuilder:validation:MultipleOf', targets: SCHEMA, value: v('number') },
  { name: 'kubebuilder:validation:MinLength', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:MaxLength', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:Pattern', targets: SCHEMA, value: v('string') },
  { name: 'kubebuilder:validation:Enum', targets: SCHEMA, value: v('list') },
  { name: 'kubebuilder:validation:MinItems', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:MaxItems', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:UniqueItems', targets: SCHEMA, value: v('bool') },
  { name: 'kubebuilder:validation:MinProperties', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:MaxProperties', targets: SCHEMA, value: v('int') },
  { name: 'kubebuilder:validation:Format', targets: SCHEMA, value: v('string') },
  { name: 'kubebuilder:validation:Optional', targets: ['field'], value: flag },
  { name: 'kubebuilder:validation:Required', targets: ['field'], value: flag },
  { name: 'optional', targets: ['field'], value: flag },
  {
    name: 'kubebuilder:validation:XValidation',
    targets: SCHEMA,
    value: {
      form: 'args',
      args: {
        rule: { type: 'string', required: true },
        message: { type: 'string' },
        messageExpression: { type: 'string' },
        reason: { type: 'string' },
        fieldPath: { type: 'string' },
        optionalOldSelf: { type: 'bool' },
      },
    },
  },
  { name: 'kubebuilder:validation:EmbeddedResource', targets: SCHEMA, value: flag },
  { name: 'kubebuilder:pruning:PreserveUnknownFields', targets: SCHEMA, value: flag },
  { name: 'kubebuilder:default', targets: SCHEMA, value: v('json') },
  { name: 'listType', targets: SCHEMA, value: v('string') },
  { name: 'listMapKey', targets: SCHEMA, value: v('string') },
  { name: 'mapType', targets: SCHEMA, value: v('string') },
  { name: 'nullable', targets: SCHEMA, value: flag },
];

const BY_NAME = new Map(MARKERS.map((m) => [m.name, m]));

/** The prefix controller-gen uses to aim a validation marker at an array's items. */
const ITEMS_PREFIX = 'kubebuilder:validation:items:';

/** A marker comment found in the source, before parsing. */
export interface RawMarker {
  /** Text after the `+`, trimmed. */
  text: string;
  pos: SourcePos;
}

/** A successfully parsed marker. */
export interface ParsedMarker {
  def: MarkerDef;
  /** The parsed value: true (flag), a scalar, ListItem[], string[] (verbs) or a Map of args. */
  value: unknown;
  /** How many `items:` levels deep the marker aims (0 = the node itself). */
  itemsDepth: number;
  pos: SourcePos;
  /** The marker as written, for messages. */
  text: string;
}

/** Parses one marker comment; unknown names and bad values give a diagnostic instead. */
export function parseMarker(raw: RawMarker): ParsedMarker | Diagnostic {
  let text = raw.text;
  let itemsDepth = 0;
  while (text.startsWith(ITEMS_PREFIX)) {
    itemsDepth++;
    text = 'kubebuilder:validation:' + text.slice(ITEMS_PREFIX.length);
  }
  const def = lookup(text);
  if (!def) {
    const name = text.split(/[=\s]/)[0] ?? text;
    const near = suggest(name);
    return tsDiag('TS005', `unknown marker "+${name}"`, raw.pos, near ? `did you mean "+${near}"?` : undefined);
  }
  if (itemsDepth > 0 && !def.targets.includes('field')) {
    return tsDiag('TS006', `"+${raw.text}": only schema markers can aim at items`, raw.pos);
  }
  const rest = text.slice(def.name.length);
  try {
    return { def, value: parseValue(def, rest), itemsDepth, pos: raw.pos, text: raw.text };
  } catch (e) {
    if (e instanceof MarkerSyntaxError) {
      return tsDiag('TS007', `"+${raw.text}": ${e.message}`, raw.pos, usage(def));
    }
    throw e;
  }
}

/** The longest catalogue name that `text` starts with, followed by end, `=` or `:`. */
function lookup(text: string): MarkerDef | undefined {
  let best: MarkerDef | undefined;
  for (const def of MARKERS) {
    if (!text.startsWith(def.name)) continue;
    const next = text.charAt(def.name.length);
    if (next !== '' && next !== '=' && next !== ':') continue;
    if (!best || def.name.length > best.name.length) best = def;
  }
  // `+genclient:foo` is an unknown genclient marker, not `+genclient` with a value.
  if (best && best.value.form === 'flag' && text.length > best.name.length) {
    const next = text.charAt(best.name.length);
    if (next === ':') return undefined;
  }
  return best;
}

function parseValue(def: MarkerDef, rest: string): unknown {
  const form = def.value;
  if (form.form === 'flag') {
    if (rest !== '') throw new MarkerSyntaxError(`takes no value`);
    return true;
  }
  if (form.form === 'value') {
    if (!rest.startsWith('=')) throw new MarkerSyntaxError(`needs a value`);
    return parseTyped(form.type, rest.slice(1));
  }
  if (rest === '') {
    if (form.optional) return new Map<string, unknown>();
    throw new MarkerSyntaxError(`needs arguments`);
  }
  if (!rest.startsWith(':')) throw new MarkerSyntaxError(`arguments follow a ":"`);
  const args = parseArgs(rest.slice(1));
  const out = new Map<string, unknown>();
  for (const [key, value] of args) {
    const spec = form.args[key];
    if (!spec) {
      throw new MarkerSyntaxError(`unknown argument "${key}" (known: ${Object.keys(form.args).join(', ')})`);
    }
    out.set(key, parseTyped(spec.type, value));
  }
  for (const [key, spec] of Object.entries(form.args)) {
    if (spec.required && !out.has(key)) throw new MarkerSyntaxError(`missing argument "${key}"`);
  }
  return out;
}

const VERBS = new Set<string>(ALL_VERBS);

function parseTyped(type: ValueType, raw: string): unknown {
  switch (type) {
    case 'int':
      return parseInt32(raw);
    case 'number':
      return parseNumber(raw);
    case 'bool':
      return parseBool(raw);
    case 'json':
      return parseJson(raw);
    case 'list':
      return parseList(raw) satisfies ListItem[];
    case 'string': {
      const s = parseString(raw);
      if (s === '') throw new MarkerSyntaxError('empty value');
      return s;
    }
    case 'verbs': {
      const verbs = raw.split(',').map((s) => s.trim());
      for (const verb of verbs) {
        if (!VERBS.has(verb)) throw new MarkerSyntaxError(`unknown verb "${verb}" (known: ${[...VERBS].join(', ')})`);
      }
      return verbs;
    }
  }
}

function usage(def: MarkerDef): string {
  const f = def.value;
  if (f.form === 'flag') return `write it as "+${def.name}"`;
  if (f.form === 'value') return `write it as "+${def.name}=<${f.type}>"`;
  return `write it as "+${def.name}:${Object.keys(f.args)
    .map((k) => `${k}=<${f.args[k]?.type}>`)
    .join(',')}"`;
}

/** The closest known marker name to `name`, if close enough to be a likely typo. */
export function suggest(name: string): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const def of MARKERS) {
    const d = distance(name.toLowerCase(), def.name.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = def.name;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** Looks a marker definition up by exact name. */
export function markerDef(name: string): MarkerDef | undefined {
  return BY_NAME.get(name);
}
