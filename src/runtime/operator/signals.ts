// Signals (controller-runtime's SetupSignalHandler): the first SIGINT or SIGTERM aborts
// the returned signal, so intake stops and in-flight work drains; a second one exits
// with code 1 at once.

/** What {@link setupSignalHandler} returns. */
export interface SignalHandler {
  /** Aborted on the first signal; `reason` is the signal's name. */
  readonly signal: AbortSignal;
  /** Removes the process listeners. */
  dispose(): void;
}

/** Options of {@link setupSignalHandler}. */
export interface SignalHandlerOptions {
  /** Signals to handle (default SIGINT and SIGTERM). */
  signals?: readonly NodeJS.Signals[];
  /** Called on the second signal (default `process.exit(1)`). */
  onSecondSignal?: (signal: NodeJS.Signals) => void;
  /** Called on the first signal, before the abort (e.g. to log it). */
  onFirstSignal?: (signal: NodeJS.Signals) => void;
}

/** Installs the handlers; call once per process. */
export function setupSignalHandler(options: SignalHandlerOptions = {}): SignalHandler {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const controller = new AbortController();
  const listener = (sig: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      options.onFirstSignal?.(sig);
      controller.abort(sig);
      return;
    }
    (options.onSecondSignal ?? (() => process.exit(1)))(sig);
  };
  for (const s of signals) process.on(s, listener);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of signals) process.off(s, listener);
    },
  };
}
