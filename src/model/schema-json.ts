// The one writer of a schema tree: SchemaNode → OpenAPI v3 JSON (a JSONSchemaProps), the exact
// schema the input had. The typed view is written first, then the node's `keywords` over it (the
// keywords the typed view does not carry, or carries differently, as written). Keys are sorted
// alphabetically like controller-gen's; `properties` keep the model's (source) order.
//
// The readers use `typedKeywords` to decide what goes into `keywords`: a keyword of the input
// whose typed form would not be written back identically. So for every schema a reader accepts,
// schemaToJson(read(json)) deep-equals json (test/roundtrip/crd-identity.test.ts holds it over the
// corpus; test/unit/model/schema-json.test.ts over generated schemas).
import type { JsonObject, SchemaNode, ValidationRule } from './types.js';
import { compareStrings } from './order.js';

/** Stands for a child schema (properties, items, additionalProperties) in {@link typedKeywords}. */
export const CHILD: unique symbol = Symbol('child schema');

/**
 * The keywords the typed view of `node` writes, without its children: a child schema is
 * {@link CHILD}, `properties` is an array of the property names, `keywords` are left out.
 */
export function typedKeywords(node: SchemaNode): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (node.description !== undefined) o['description'] = node.description;
  if (node.default !== undefined) o['default'] = node.default;
  if (node.nullable !== undefined) o['nullable'] = node.nullable;
  if (node.validations && node.validations.length > 0) o['x-kubernetes-validations'] = node.validations.map(ruleToJson);
  switch (node.type) {
    case 'object': {
      o['type'] = 'object';
      if (node.properties.length > 0) {
        o['properties'] = node.properties.map((p) => p.name);
        const required = node.properties.filter((p) => p.required).map((p) => p.name);
        if (required.length > 0) o['required'] = required;
      }
      if (node.minProperties !== undefined) o['minProperties'] = node.minProperties;
      if (node.maxProperties !== undefined) o['maxProperties'] = node.maxProperties;
      if (node.preserveUnknownFields) o['x-kubernetes-preserve-unknown-fields'] = true;
      if (node.embeddedResource) o['x-kubernetes-embedded-resource'] = true;
      if (node.mapType !== undefined) o['x-kubernetes-map-type'] = node.mapType;
      break;
    }
    case 'map':
      o['type'] = 'object';
      o['additionalProperties'] = CHILD;
      if (node.minProperties !== undefined) o['minProperties'] = node.minProperties;
      if (node.maxProperties !== undefined) o['maxProperties'] = node.maxProperties;
      if (node.mapType !== undefined) o['x-kubernetes-map-type'] = node.mapType;
      break;
    case 'array':
      o['type'] = 'array';
      o['items'] = CHILD;
      if (node.minItems !== undefined) o['minItems'] = node.minItems;
      if (node.maxItems !== undefined) o['maxItems'] = node.maxItems;
      if (node.uniqueItems !== undefined) o['uniqueItems'] = node.uniqueItems;
      if (node.listType !== undefined) o['x-kubernetes-list-type'] = node.listType;
      if (node.listMapKeys !== undefined) o['x-kubernetes-list-map-keys'] = [...node.listMapKeys];
      break;
    case 'string':
      o['type'] = 'string';
      if (node.enum !== undefined) o['enum'] = [...node.enum];
      if (node.format !== undefined) o['format'] = node.format;
      if (node.pattern !== undefined) o['pattern'] = node.pattern;
      if (node.minLength !== undefined) o['minLength'] = node.minLength;
      if (node.maxLength !== undefined) o['maxLength'] = node.maxLength;
      break;
    case 'integer':
    case 'number':
      o['type'] = node.type;
      if (node.enum !== undefined) o['enum'] = [...node.enum];
      if (node.format !== undefined) o['format'] = node.format;
      if (node.minimum !== undefined) o['minimum'] = node.minimum;
      if (node.maximum !== undefined) o['maximum'] = node.maximum;
      if (node.exclusiveMinimum !== undefined) o['exclusiveMinimum'] = node.exclusiveMinimum;
      if (node.exclusiveMaximum !== undefined) o['exclusiveMaximum'] = node.exclusiveMaximum;
      if (node.multipleOf !== undefined) o['multipleOf'] = node.multipleOf;
      break;
    case 'boolean':
      o['type'] = 'boolean';
      break;
    case 'int-or-string':
      // the `anyOf: [{type: integer}, {type: string}]` that usually goes with it is a keyword
      o['x-kubernetes-int-or-string'] = true;
      break;
    case 'unknown':
      if (node.object) o['type'] = 'object';
      o['x-kubernetes-preserve-unknown-fields'] = true;
      break;
  }
  return o;
}

