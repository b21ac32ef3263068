// Abortable sleeps for the controller runtime's loops: the workqueue clock's sleep
// (src/runtime/workqueue/clock.ts), on the real clock unless one is given.
import { realClock, sleep as clockSleep, type Clock } from '../workqueue/clock.js';

/** Resolves after `ms` on `clock`, or at once (with `false`) when `signal` aborts; `true` when the time passed. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = realClock): Promise<boolean> {
  return clockSleep(clock, ms, signal);
}

/** `ms` stretched by a random factor in [1, 1 + factor) (wait.Jitter). */
export function jitter(ms: number, factor: number): number {
  return ms * (1 + Math.random() * factor);
}
