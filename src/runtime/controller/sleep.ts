// Abortable sleeps for the controller runtime's loops.

/** Resolves after `ms`, or at once (with `false`) when `signal` aborts; `true` when the time passed. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((done) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      done(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      done(true);
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `ms` stretched by a random factor in [1, 1 + factor) (wait.Jitter). */
export function jitter(ms: number, factor: number): number {
  return ms * (1 + Math.random() * factor);
}
