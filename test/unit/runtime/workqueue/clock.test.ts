// realClock's timers: node fires a setTimeout of more than 2^31 − 1 ms after 1 ms; realClock
// re-arms instead, so a requeueAfter of weeks waits weeks.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { realClock } from '../../../../src/runtime/index.js';
import { MAX_TIMER_MS } from '../../../../src/runtime/workqueue/clock.js';

test('a timer beyond 2^31 − 1 ms is not fired early; a short one fires on time; cancel stops both', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let long = 0;
    let short = 0;
    const t = realClock.setTimer(() => long++, MAX_TIMER_MS * 3);
    realClock.setTimer(() => short++, 10);
    mock.timers.tick(10);
    assert.equal(short, 1);
    mock.timers.tick(MAX_TIMER_MS); // node alone would have fired the long one after 1 ms
    assert.equal(long, 0);
    t.cancel();
    mock.timers.tick(MAX_TIMER_MS * 3);
    assert.equal(long, 0);
    let c = 0;
    realClock.setTimer(() => c++, 50).cancel();
    mock.timers.tick(100);
    assert.equal(c, 0);
  } finally {
    mock.timers.reset();
  }
});
