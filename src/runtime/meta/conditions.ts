// Status conditions (apimachinery's meta.SetStatusCondition and friends): set, find,
// remove; lastTransitionTime only moves when the status changes.
import type { Condition } from './types.js';

/**
 * Any condition shape: a `type` and a `status`, and where the shape has them, the fields the
 * helpers maintain as metav1.Condition's (`lastTransitionTime`, `reason`, `message`,
 * `observedGeneration`). metav1.Condition fits, and so does a CRD's own condition type, whatever
 * it makes optional or adds (`DatabaseManagerStatusCondition`, `CertificateStatusCondition`).
 */
export interface ConditionLike {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/**
 * A condition to set: the condition type `C` with `lastTransitionTime` (filled in when absent)
 * and `message` (`''` when absent, as metav1.Condition requires one) optional.
 */
export type ConditionInput<C extends ConditionLike = Condition> = Omit<C, 'lastTransitionTime' | 'message'> & {
  lastTransitionTime?: string;
  message?: string;
};

/** `date` as metav1.Time serialises it: RFC 3339, second precision, UTC. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The condition of `type`, if present. */
export function findCondition<C extends ConditionLike>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` is present with status `True`. */
export function isConditionTrue(conditions: readonly ConditionLike[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** True when the condition of `type` is present with status `False`. */
export function isConditionFalse(conditions: readonly ConditionLike[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * Sets `cond` in `conditions` (mutated in place) as meta.SetStatusCondition does: a new
 * type is appended (lastTransitionTime = its own or `now`); an existing one keeps its
 * lastTransitionTime unless the status changes, and takes the new reason, message,
 * observedGeneration and any other field `cond` gives. Returns true when anything changed.
 * `C` is any condition shape ({@link ConditionLike}): metav1.Condition by default, or the
 * CRD's own (`setCondition<DatabaseManagerStatusCondition>(…)`, usually inferred).
 */
export function setCondition<C extends ConditionLike = Condition>(
  conditions: C[],
  cond: ConditionInput<C>,
  now: Date = new Date(),
): boolean {
  if (!cond || typeof cond.type !== 'string' || cond.type === '')
    throw new Error('setCondition: the condition needs a type');
  const given = cond as ConditionInput<C> & ConditionLike;
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    const { lastTransitionTime, message, ...rest } = given;
    const added = {
      ...rest,
      lastTransitionTime: lastTransitionTime || formatTime(now),
      message: message ?? '',
    } as unknown as C;
    conditions.push(added);
    return true;
  }
  let changed = false;
  const target = existing as ConditionLike & Record<string, unknown>;
  if (existing.status !== given.status) {
    target.status = given.status;
    target.lastTransitionTime = given.lastTransitionTime || formatTime(now);
    changed = true;
  }
  const message = given.message ?? '';
  if (existing.message !== message) {
    target.message = message;
    changed = true;
  }
  for (const [k, v] of Object.entries(given)) {
    if (k === 'type' || k === 'status' || k === 'lastTransitionTime' || k === 'message' || v === undefined) continue;
    if (JSON.stringify(target[k]) !== JSON.stringify(v)) {
      target[k] = v;
      changed = true;
    }
  }
  return changed;
}

/** Removes the condition of `type` (mutating `conditions`); true when one was removed. */
export function removeCondition(conditions: ConditionLike[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}
