// Watch streams: an incremental line-delimited JSON decoder (chunks may split anywhere,
// even inside a multi-byte character) and a Watch<T> over an HTTP response body.
import type { Status } from '../meta/types.js';
import type { Watch, WatchEvent, WatchEventType } from './types.js';

/**
 * Splits a byte stream into text lines. The bytes are split at `\n` (a byte that never
 * occurs inside a multi-byte UTF-8 character) and each line is decoded once, so a
 * character split across chunks is reassembled and no chunk is re-decoded or
 * re-concatenated; `\r\n` and `\n` both end a line; blank lines are dropped.
 */
export class LineDecoder {
  /** Bytes of the line in progress (no newline seen yet), in arrival order. */
  private parts: Buffer[] = [];
  private partBytes = 0;

  /** Bytes buffered for the line in progress (no newline seen yet). */
  get pending(): number {
    return this.partBytes;
  }

  /** Feeds one chunk; returns the lines it completed, appended to `out` when given. */
  push(chunk: Uint8Array | string, out: string[] = []): string[] {
    const buf = toBuffer(chunk);
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
      let line: Buffer = buf;
      let from = start;
      let to = nl;
      if (this.partBytes > 0) {
        this.parts.push(buf.subarray(start, nl));
        line = Buffer.concat(this.parts, this.partBytes + nl - start);
        this.parts = [];
        this.partBytes = 0;
        from = 0;
        to = line.length;
      }
      addLine(line, from, to, out);
      start = nl + 1;
    }
    if (start < buf.length) {
      this.parts.push(start === 0 ? buf : buf.subarray(start));
      this.partBytes += buf.length - start;
    }
    return out;
  }

  /** Flushes at end of stream; returns the last line if it had no newline. */
  end(): string[] {
    const out: string[] = [];
    if (this.partBytes > 0) {
      const line = Buffer.concat(this.parts, this.partBytes);
      this.parts = [];
      this.partBytes = 0;
      addLine(line, 0, line.length, out);
    }
    return out;
  }
}

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Decodes `buf[from, to)` without a trailing `\r`; appends it to `out` unless blank. */
function addLine(buf: Buffer, from: number, to: number, out: string[]): void {
  if (to > from && buf[to - 1] === 13) to--;
  if (to === from) return;
  const line = buf.toString('utf8', from, to);
  // A watch line starts with '{'; anything else is checked for being blank.
  if (line.charCodeAt(0) === 123 || line.trim() !== '') out.push(line);
}

/**
 * Longest watch line accepted (bytes of UTF-8). The apiserver caps objects at a few MiB; a
 * stream that goes this long without a newline is broken (e.g. a proxy answering with
 * something else), and buffering it would exhaust memory.
 */
export const MAX_WATCH_LINE = 32 * 1024 * 1024;

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** The Status a watch reports when its stream cannot be decoded (client-go: an InternalError). */
export function decodeErrorStatus(message: string): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 500,
    reason: 'InternalError',
    message,
  };
}

/**
 * Parses one line of a watch stream. A line that is not a watch event (bad JSON, unknown
 * type, missing object) yields an `ERROR` event with a 500 InternalError Status.
 */
export function parseWatchLine<T>(line: string): { event: WatchEvent<T>; malformed: boolean } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    return {
      event: {
        type: 'ERROR',
        object: decodeErrorStatus(`unable to decode an event from the watch stream: not JSON: ${shown}`),
      },
      malformed: true,
    };
  }
  const ev = v as { type?: unknown; object?: unknown };
  if (
    typeof ev !== 'object' ||
    ev === null ||
    typeof ev.type !== 'string' ||
    !EVENT_TYPES.has(ev.type) ||
    typeof ev.object !== 'object' ||
    ev.object === null
  ) {
    const t = typeof ev === 'object' && ev !== null ? String(ev.type) : typeof ev;
    return {
      event: {
        type: 'ERROR',
        object: decodeErrorStatus(
          `unable to decode an event from the watch stream: got invalid watch event type or object: ${t}`,
        ),
      },
      malformed: true,
    };
  }
  return { event: ev as WatchEvent<T>, malformed: false };
}

