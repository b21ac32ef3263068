// What kube-apiserver does with one x-kubernetes-validations rule when a CRD is created
// (apiextensions' cel.Compile and compileRule): type-check it against the CEL type of its schema
// node (SchemaDeclType), require a bool, build the program (constant conversions are evaluated
// then, and fail the CRD when they fail), estimate its cost, and the same for messageExpression.
// The CRD checker (src/input/crd) walks the schema and judges costs, correlation and placement;
// this module is its door to the CEL engine (the readers' layer rule names it).
import { compileChecked } from './compile.js';
import { estimateCost, MAX_UINT64 } from './cost.js';

export { costError, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cost.js';
import { MAX_REQUEST_SIZE_BYTES, schemaType, sizeOf } from './schema-types.js';
import { escapePropertyName } from './typecheck.js';
import { BOOL, optional, STRING, type CelType } from './types.js';
import { programErrors } from './validators.js';
import { compileNode } from '../validation/node.js';
import { reduceSchema } from '../validation/schema.js';
import { setOwn } from '../meta/json.js';

/** The CEL type of a schema node as rules see it (an opaque handle). */
export interface RuleType {
  readonly cel: CelType;
}

const wrap = (cel: CelType | undefined): RuleType | undefined => (cel ? { cel } : undefined);

/** SchemaDeclType of a structural schema node (undefined: it has no CEL type, or cannot be read). */
export function ruleTypeOf(schema: unknown, isResourceRoot: boolean): RuleType | undefined {
  try {
    return wrap(schemaType(compileNode(reduceSchema(withKnownTypes(schema))), isResourceRoot));
  } catch {
    return undefined;
  }
}

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);

/**
 * The schema with an unknown `type` (`stringx`: refused elsewhere) read as no type: SchemaDeclType
 * gives such a node no CEL type, and an object simply lacks that field, where the engine's schema
 * reader would refuse the whole schema.
 */
function withKnownTypes(s: unknown): unknown {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return s;
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown): void => setOwn(out, k, v);
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    if (k === 'type' && typeof v === 'string' && !TYPES.has(v)) continue;
    if (k === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v))
      put(k, Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, x]) => [n, withKnownTypes(x)])));
    else if (SUBSCHEMA.has(k)) put(k, withKnownTypes(v));
    else if (SUBSCHEMA_LISTS.has(k) && Array.isArray(v)) put(k, v.map(withKnownTypes));
    else put(k, v);
  }
  return out;
}

/** The type of property `name` of an object type (undefined when it has none, or the name cannot be escaped). */
export function propertyRuleType(parent: RuleType, name: string): RuleType | undefined {
  const esc = escapePropertyName(name);
  if (esc === undefined || parent.cel.k !== 'object') return undefined;
  return wrap(parent.cel.fields().get(esc));
}

/** The element type of a list (items) or the value type of a map (additionalProperties). */
export function elementRuleType(parent: RuleType): RuleType | undefined {
  return wrap(parent.cel.k === 'list' ? parent.cel.elem : parent.cel.k === 'map' ? parent.cel.value : undefined);
}

/** One rule as the apiserver compiles it at CRD create (its CompilationResult). */
export interface RuleCompilation {
  /** The rule's error detail (`compilation failed: …`, `cel expression must evaluate to a bool`, …). */
  error?: string;
  usesOldSelf: boolean;
  /** cel-go's estimated maximum cost of one evaluation. */
  maxCost: number;
  /** How many values of this node fit in a request (used when no maxItems/maxProperties bounds the node). */
  maxCardinality: number;
  /** The messageExpression's error detail, when it has one. */
  messageError?: string;
  /** The messageExpression's estimated maximum cost, when it compiled. */
  messageMaxCost?: number;
}

/** The rule fields compilation reads. */
export interface RuleSource {
  rule: string;
  messageExpression?: string;
  optionalOldSelf?: boolean;
}

/** How many values of a type fit in a request (apiextensions' maxCardinality). */
function maxCardinality(t: CelType): number {
  const min = sizeOf(t)?.minSerializedSize ?? 1;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (min + 1));
}

/** Compiles one rule against its node's type, as apiextensions' compileRule. */
export function compileRuleAtCreate(rule: RuleSource, t: RuleType): RuleCompilation {
  const out: RuleCompilation = { usesOldSelf: false, maxCost: 0, maxCardinality: 0 };
  if (rule.rule.trim() === '') return out;
  const vars = new Map<string, CelType>([
    ['self', t.cel],
    ['oldSelf', rule.optionalOldSelf === true ? optional(t.cel) : t.cel],
  ]);
  const c = compileChecked(rule.rule, vars);
  if (!c.ok) return { ...out, error: `compilation failed: ${c.message}` };
  if (c.checked.type.k !== BOOL.k) return { ...out, error: 'cel expression must evaluate to a bool' };
  out.usesOldSelf = c.usesOldSelf;
  const inst = programErrors(c.ast, c.checked);
  if (inst) return { ...out, error: `program instantiation failed: ${inst}` };
  out.maxCost = Math.min(MAX_UINT64, estimateCost(c.ast, c.checked, t.cel));
  out.maxCardinality = maxCardinality(t.cel);
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    const m = compileChecked(rule.messageExpression, vars);
    if (!m.ok) return { ...out, messageError: `messageExpression compilation failed: ${m.message}` };
    if (m.checked.type.k !== STRING.k) return { ...out, messageError: 'messageExpression must evaluate to a string' };
    const minst = programErrors(m.ast, m.checked);
    if (minst) return { ...out, messageError: `messageExpression instantiation failed: ${minst}` };
    out.messageMaxCost = Math.min(MAX_UINT64, estimateCost(m.ast, m.checked, t.cel));
  }
  return out;
}
