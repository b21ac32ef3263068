// A schema node prepared once for fast validation: regexes compiled, property maps built,
// subtree flags computed (has defaults? has CEL rules? has list types?).
import { formatChecker } from './formats.js';
import { compileRe2, type Re2 } from './re2.js';
import { SchemaError, type SchemaNode, type ValidationRule } from './schema.js';

/** A compiled schema node. Built by {@link compileNode}; read-only afterwards (CEL programs are filled lazily). */
export interface Node {
  readonly s: SchemaNode;
  /** Type names accepted (`['integer', 'string']` for int-or-string); empty when untyped. */
  readonly types: readonly string[];
  /** `types` joined with `,` as the apiserver prints them. */
  readonly typeLabel: string;
  /** True when the type validator runs (a type or a format is set). */
  readonly typeApplies: boolean;
  /** The OpenAPI `pattern`, matched as Go's regexp matches it (linear time). */
  readonly pattern: Re2 | undefined;
  readonly formatCheck: ((s: string) => boolean) | undefined;
  readonly props: ReadonlyMap<string, Node> | undefined;
  /** additionalProperties as a schema. */
  readonly addl: Node | undefined;
  /** additionalProperties: false. */
  readonly addlForbidden: boolean;
  readonly items: Node | undefined;
  readonly allOf: readonly Node[];
  readonly oneOf: readonly Node[];
  readonly anyOf: readonly Node[];
  readonly not: Node | undefined;
  /** Enum values as the apiserver lists them in "supported values". */
  readonly enumLabels: readonly string[] | undefined;
  /** The string members of the enum, for a fast membership test. */
  readonly enumStrings: ReadonlySet<string> | undefined;
  /** Has allOf/oneOf/anyOf/not. */
  readonly hasCombinators: boolean;
  /** Has maxLength/minLength/pattern. */
  readonly hasStringChecks: boolean;
  /** Has multipleOf/maximum/minimum. */
  readonly hasNumberChecks: boolean;
  readonly preserveUnknown: boolean;
  readonly rules: readonly ValidationRule[];
  /** This node or a descendant (through properties/items/additionalProperties/allOf) has CEL rules. */
  readonly hasRules: boolean;
  /** This node or a descendant has a default. */
  readonly hasDefaults: boolean;
  /** This node or a descendant has x-kubernetes-list-type set or map. */
  readonly hasListTypes: boolean;
  /** Rule slots, filled lazily by the CEL layer (one per entry of `rules`). */
  celCache: unknown;
  /** What the CEL layer needs to convert a value of this node, as bits (see {@link celDataBits}); one read instead of several. */
  readonly celData: number;
}

/** Bits of {@link Node.celData}: the type (low 3 bits), int-or-string, nullable, a string format CEL converts. */
export const CEL_DATA = {
  OBJECT: 1,
  ARRAY: 2,
  STRING: 3,
  NUMBER: 4,
  INTEGER: 5,
  BOOLEAN: 6,
  TYPE_MASK: 7,
  INT_OR_STRING: 8,
  NULLABLE: 16,
  FORMATTED: 32,
} as const;

/** Computes {@link Node.celData} for a schema node. */
export function celDataBits(s: SchemaNode): number {
  const types: Record<string, number> = { object: 1, array: 2, string: 3, number: 4, integer: 5, boolean: 6 };
  let b = s.type !== undefined ? (types[s.type] ?? 0) : 0;
  if (s['x-kubernetes-int-or-string']) b |= CEL_DATA.INT_OR_STRING;
  if (s.nullable) b |= CEL_DATA.NULLABLE;
  if (
    s.type === 'string' &&
    (s.format === 'duration' || s.format === 'date' || s.format === 'date-time' || s.format === 'byte')
  )
    b |= CEL_DATA.FORMATTED;
  return b;
}

/** Compiles an OpenAPI `pattern` as the apiserver does (Go's RE2 syntax); a pattern Go refuses throws. */
export function compilePattern(pattern: string, where: string): Re2 {
  try {
    return compileRe2(pattern);
  } catch (e) {
    throw new SchemaError(
      where,
      `pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(e as Error).message}`,
    );
  }
}

