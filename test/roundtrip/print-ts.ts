// Test-only printer: model → annotated TypeScript (the format of docs/typescript-input.md), so
// that reading the printed files must give the model back. Returns the reason when the model
// holds something the TypeScript format cannot express.
import type { Kind, Model, ObjectNode, SchemaNode } from '../../src/model/types.js';
import { isIdentifierName, propertyKey, tsString } from '../../src/model/naming.js';
import { verbsOf } from '../../src/input/ts/verbs.js';
import { ALL_VERBS } from '../../src/model/types.js';
import { IMPLIED_PROPERTIES } from '../../src/input/ts/kinds.js';
import { QUANTITY_PATTERN } from '../../src/input/ts/schema.js';

/**
 * Printed files (relative path → text) and the CRD facts left out (`dropped`: what the TypeScript
 * format has no marker for, see {@link TS_DROPPED_FACTS}), or why the model cannot be printed.
 */
export type PrintResult = { files: Record<string, string>; dropped: string[] } | { unsupported: string };

/**
 * CRD facts (see CrdFacts in src/model/types.ts) the TypeScript format cannot say and the printer
 * leaves out: the CRD's metadata, which names were left to the apiserver's defaults (TypeScript
 * input always writes listKind and singular, as controller-gen does) and the order of the versions
 * (the readers sort them). Anything else the format cannot say makes the model unprintable.
 */
export const TS_DROPPED_FACTS = ['labels', 'annotations', 'defaultedNames', 'versionOrder'] as const;

/** The model without the {@link TS_DROPPED_FACTS} of its kinds' CRDs (a copy; `dropped` lists what was there). */
export function withoutDroppedFacts(model: Model): { model: Model; dropped: string[] } {
  const dropped = new Set<string>();
  const groups = model.groups.map((g) => ({
    ...g,
    versions: g.versions.map((v) => ({
      ...v,
      kinds: v.kinds.map((k) => {
        if (k.crd === undefined) return k;
        const facts: Record<string, unknown> = { ...k.crd };
        for (const f of TS_DROPPED_FACTS) {
          if (facts[f] !== undefined) dropped.add(f);
          delete facts[f];
        }
        const { crd: _crd, ...rest } = k;
        return Object.keys(facts).length > 0 ? { ...rest, crd: facts as Kind['crd'] } : rest;
      }),
    })),
  }));
  return { model: { ...model, groups }, dropped: [...dropped].sort() };
}

class Unsupported extends Error {}

const NS = 'crd';

/** The keywords the TypeScript reader gives IntOrString and Quantity (controller-gen's). */
const INT_OR_STRING_ANY_OF = JSON.stringify([{ type: 'integer' }, { type: 'string' }]);

/** The crdgen/types name of an int-or-string node: IntOrString or Quantity, by its keywords. */
function intOrStringType(node: SchemaNode): 'IntOrString' | 'Quantity' {
  const k = node.keywords ?? {};
  if (json(k['anyOf']) !== INT_OR_STRING_ANY_OF) throw new Unsupported('an int-or-string without its anyOf');
  const keys = Object.keys(k).sort().join();
  if (keys === 'anyOf') return 'IntOrString';
  if (keys === 'anyOf,pattern' && k['pattern'] === QUANTITY_PATTERN) return 'Quantity';
  throw new Unsupported(`int-or-string keywords ${keys}`);
}

/** Prints every group/version of the model as `<group>/<version>/types.ts`. */
export function printModel(full: Model): PrintResult {
  const { model, dropped } = withoutDroppedFacts(full);
  try {
    const files: Record<string, string> = {};
    const versionsOfKind = new Map<string, number>();
    for (const g of model.groups) {
      for (const v of g.versions)
        for (const k of v.kinds)
          versionsOfKind.set(`${g.name}/${k.kind}`, (versionsOfKind.get(`${g.name}/${k.kind}`) ?? 0) + 1);
    }
    for (const g of model.groups) {
      if (g.name === '') throw new Unsupported('the core group');
      for (const v of g.versions) {
        const p = new FilePrinter(g.name, v.name, (k) => (versionsOfKind.get(`${g.name}/${k}`) ?? 0) > 1);
        files[`${g.name}/${v.name}/types.ts`] = p.print(v.kinds);
      }
    }
    return { files, dropped };
  } catch (e) {
    if (e instanceof Unsupported) return { unsupported: e.message };
    throw e;
  }
}

