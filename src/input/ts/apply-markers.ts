// Schema markers (validation, defaults, list/map types, pruning) applied to a schema node.
// A marker that does not fit the node's type is a diagnostic, never ignored.
import type { ObjectNode, SchemaNode, ValidationRule } from '../../model/types.js';
import type { ReadCtx } from './context.js';
import { tsDiag } from './diagnostics.js';
import type { ListItem } from './marker-grammar.js';
import type { ParsedMarker } from './markers.js';

const V = 'kubebuilder:validation:';

/**
 * Applies every schema marker in `markers` to `node` (in order) and returns the node, which
 * may be replaced (EmbeddedResource turns a RawExtension into an object node).
 */
export function applySchemaMarkers(ctx: ReadCtx, node: SchemaNode, markers: ParsedMarker[]): SchemaNode {
  for (const m of markers) {
    if (m.def.targets.includes('kind') || m.def.targets.includes('file')) continue;
    node = applyAt(ctx, node, m, m.itemsDepth);
  }
  return node;
}

function applyAt(ctx: ReadCtx, node: SchemaNode, m: ParsedMarker, depth: number): SchemaNode {
  if (depth === 0) return applyOne(ctx, node, m);
  if (node.type !== 'array') {
    ctx.report(tsDiag('TS006', `"+${m.text}" aims at array items, but the type is ${describe(node)}`, m.pos));
    return node;
  }
  node.items = applyAt(ctx, node.items, m, depth - 1);
  return node;
}

function wrong(ctx: ReadCtx, m: ParsedMarker, node: SchemaNode, wants: string): void {
  ctx.report(tsDiag('TS006', `"+${m.text}" applies to ${wants}, but the type is ${describe(node)}`, m.pos));
}

function describe(node: SchemaNode): string {
  switch (node.type) {
    case 'object':
      return node.title ? `the object ${node.title}` : 'an object';
    case 'map':
      return 'a map';
    case 'array':
      return 'an array';
    case 'int-or-string':
      return 'IntOrString';
    case 'unknown':
      return 'an unknown (preserved) value';
    case 'integer':
      return 'an integer';
    default:
      return `a ${node.type}`;
  }
}

