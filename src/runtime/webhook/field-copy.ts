// The generated part of a conversion: a plan of the fields that have the same path and shape in
// two versions of a kind (computed by `crdgen generate` from both schemas), and the function
// that copies exactly those fields. What the plan leaves out is for the user's conversion
// functions; what nobody carries is kept by convertObject's annotation.
import { setOwn } from '../meta/json.js';

/**
 * Which fields to copy: `true` copies the value whole (same shape in both versions); `fields`
 * copies the listed members of an object (each with its own plan), and with `unknown` also the
 * members neither version declares (both preserve unknown fields; `except` names the declared
 * members that are not copied); `items` copies each element
 * of a list, `values` each value of a map.
 */
export type CopyPlan =
  | true
  | { fields: Readonly<Record<string, CopyPlan>>; unknown?: true; except?: readonly string[] }
  | { items: CopyPlan }
  | { values: CopyPlan };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The part of `value` that `plan` names, as a new value (never shared with `value`). A value
 * whose type is not what the plan expects (an object where a list belongs) is not copied:
 * `undefined`.
 */
export function copyFields(plan: CopyPlan, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (plan === true) return structuredClone(value);
  if ('items' in plan) return Array.isArray(value) ? value.map((v) => copyFields(plan.items, v) ?? null) : undefined;
  if (!isRecord(value)) return value === null ? null : undefined;
  const out: Record<string, unknown> = {};
  if ('values' in plan) {
    for (const [k, v] of Object.entries(value)) {
      const c = copyFields(plan.values, v);
      if (c !== undefined) setOwn(out, k, c);
    }
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const member = Object.hasOwn(plan.fields, k) ? plan.fields[k] : undefined;
    const c =
      member !== undefined
        ? copyFields(member, v)
        : plan.unknown && !plan.except?.includes(k)
          ? structuredClone(v)
          : undefined;
    if (c !== undefined) setOwn(out, k, c);
  }
  return out;
}
