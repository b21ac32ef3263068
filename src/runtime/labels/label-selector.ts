// metav1.LabelSelector (`matchLabels` + `matchExpressions`, as in Deployment.spec.selector)
// → Selector (apimachinery's LabelSelectorAsSelector).
import type { LabelSelector } from '../builtin/index.js';
import { newRequirement, nothing, Selector, SelectorError, type Operator, type Requirement } from './selector.js';

type LabelSelectorOperator = NonNullable<LabelSelector['matchExpressions']>[number]['operator'];

const OPERATORS: Record<LabelSelectorOperator, Operator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a metav1.LabelSelector: `undefined` selects nothing and `{}` everything, as in
 * apimachinery. Unknown operators and invalid keys/values throw {@link SelectorError}.
 */
export function labelSelectorAsSelector(ls: LabelSelector | undefined | null): Selector {
  if (ls === undefined || ls === null) return nothing();
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v]));
  for (const e of ls.matchExpressions ?? []) {
    const op = Object.prototype.hasOwnProperty.call(OPERATORS, e.operator) ? OPERATORS[e.operator] : undefined;
    if (op === undefined)
      throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(e.key, op, e.values ?? []));
  }
  return new Selector(reqs);
}