function ruleToJson(r: ValidationRule): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (r.fieldPath !== undefined) o['fieldPath'] = r.fieldPath;
  if (r.message !== undefined) o['message'] = r.message;
  if (r.messageExpression !== undefined) o['messageExpression'] = r.messageExpression;
  if (r.optionalOldSelf !== undefined) o['optionalOldSelf'] = r.optionalOldSelf;
  if (r.reason !== undefined) o['reason'] = r.reason;
  o['rule'] = r.rule;
  return o;
}

/** Sets an own enumerable key, `__proto__` included (never the object's prototype). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

const written = new WeakMap<SchemaNode, JsonObject>();

/**
 * A schema node as OpenAPI v3 JSON, keys sorted, `properties` in the model's order: the typed
 * view, then `keywords` over it. For a frozen node (every node a reader returns, see
 * {@link freezeSchema}) the result is computed once and frozen, so the validators emitter and the
 * CRD emitter share it (and the runtime's `precompileSchema` memoizes on it).
 */
export function schemaToJson(node: SchemaNode): JsonObject {
  const known = written.get(node);
  if (known !== undefined) return known;
  const frozen = Object.isFrozen(node);
  const o = typedKeywords(node);
  if (o['items'] === CHILD) o['items'] = schemaToJson((node as { items: SchemaNode }).items);
  else if (o['additionalProperties'] === CHILD)
    o['additionalProperties'] = schemaToJson((node as { values: SchemaNode }).values);
  else if (node.type === 'object' && o['properties'] !== undefined) {
    const props: Record<string, unknown> = {};
    for (const p of node.properties) setOwn(props, p.name, schemaToJson(p.schema));
    if (frozen) Object.freeze(props);
    o['properties'] = props;
  }
  if (node.keywords) for (const k in node.keywords) setOwn(o, k, node.keywords[k]);
  const out: JsonObject = {};
  for (const k of Object.keys(o).sort(compareStrings)) {
    if (k === '__proto__') setOwn(out, k, o[k]);
    else out[k] = o[k];
  }
  // a frozen node's facets and keywords are frozen (freezeSchema), its children's JSON too: freezing
  // this object freezes the whole JSON
  if (frozen) {
    Object.freeze(out);
    written.set(node, out);
  }
  return out;
}

/** Freezes a JSON value and everything in it. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * Freezes a schema tree (every node, its facets and keywords; source positions stay as they are,
 * they compute lines lazily). Readers freeze what they return: the model is read, never changed.
 */
export function freezeSchema(node: SchemaNode): void {
  if (Object.isFrozen(node)) return;
  for (const k in node) {
    const v = (node as unknown as Record<string, unknown>)[k];
    if (k === 'source' || typeof v !== 'object' || v === null) continue;
    if (k === 'properties' && node.type === 'object') {
      for (const p of node.properties) {
        freezeSchema(p.schema);
        Object.freeze(p);
      }
      Object.freeze(node.properties);
    } else if (k === 'items' || k === 'values') freezeSchema(v as SchemaNode);
    else deepFreeze(v);
  }
  Object.freeze(node);
}
