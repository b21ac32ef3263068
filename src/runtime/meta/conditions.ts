// Status conditions (apimachinery's meta.SetStatusCondition and friends): set, find,
// remove; lastTransitionTime only moves when the status changes.
import type { Condition } from './types.js';

/** A condition to set; lastTransitionTime is filled in when absent. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'reason' | 'message'> & {
  lastTransitionTime?: string;
  reason: string;
  message?: string;
};

/** `date` as metav1.Time serialises it: RFC 3339, second precision, UTC. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The condition of `type`, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` is present with status `True`. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** True when the condition of `type` is present with status `False`. */
export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * Sets `cond` in `conditions` (mutated in place) as meta.SetStatusCondition does: a new
 * type is appended (lastTransitionTime = its own or `now`); an existing one keeps its
 * lastTransitionTime unless the status changes, and takes the new reason, message and
 * observedGeneration. Returns true when anything changed.
 */
export function setCondition(conditions: Condition[], cond: ConditionInput, now: Date = new Date()): boolean {
  if (!cond || typeof cond.type !== 'string' || cond.type === '') throw new Error('setCondition: the condition needs a type');
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    const added: Condition = {
      type: cond.type,
      status: cond.status,
      ...(cond.observedGeneration !== undefined ? { observedGeneration: cond.observedGeneration } : {}),
      lastTransitionTime: cond.lastTransitionTime || formatTime(now),
      reason: cond.reason,
      message: cond.message ?? '',
    };
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== cond.status) {
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime || formatTime(now);
    changed = true;
  }
  if (existing.reason !== cond.reason) {
    existing.reason = cond.reason;
    changed = true;
  }
  const message = cond.message ?? '';
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if (cond.observedGeneration !== undefined && existing.observedGeneration !== cond.observedGeneration) {
    existing.observedGeneration = cond.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type` (mutating `conditions`); true when one was removed. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}