/** A JSON string safe inside a `//` comment (no raw line separators). */
function q(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function json(v: unknown): string {
  return JSON.stringify(v)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function jsdoc(text: string, indent: string): string {
  if (text === '' || text.includes('\r') || text.includes('*\\/') || /[\u2028\u2029\u0085]/.test(text)) {
    throw new Unsupported(`description ${JSON.stringify(text)}`);
  }
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  const body = lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n');
  return `${indent}/**\n${body}\n${indent} */\n`;
}

class FilePrinter {
  private readonly decls = new Map<string, string>();
  /** title → the shape printed under it (JSON), to refuse two different nodes with one title. */
  private readonly titles = new Map<string, string>();
  private aliasCount = 0;
  private kindNames = new Set<string>();

  constructor(
    private readonly group: string,
    private readonly version: string,
    private readonly multiVersion: (kind: string) => boolean,
  ) {}

  print(kinds: Kind[]): string {
    this.kindNames = new Set(kinds.map((k) => k.kind));
    const out: string[] = [];
    for (const k of kinds) out.push(this.kind(k));
    return (
      `// +groupName=${this.group}\n// +versionName=${this.version}\nimport type * as ${NS} from 'crdgen/types';\n\n` +
      out.join('\n') +
      [...this.decls.values()].join('\n')
    );
  }

  private kind(k: Kind): string {
    if (k.crd !== undefined)
      throw new Unsupported(`CRD fields the kinds do not carry (${Object.keys(k.crd).join(', ')})`);
    if (k.crdVersion !== undefined)
      throw new Unsupported(`version fields the kind does not carry (${Object.keys(k.crdVersion).join(', ')})`);
    const root = k.schema;
    if (!root || root.type !== 'object') throw new Unsupported('a kind without an object schema');
    if (root.title !== k.kind) throw new Unsupported(`root title ${root.title} ≠ kind ${k.kind}`);
    if (k.listKind !== `${k.kind}List`) throw new Unsupported('a listKind other than <Kind>List');
    if (!k.storage && !this.multiVersion(k.kind)) throw new Unsupported('a single version that is not stored');
    let text = root.description !== undefined ? jsdoc(root.description, '') : '';
    const m: string[] = [];
    const hasStatus = k.subresources.status;
    if (k.verbs.length > 0) {
      m.push('genclient');
      const def = verbsOf({ genclient: true, noVerbs: false, noStatus: false, readonly: false, hasStatus });
      const same = 'verbs' in def && def.verbs.join() === k.verbs.join();
      if (!same) {
        if (!hasStatus && k.verbs.some((v) => v === 'updateStatus' || v === 'applyStatus')) {
          throw new Unsupported('status verbs without the status subresource');
        }
        if (k.verbs.join() !== ALL_VERBS.filter((v) => k.verbs.includes(v)).join())
          throw new Unsupported('verbs out of order');
        m.push(`genclient:onlyVerbs=${k.verbs.join(',')}`);
      }
    }
    if (k.noDeepCopy) m.push('k8s:deepcopy-gen=false');
    const res = [`path=${q(k.plural)}`, `singular=${q(k.singular)}`, `scope=${k.scope}`];
    if (k.shortNames.length > 0) res.push(`shortName=${k.shortNames.map(q).join(';')}`);
    if (k.categories.length > 0) res.push(`categories=${k.categories.map(q).join(';')}`);
    m.push(`kubebuilder:resource:${res.join(',')}`);
    if (k.subresources.status) m.push('kubebuilder:subresource:status');
    const sc = k.subresources.scale;
    if (sc) {
      m.push(
        `kubebuilder:subresource:scale:specpath=${q(sc.specReplicasPath)},statuspath=${q(sc.statusReplicasPath)}` +
          (sc.labelSelectorPath !== undefined ? `,selectorpath=${q(sc.labelSelectorPath)}` : ''),
      );
    }
    for (const c of k.printerColumns) {
      let s = `kubebuilder:printcolumn:name=${q(c.name)},type=${q(c.type)},JSONPath=${q(c.jsonPath)}`;
      if (c.description !== undefined) s += `,description=${q(c.description)}`;
      if (c.format !== undefined) s += `,format=${q(c.format)}`;
      if (c.priority !== undefined) s += `,priority=${c.priority}`;
      m.push(s);
    }
    if (this.multiVersion(k.kind) && k.storage) m.push('kubebuilder:storageversion');
    if (!k.served) m.push('kubebuilder:unservedversion');
    if (k.deprecated) {
      m.push(
        k.deprecationWarning !== undefined
          ? `kubebuilder:deprecatedversion:warning=${q(k.deprecationWarning)}`
          : 'kubebuilder:deprecatedversion',
      );
    } else if (k.deprecationWarning !== undefined)
      throw new Unsupported('a deprecation warning on a version that is not deprecated');
    m.push(...this.facets(root));
    text += m.map((s) => `// +${s}\n`).join('');
    text += `export interface ${k.kind} {\n`;
    const declared = new Set(root.properties.map((p) => p.name));
    const types: Record<string, string> = {
      apiVersion: tsString(`${this.group}/${this.version}`),
      kind: tsString(k.kind),
      metadata: `${NS}.ObjectMeta`,
    };
    // Implied members the schema leaves out are required (implied); declared ones are optional.
    for (const name of IMPLIED_PROPERTIES) if (!declared.has(name)) text += `  ${name}: ${types[name]};\n`;
    for (const p of root.properties) {
      if (IMPLIED_PROPERTIES.has(p.name)) text += this.impliedMember(p.name, p.required, p.schema, types[p.name]);
      else text += this.property(p.name, p.required, p.schema);
    }
    return text + '}\n';
  }

  /** apiVersion/kind (a string) or metadata (an untitled empty object) written into the schema. */
  private impliedMember(name: string, required: boolean, node: SchemaNode, type: string): string {
    const ok =
      name === 'metadata'
        ? node.type === 'object' && node.properties.length === 0 && node.title === undefined
        : node.type === 'string' && node.enum === undefined;
    if (!ok)
      throw new Unsupported(`a root ${name} that is not ${name === 'metadata' ? 'an empty object' : 'a string'}`);
    let text = node.description !== undefined ? jsdoc(node.description, '  ') : '';
    const m = this.facets(node);
    if (required) m.push('kubebuilder:validation:Required');
    text += m.map((x) => `  // +${x}\n`).join('');
    return `${text}  ${name}?: ${type};\n`;
  }

  private property(name: string, required: boolean, node: SchemaNode): string {
    let text = node.description !== undefined ? jsdoc(node.description, '  ') : '';
    text += this.facets(node)
      .map((s) => `  // +${s}\n`)
      .join('');
    return `${text}  ${propertyKey(name)}${required ? '' : '?'}: ${this.typeText(node)};\n`;
  }

  /** The type of a node in a position that takes no markers: an alias carries them if needed. */
  private nested(node: SchemaNode): string {
    const facets = this.facets(node);
    if (facets.length === 0 && node.description === undefined) return this.typeText(node);
    const name = `Alias${++this.aliasCount}_`;
    let text = node.description !== undefined ? jsdoc(node.description, '') : '';
    text += facets.map((s) => `// +${s}\n`).join('');
    this.decls.set(name, `${text}export type ${name} = ${this.typeText(node)};\n`);
    return name;
  }

  /** The bare type: a keyword, a crdgen/types name, a literal union, an array, a map or an interface. */
  private typeText(node: SchemaNode): string {
    switch (node.type) {
      case 'string':
        return node.enum !== undefined && node.enum.length > 0 ? node.enum.map(tsString).join(' | ') : 'string';
      case 'integer':
        return node.format === undefined ? `${NS}.integer` : `${NS}.${node.format}`;
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'int-or-string':
        return `${NS}.${intOrStringType(node)}`;
      case 'unknown':
        return node.object ? `${NS}.RawExtension` : `${NS}.JSONValue`;
      case 'array': {
        const inner = this.nested(node.items);
        return /^[\w.]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
      }
      case 'map':
        return `Record<string, ${this.nested(node.values)}>`;
      case 'object':
        return this.interface(node);
    }
  }

  private interface(node: ObjectNode): string {
    const title = node.title;
    if (
      title === undefined ||
      !isIdentifierName(title) ||
      title === NS ||
      this.kindNames.has(title) ||
      /^Alias\d+_$/.test(title)
    ) {
      throw new Unsupported(`an object titled ${String(title)}`);
    }
    // one shape under one title (the readers name identical objects alike): printed once
    const shape = JSON.stringify(node, (k, v: unknown) => (k === 'source' ? undefined : v));
    const prev = this.titles.get(title);
    if (prev !== undefined) {
      if (prev !== shape) throw new Unsupported(`two different objects titled ${title}`);
      return title;
    }
    this.titles.set(title, shape);
    const members = node.properties.map((p) => this.property(p.name, p.required, p.schema)).join('');
    const body = `export interface ${title} {\n${members}}\n`;
    this.decls.set(title, body);
    return title;
  }

  /** Markers for a node's facets (everything but its type, properties and description). */
  private facets(node: SchemaNode): string[] {
    const V = 'kubebuilder:validation:';
    const m: string[] = [];
    if (node.type === 'int-or-string') intOrStringType(node);
    else if (node.keywords !== undefined)
      throw new Unsupported(`schema keywords ${Object.keys(node.keywords).join(', ')}`);
    if (node.nullable === false) throw new Unsupported('nullable: false');
    if (node.nullable) m.push('nullable');
    if (node.default !== undefined) m.push(`kubebuilder:default=${json(node.default)}`);
    for (const r of node.validations ?? []) {
      let s = `${V}XValidation:rule=${q(r.rule)}`;
      if (r.message !== undefined) s += `,message=${q(r.message)}`;
      if (r.messageExpression !== undefined) s += `,messageExpression=${q(r.messageExpression)}`;
      if (r.reason !== undefined) s += `,reason=${q(r.reason)}`;
      if (r.fieldPath !== undefined) s += `,fieldPath=${q(r.fieldPath)}`;
      if (r.optionalOldSelf !== undefined) s += `,optionalOldSelf=${r.optionalOldSelf}`;
      m.push(s);
    }
    switch (node.type) {
      case 'string':
        if (node.enum !== undefined && node.enum.length === 0) m.push(`${V}Enum=`);
        if (node.format !== undefined) m.push(`${V}Format=${q(node.format)}`);
        if (node.pattern !== undefined) m.push(`${V}Pattern=${q(node.pattern)}`);
        if (node.minLength !== undefined) m.push(`${V}MinLength=${node.minLength}`);
        if (node.maxLength !== undefined) m.push(`${V}MaxLength=${node.maxLength}`);
        break;
      case 'integer':
      case 'number':
        if (node.type === 'number' && node.format !== undefined) m.push(`${V}Format=${q(node.format)}`);
        if (node.enum !== undefined) m.push(`${V}Enum=${node.enum.map(String).join(';')}`);
        if (node.minimum !== undefined) m.push(`${V}Minimum=${node.minimum}`);
        if (node.maximum !== undefined) m.push(`${V}Maximum=${node.maximum}`);
        if (node.exclusiveMinimum !== undefined) m.push(`${V}ExclusiveMinimum=${node.exclusiveMinimum}`);
        if (node.exclusiveMaximum !== undefined) m.push(`${V}ExclusiveMaximum=${node.exclusiveMaximum}`);
        if (node.multipleOf !== undefined) m.push(`${V}MultipleOf=${node.multipleOf}`);
        break;
      case 'array':
        if (node.minItems !== undefined) m.push(`${V}MinItems=${node.minItems}`);
        if (node.maxItems !== undefined) m.push(`${V}MaxItems=${node.maxItems}`);
        if (node.uniqueItems !== undefined) m.push(`${V}UniqueItems=${node.uniqueItems}`);
        if (node.listType !== undefined) m.push(`listType=${node.listType}`);
        for (const key of node.listMapKeys ?? []) m.push(`listMapKey=${q(key)}`);
        break;
      case 'map':
      case 'object':
        if (node.minProperties !== undefined) m.push(`${V}MinProperties=${node.minProperties}`);
        if (node.maxProperties !== undefined) m.push(`${V}MaxProperties=${node.maxProperties}`);
        if (node.type === 'object') {
          if (node.preserveUnknownFields) m.push('kubebuilder:pruning:PreserveUnknownFields');
          if (node.embeddedResource) m.push(`${V}EmbeddedResource`);
        }
        if (node.mapType !== undefined) m.push(`mapType=${node.mapType}`);
        break;
      default:
        break;
    }
    return m;
  }
}
