// Property: printing a selector and parsing it back gives the same selector (same text,
// same answers on any labels), and matching agrees with a direct reading of the rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newRequirement, parseSelector, Selector, type Operator } from '../../../../src/runtime/index.js';
import { SEED, runs } from '../../../fuzz/support.js';

const word = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?$/);
const key = fc.oneof(
  word,
  fc.tuple(fc.stringMatching(/^[a-z]{1,5}(\.[a-z]{1,4})?$/), word).map(([p, n]) => `${p}/${n}`),
);
const value = fc.oneof(fc.constant(''), word, fc.constantFrom('in', 'notin'));
// gt/lt values are integers that are also label values (apimachinery checks both): no sign
const int = fc.integer({ min: 0, max: 50 }).map(String);
const requirement = fc.oneof(
  fc.tuple(key, fc.constantFrom<Operator>('=', '==', '!='), value).map(([k, op, v]) => newRequirement(k, op, [v])),
  fc
    .tuple(key, fc.constantFrom<Operator>('in', 'notin'), fc.array(value, { minLength: 1, maxLength: 4 }))
    .map(([k, op, vs]) => newRequirement(k, op, vs)),
  fc.tuple(key, fc.constantFrom<Operator>('exists', '!')).map(([k, op]) => newRequirement(k, op)),
  fc.tuple(key, fc.constantFrom<Operator>('gt', 'lt'), int).map(([k, op, v]) => newRequirement(k, op, [v])),
);
const labels = fc.dictionary(fc.oneof(key, fc.constantFrom('a', 'b')), fc.oneof(value, int), { maxKeys: 6 });

test('toString → parseSelector round-trips and keeps the meaning', () => {
  fc.assert(
    fc.property(
      fc.array(requirement, { maxLength: 5 }),
      fc.array(labels, { minLength: 1, maxLength: 5 }),
      (reqs, sets) => {
        const s = new Selector(reqs);
        const text = s.toString();
        const back = parseSelector(text);
        assert.equal(back.toString(), text);
        for (const l of sets) assert.equal(back.matches(l), s.matches(l), `${text} on ${JSON.stringify(l)}`);
        // spaces around tokens do not matter
        assert.equal(parseSelector(text.replace(/,/g, ' , ').replace(/\(/g, ' ( ')).toString(), text);
      },
    ),
    { numRuns: runs(300), seed: SEED },
  );
});

test('matches is the conjunction of the requirements, each read literally', () => {
  fc.assert(
    fc.property(fc.array(requirement, { maxLength: 4 }), labels, (reqs, l) => {
      const expected = reqs.every((r) => {
        const has = Object.prototype.hasOwnProperty.call(l, r.key);
        const v = l[r.key];
        switch (r.operator) {
          case '=':
          case '==':
          case 'in':
            return has && r.values.includes(v);
          case '!=':
          case 'notin':
            return !has || !r.values.includes(v);
          case 'exists':
            return has;
          case '!':
            return !has;
          case 'gt':
            return has && /^-?\d+$/.test(v) && Number(v) > Number(r.values[0]);
          case 'lt':
            return has && /^-?\d+$/.test(v) && Number(v) < Number(r.values[0]);
        }
      });
      assert.equal(new Selector(reqs).matches(l), expected);
    }),
    { numRuns: runs(300), seed: SEED },
  );
});
