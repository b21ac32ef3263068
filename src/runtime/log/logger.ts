// Structured logging for controllers: a small Logger interface (what pino's logger
// satisfies) and `newLogger`, which loads pino on demand so that importing crdgen/runtime
// stays cheap for code that never logs.

/** Key/value fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** One log method: `log.info({ key }, 'message')` or `log.info('message')` (pino's call shape). */
export interface LogFn {
  (fields: LogFields, msg?: string): void;
  (msg: string): void;
}

/** A structured logger. pino's `Logger` satisfies it. */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger that adds `bindings` to every line. */
  child(bindings: LogFields): Logger;
}

/** A logger that drops everything (the default when none is given). */
export const noopLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noopLogger,
};

/** Options of {@link newLogger}. */
export interface LoggerOptions {
  /** `name` on every line (the controller's name). */
  name: string;
  /** Minimum level: `debug`, `info` (default), `warn`, `error`, or `silent`. */
  level?: string;
  /** File descriptor written synchronously (default 1, stdout): no line is lost on exit. */
  fd?: number;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/**
 * A JSON-lines logger (pino) with ISO timestamps: one object per line with `level`,
 * `time`, `name`, `msg` and the fields given. Rejects an unknown level with a clear error.
 */
export async function newLogger(options: LoggerOptions): Promise<Logger> {
  const level = options.level ?? 'info';
  if (!LEVELS.has(level))
    throw new Error(`unknown log level ${JSON.stringify(level)}; use one of ${[...LEVELS].join(', ')}`);
  const { pino } = await import('pino');
  const root = pino(
    {
      name: options.name,
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ fd: options.fd ?? 1, sync: true }),
  );
  return wrapPino(root);
}

/** The pino methods we use (pino's own types are wider). */
interface PinoLike {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  child(bindings: LogFields): PinoLike;
}

function wrapPino(l: PinoLike): Logger {
  return {
    debug: (...a: unknown[]) => l.debug(...a),
    info: (...a: unknown[]) => l.info(...a),
    warn: (...a: unknown[]) => l.warn(...a),
    error: (...a: unknown[]) => l.error(...a),
    child: (bindings) => wrapPino(l.child(bindings)),
  };
}

/** The message of an error-like value, for log fields (`{ err: errorMessage(e) }`). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
