// Watch streams: an incremental line-delimited JSON decoder (chunks may split anywhere,
// even inside a multi-byte character) and a Watch<T> over an HTTP response body.
import type { Status } from '../meta/types.js';
import type { Watch, WatchEvent, WatchEventType } from './types.js';

/**
 * Splits a byte stream into text lines. Bytes are decoded as UTF-8 in streaming mode,
 * so a character split across chunks is reassembled; `\r\n` and `\n` both end a line;
 * empty lines are dropped.
 */
export class LineDecoder {
  private readonly decoder = new TextDecoder('utf-8');
  private partial = '';

  /** Characters buffered for the line in progress (no newline seen yet). */
  get pending(): number {
    return this.partial.length;
  }

  /** Feeds one chunk; returns the lines it completed. */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!text.includes('\n')) {
      this.partial += text; // a long line arriving in many chunks is not rescanned each time
      return [];
    }
    return this.split(this.partial + text);
  }

  /** Flushes the decoder at end of stream; returns the last line if it had no newline. */
  end(): string[] {
    const rest = this.partial + this.decoder.decode();
    this.partial = '';
    const line = rest.replace(/\r$/, '');
    return line.trim() ? [line] : [];
  }

  private split(buf: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = buf.indexOf('\n', start); nl !== -1; nl = buf.indexOf('\n', start)) {
      const line = buf.slice(start, nl > start && buf[nl - 1] === '\r' ? nl - 1 : nl);
      if (line.trim()) lines.push(line);
      start = nl + 1;
    }
    this.partial = buf.slice(start);
    return lines;
  }
}

/**
 * Longest watch line accepted (characters). The apiserver caps objects at a few MiB; a
 * stream that goes this long without a newline is broken (e.g. a proxy answering with
 * something else), and buffering it would exhaust memory.
 */
export const MAX_WATCH_LINE = 32 * 1024 * 1024;

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** The Status a watch reports when its stream cannot be decoded (client-go: an InternalError). */
export function decodeErrorStatus(message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, reason: 'InternalError', message };
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
    return { event: { type: 'ERROR', object: decodeErrorStatus(`unable to decode an event from the watch stream: not JSON: ${shown}`) }, malformed: true };
  }
  const ev = v as { type?: unknown; object?: unknown };
  if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string' || !EVENT_TYPES.has(ev.type) ||
      typeof ev.object !== 'object' || ev.object === null) {
    const t = typeof ev === 'object' && ev !== null ? String(ev.type) : typeof ev;
    return { event: { type: 'ERROR', object: decodeErrorStatus(`unable to decode an event from the watch stream: got invalid watch event type or object: ${t}`) }, malformed: true };
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
 * A Watch over a streaming HTTP response. Iteration ends (without throwing) when the
 * server closes the stream, the connection drops, the request's signal aborts, or
 * `stop()` is called. A malformed line yields one `ERROR` event, then the watch ends.
 * Iterate it once: it is a single stream.
 */
export class StreamWatch<T> implements Watch<T> {
  private stopped = false;
  private readonly iterator: AsyncGenerator<WatchEvent<T>, void, undefined>;

  /** Wraps `body`; `onClose` runs once when the watch ends for any reason; lines longer than `maxLine` end the watch. */
  constructor(
    private readonly body: WatchBody,
    private readonly onClose: () => void = () => {},
    private readonly maxLine: number = MAX_WATCH_LINE,
  ) {
    // The iterator sees stream errors itself; this listener only stops an error on a watch
    // that is never iterated from becoming an uncaught 'error' event.
    body.on?.('error', () => {});
    this.iterator = this.run();
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
    return this.iterator;
  }

  private async *run(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const lines = new LineDecoder();
    try {
      try {
        for await (const chunk of this.body) {
          for (const line of lines.push(chunk)) {
            if (this.stopped) return;
            const { event, malformed } = parseWatchLine<T>(line);
            yield event;
            if (malformed) return;
          }
          if (this.stopped) return;
          if (lines.pending > this.maxLine) {
            yield { type: 'ERROR', object: decodeErrorStatus(`unable to decode an event from the watch stream: a line exceeds ${this.maxLine} characters`) };
            return;
          }
        }
      } catch {
        // The connection dropped, or stop()/abort destroyed the body: the watch simply ends,
        // as client-go's StreamWatcher does on EOF or a reset; the caller re-watches.
        return;
      }
      for (const line of lines.end()) {
        if (this.stopped) return;
        yield parseWatchLine<T>(line).event;
      }
    } finally {
      this.stop();
    }
  }
}