/** The "supported values" text of an enum entry: strings as they are, anything else as JSON. */
export function enumLabel(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Throws the {@link SchemaError} {@link compileNode} would for a bad pattern, without building
 * the tree (a schema without CEL rules needs nothing else checked at generation time).
 */
export function checkPatterns(s: SchemaNode, where = ''): void {
  const at = (k: string) => (where ? `${where}.${k}` : k);
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) checkPatterns(v, at(`properties.${k}`));
  if (typeof s.additionalProperties === 'object') checkPatterns(s.additionalProperties, at('additionalProperties'));
  if (s.items) checkPatterns(s.items, at('items'));
  s.allOf?.forEach((x, i) => checkPatterns(x, at(`allOf[${i}]`)));
  s.oneOf?.forEach((x, i) => checkPatterns(x, at(`oneOf[${i}]`)));
  s.anyOf?.forEach((x, i) => checkPatterns(x, at(`anyOf[${i}]`)));
  if (s.not) checkPatterns(s.not, at('not'));
  if (s.pattern !== undefined) compilePattern(s.pattern, at('pattern'));
}

/** Compiles a reduced schema tree into {@link Node}s. Throws {@link SchemaError} for a bad pattern. */
export function compileNode(s: SchemaNode, where = ''): Node {
  const at = (k: string) => (where ? `${where}.${k}` : k);
  const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
  let props: Map<string, Node> | undefined;
  if (s.properties) {
    props = new Map();
    for (const [k, v] of Object.entries(s.properties)) props.set(k, compileNode(v, at(`properties.${k}`)));
  }
  const addl =
    typeof s.additionalProperties === 'object'
      ? compileNode(s.additionalProperties, at('additionalProperties'))
      : undefined;
  const items = s.items ? compileNode(s.items, at('items')) : undefined;
  const allOf = (s.allOf ?? []).map((x, i) => compileNode(x, at(`allOf[${i}]`)));
  const oneOf = (s.oneOf ?? []).map((x, i) => compileNode(x, at(`oneOf[${i}]`)));
  const anyOf = (s.anyOf ?? []).map((x, i) => compileNode(x, at(`anyOf[${i}]`)));
  const not = s.not ? compileNode(s.not, at('not')) : undefined;
  const children: Node[] = [...(props?.values() ?? []), ...(addl ? [addl] : []), ...(items ? [items] : [])];
  const rules = s['x-kubernetes-validations'] ?? [];
  const lt = s['x-kubernetes-list-type'];
  return {
    s,
    types,
    typeLabel: types.join(','),
    typeApplies: types.length > 0 || s.format !== undefined,
    pattern: s.pattern !== undefined ? compilePattern(s.pattern, at('pattern')) : undefined,
    formatCheck: s.format !== undefined ? formatChecker(s.format) : undefined,
    props,
    addl,
    addlForbidden: s.additionalProperties === false,
    items,
    allOf,
    oneOf,
    anyOf,
    not,
    enumLabels: s.enum ? s.enum.map(enumLabel) : undefined,
    enumStrings: s.enum ? new Set(s.enum.filter((x): x is string => typeof x === 'string')) : undefined,
    hasCombinators: allOf.length > 0 || oneOf.length > 0 || anyOf.length > 0 || not !== undefined,
    hasStringChecks: s.maxLength !== undefined || s.minLength !== undefined || s.pattern !== undefined,
    hasNumberChecks:
      s.multipleOf !== undefined ||
      s.maximum !== undefined ||
      s.minimum !== undefined ||
      (s.type === 'integer' && (s.format === 'int32' || s.format === 'int64')) ||
      (s.type === 'number' && s.format === 'float'),
    preserveUnknown: s['x-kubernetes-preserve-unknown-fields'] === true,
    rules,
    hasRules: rules.length > 0 || children.some((c) => c.hasRules) || allOf.some((c) => c.hasRules),
    hasDefaults: s.default !== undefined || children.some((c) => c.hasDefaults),
    hasListTypes: lt === 'set' || lt === 'map' || children.some((c) => c.hasListTypes),
    celCache: undefined,
    celData: celDataBits(s),
  };
}