/** The byte source a StreamWatch reads: an HTTP response body. */
export interface WatchBody extends AsyncIterable<Uint8Array | string> {
  destroy(error?: Error): unknown;
  /** Node streams: used to keep a stream error from crashing a watch nobody iterates. */
  on?(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * A watch that can also be read a batch at a time: every event decoded from one chunk of
 * the stream, in order. A consumer that applies a batch synchronously pays one async hop
 * per chunk instead of one per event; the next chunk is read only when it asks for the
 * next batch, so backpressure is kept. Use either `batches()` or the event iterator.
 */
export interface BatchedWatch<T> extends Watch<T> {
  /** The event stream, in batches (never empty). */
  batches(): AsyncIterable<readonly WatchEvent<T>[]>;
}

/**
 * The events of `w` in batches: its own batches when it has them (a StreamWatch),
 * otherwise one event per batch.
 */
export function watchBatches<T>(w: Watch<T>): AsyncIterable<readonly WatchEvent<T>[]> {
  const b = (w as Partial<BatchedWatch<T>>).batches;
  if (typeof b === 'function') return b.call(w);
  return (async function* one() {
    for await (const ev of w) yield [ev];
  })();
}

/**
 * A Watch over a streaming HTTP response. Iteration ends (without throwing) when the
 * server closes the stream, the connection drops, the request's signal aborts, or
 * `stop()` is called. A malformed line yields one `ERROR` event, then the watch ends.
 * Iterate it once (events or batches): it is a single stream.
 */
export class StreamWatch<T> implements BatchedWatch<T> {
  private stopped = false;
  private readonly batchIterator: AsyncGenerator<WatchEvent<T>[], void, undefined>;
  private eventIterator: AsyncGenerator<WatchEvent<T>, void, undefined> | undefined;

  /** Wraps `body`; `onClose` runs once when the watch ends for any reason; lines longer than `maxLine` bytes end the watch. */
  constructor(
    private readonly body: WatchBody,
    private readonly onClose: () => void = () => {},
    private readonly maxLine: number = MAX_WATCH_LINE,
  ) {
    // The iterator sees stream errors itself; this listener only stops an error on a watch
    // that is never iterated from becoming an uncaught 'error' event.
    body.on?.('error', () => {});
    this.batchIterator = this.run();
  }

  /** Closes the stream; the iteration ends. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.body.destroy();
    this.onClose();
  }

  /** True once the watch has ended or been stopped. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** The event stream. */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return (this.eventIterator ??= this.events());
  }

  /** The event stream in batches: the events of one chunk at a time. */
  batches(): AsyncIterable<readonly WatchEvent<T>[]> {
    return { [Symbol.asyncIterator]: () => this.batchIterator };
  }

  private async *events(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    for await (const batch of this.batchIterator) {
      for (const ev of batch) {
        if (this.stopped) return;
        yield ev;
      }
    }
  }

  private async *run(): AsyncGenerator<WatchEvent<T>[], void, undefined> {
    const decoder = new LineDecoder();
    const lines: string[] = [];
    try {
      try {
        for await (const chunk of this.body) {
          if (this.stopped) return;
          decoder.push(chunk, lines);
          if (lines.length > 0) {
            const batch = decodeLines<T>(lines);
            lines.length = 0;
            yield batch.events;
            if (batch.malformed) return;
            if (this.stopped) return;
          }
          if (decoder.pending > this.maxLine) {
            yield [
              {
                type: 'ERROR',
                object: decodeErrorStatus(
                  `unable to decode an event from the watch stream: a line exceeds ${this.maxLine} bytes`,
                ),
              },
            ];
            return;
          }
        }
      } catch {
        // The connection dropped, or stop()/abort destroyed the body: the watch simply ends,
        // as client-go's StreamWatcher does on EOF or a reset; the caller re-watches.
        return;
      }
      if (this.stopped) return;
      const rest = decoder.end();
      if (rest.length > 0) yield decodeLines<T>(rest).events;
    } finally {
      this.stop();
    }
  }
}

/** Parses lines up to and including the first malformed one. */
function decodeLines<T>(lines: readonly string[]): { events: WatchEvent<T>[]; malformed: boolean } {
  const events: WatchEvent<T>[] = [];
  for (const line of lines) {
    const { event, malformed } = parseWatchLine<T>(line);
    events.push(event);
    if (malformed) return { events, malformed: true };
  }
  return { events, malformed: false };
}
