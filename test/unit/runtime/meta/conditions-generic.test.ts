// The condition helpers are generic over any condition shape with `type` and `status`: a CRD's
// own condition type — lastTransitionTime optional, status an enum, extra fields — type-checks
// (this file is part of `npm run typecheck`) and is maintained as meta.SetStatusCondition does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  findCondition,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
} from '../../../../src/runtime/index.js';
import type { DatabaseManagerStatusCondition } from '../../../../fixtures/databasemanager/expected/apis/coolops.cn/v1alpha1/types.js';

/** A CRD's condition as controller-gen users often declare it: lastTransitionTime and message optional, an extra field. */
interface WidgetCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  severity?: 'Error' | 'Warning';
}

test('a CRD condition type with optional lastTransitionTime: set, find, test, remove', () => {
  const t0 = new Date('2026-02-01T00:00:00Z');
  const t1 = new Date('2026-02-01T01:00:00Z');
  const conds: WidgetCondition[] = [];
  assert.equal(
    setCondition(conds, { type: 'Ready', status: 'False', reason: 'Creating', severity: 'Warning' }, t0),
    true,
  );
  assert.deepEqual(
    [...conds],
    [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Creating',
        severity: 'Warning',
        lastTransitionTime: '2026-02-01T00:00:00Z',
        message: '',
      },
    ],
  );
  // the condition's own fields are kept up to date; the time stays while the status does
  assert.equal(
    setCondition(conds, { type: 'Ready', status: 'False', reason: 'Creating', severity: 'Error' }, t1),
    true,
  );
  assert.equal(conds[0].severity, 'Error');
  assert.equal(conds[0].lastTransitionTime, '2026-02-01T00:00:00Z');
  assert.equal(
    setCondition(conds, { type: 'Ready', status: 'False', reason: 'Creating', severity: 'Error' }, t1),
    false,
  );
  assert.equal(setCondition(conds, { type: 'Ready', status: 'True', reason: 'Available' }, t1), true);
  assert.equal(conds[0].lastTransitionTime, '2026-02-01T01:00:00Z');
  const found: WidgetCondition | undefined = findCondition(conds, 'Ready');
  assert.equal(found?.reason, 'Available');
  assert.equal(isConditionTrue(conds, 'Ready'), true);
  assert.equal(isConditionFalse(conds, 'Ready'), false);
  assert.equal(removeCondition(conds, 'Ready'), true);
  assert.equal(conds.length, 0);
});

test('the generated DatabaseManagerStatusCondition works with the helpers as it is', () => {
  const conds: DatabaseManagerStatusCondition[] = [];
  setCondition(conds, {
    type: 'Ready',
    status: 'True',
    reason: 'DeploymentAvailable',
    message: '2/2 replicas available',
    observedGeneration: 3,
  });
  const ready: DatabaseManagerStatusCondition | undefined = findCondition(conds, 'Ready');
  assert.equal(ready?.observedGeneration, 3);
  assert.match(ready.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // a field of the wrong type for the condition is a compile error, not a silent write
  // @ts-expect-error status must be one of the condition type's values
  assert.throws(() => setCondition(conds, { type: '', status: 'Maybe', reason: 'x' }), /needs a type/);
});