function applyOne(ctx: ReadCtx, node: SchemaNode, m: ParsedMarker): SchemaNode {
  const name = m.def.name;
  const value = m.value;
  switch (name) {
    case V + 'Minimum':
    case V + 'Maximum':
    case V + 'MultipleOf':
    case V + 'ExclusiveMinimum':
    case V + 'ExclusiveMaximum': {
      if (node.type !== 'integer' && node.type !== 'number') {
        wrong(ctx, m, node, 'numbers');
        return node;
      }
      const key = name.slice(V.length);
      const prop = (key.charAt(0).toLowerCase() + key.slice(1)) as
        'minimum' | 'maximum' | 'multipleOf' | 'exclusiveMinimum' | 'exclusiveMaximum';
      (node as unknown as Record<string, unknown>)[prop] = value;
      return node;
    }
    case V + 'MinLength':
    case V + 'MaxLength':
    case V + 'Pattern': {
      if (node.type !== 'string') {
        wrong(ctx, m, node, 'strings');
        return node;
      }
      if (name === V + 'MinLength') node.minLength = value as number;
      else if (name === V + 'MaxLength') node.maxLength = value as number;
      else node.pattern = value as string;
      return node;
    }
    case V + 'Format': {
      const f = value as string;
      if (node.type === 'string' || node.type === 'number') node.format = f;
      else if (node.type === 'integer') {
        if (f !== 'int32' && f !== 'int64') {
          ctx.report(tsDiag('TS007', `"+${m.text}": an integer's format is int32 or int64`, m.pos));
        } else node.format = f;
      } else wrong(ctx, m, node, 'strings and numbers');
      return node;
    }
    case V + 'Enum':
      applyEnum(ctx, node, m, value as ListItem[]);
      return node;
    case V + 'MinItems':
    case V + 'MaxItems':
    case V + 'UniqueItems':
      if (node.type !== 'array') {
        wrong(ctx, m, node, 'arrays');
        return node;
      }
      if (name === V + 'MinItems') node.minItems = value as number;
      else if (name === V + 'MaxItems') node.maxItems = value as number;
      else node.uniqueItems = value as boolean;
      return node;
    case V + 'MinProperties':
    case V + 'MaxProperties':
      if (node.type !== 'object' && node.type !== 'map') {
        wrong(ctx, m, node, 'objects and maps');
        return node;
      }
      if (name === V + 'MinProperties') node.minProperties = value as number;
      else node.maxProperties = value as number;
      return node;
    case V + 'XValidation': {
      const args = value as Map<string, unknown>;
      const rule: ValidationRule = { rule: args.get('rule') as string };
      for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
        const s = args.get(k);
        if (typeof s === 'string') rule[k] = s;
      }
      const oos = args.get('optionalOldSelf');
      if (typeof oos === 'boolean') rule.optionalOldSelf = oos;
      (node.validations ??= []).push(rule);
      return node;
    }
    case V + 'EmbeddedResource':
      if (node.type === 'unknown' && node.object) return embeddedFromUnknown(node);
      if (node.type !== 'object') {
        wrong(ctx, m, node, 'objects (an interface or RawExtension)');
        return node;
      }
      node.embeddedResource = true;
      return node;
    case 'kubebuilder:pruning:PreserveUnknownFields':
      if (node.type === 'unknown') return node;
      if (node.type !== 'object') {
        wrong(ctx, m, node, 'objects');
        return node;
      }
      node.preserveUnknownFields = true;
      return node;
    case 'kubebuilder:default':
      if (!defaultFits(node, value)) {
        ctx.report(tsDiag('TS007', `"+${m.text}": the default does not fit ${describe(node)}`, m.pos));
        return node;
      }
      node.default = value;
      return node;
    case 'nullable':
      node.nullable = true;
      return node;
    case 'listType':
      if (node.type !== 'array') {
        wrong(ctx, m, node, 'arrays');
        return node;
      }
      if (value !== 'atomic' && value !== 'set' && value !== 'map') {
        ctx.report(tsDiag('TS007', `"+${m.text}": listType is atomic, set or map`, m.pos));
        return node;
      }
      node.listType = value;
      return node;
    case 'listMapKey':
      if (node.type !== 'array') {
        wrong(ctx, m, node, 'arrays');
        return node;
      }
      (node.listMapKeys ??= []).push(value as string);
      return node;
    case 'mapType':
      if (node.type !== 'object' && node.type !== 'map') {
        wrong(ctx, m, node, 'objects and maps');
        return node;
      }
      if (value !== 'atomic' && value !== 'granular') {
        ctx.report(tsDiag('TS007', `"+${m.text}": mapType is atomic or granular`, m.pos));
        return node;
      }
      node.mapType = value;
      return node;
    default:
      // Field-only markers (optional/required) are read by the property reader.
      return node;
  }
}

function applyEnum(ctx: ReadCtx, node: SchemaNode, m: ParsedMarker, items: ListItem[]): void {
  if (node.type === 'string') {
    node.enum = items.map((i) => i.text);
    return;
  }
  if (node.type === 'integer' || node.type === 'number') {
    const nums: number[] = [];
    for (const i of items) {
      const n = i.quoted ? NaN : Number(i.text);
      if (!Number.isFinite(n) || (node.type === 'integer' && !Number.isInteger(n))) {
        ctx.report(tsDiag('TS007', `"+${m.text}": "${i.text}" is not ${describe(node)}`, m.pos));
        return;
      }
      nums.push(n);
    }
    node.enum = nums;
    return;
  }
  wrong(ctx, m, node, 'strings and numbers');
}

function embeddedFromUnknown(node: SchemaNode): ObjectNode {
  const out: ObjectNode = {
    type: 'object',
    properties: [],
    preserveUnknownFields: true,
    embeddedResource: true,
  };
  for (const k of ['description', 'default', 'nullable', 'title', 'source', 'validations'] as const) {
    if (node[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = node[k];
  }
  return out;
}

/** True when a JSON default value has the node's JSON type (null only when nullable). */
export function defaultFits(node: SchemaNode, value: unknown): boolean {
  if (value === null) return node.nullable === true;
  switch (node.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'int-or-string':
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
    case 'array':
      return Array.isArray(value);
    case 'object':
    case 'map':
      return typeof value === 'object' && !Array.isArray(value);
    case 'unknown':
      return node.object ? typeof value === 'object' && !Array.isArray(value) : true;
  }
}
