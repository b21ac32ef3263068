// The serving certificate of a webhook server, read from a folder (`tls.crt`, `tls.key`) and
// read again when the files change (controller-runtime's certwatcher): a file-system watch on
// the folder (a Secret volume swaps a `..data` symlink) and a poll as a backstop. A pair that
// does not load (half-written, key and certificate that do not match) is logged and the
// previous one kept.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';

/** Options of {@link CertWatcher}. */
export interface CertWatcherOptions {
  certDir: string;
  /** Default `tls.crt`. */
  certName?: string;
  /** Default `tls.key`. */
  keyName?: string;
  /** Poll interval in ms (default 10000, controller-runtime's); 0: only the file-system watch. */
  pollIntervalMs?: number;
  logger?: Logger;
}

/** A loaded key pair. */
export interface KeyPair {
  cert: string;
  key: string;
}

/**
 * Where the webhook server takes its serving certificate from at each handshake: a folder
 * ({@link CertWatcher}) or a Secret the operator keeps (`CertRotator`).
 */
export interface ServingCertificates {
  /** The pair serving now. */
  current(): KeyPair;
  /** The TLS context of the pair serving now. */
  secureContext(): SecureContext;
  /** Called with every new pair; returns the unsubscribe. */
  onChange(listener: (pair: KeyPair) => void): () => void;
  /** Reads the source now; resolves when done (a pair that does not load is kept out). */
  reload(): Promise<void>;
  stop(): void;
}

/** Watches a certificate and key; {@link current} is the last pair that loaded. */
export class CertWatcher implements ServingCertificates {
  private pair: KeyPair | undefined;
  private context: SecureContext | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readonly listeners = new Set<(pair: KeyPair) => void>();
  private readonly certPath: string;
  private readonly keyPath: string;
  private readonly logger: Logger;

  constructor(private readonly options: CertWatcherOptions) {
    this.certPath = join(options.certDir, options.certName ?? 'tls.crt');
    this.keyPath = join(options.certDir, options.keyName ?? 'tls.key');
    this.logger = options.logger ?? noopLogger;
  }

  /** Reads the pair (throws a clear error when it does not load), then watches for changes. */
  async start(): Promise<void> {
    const pair = await this.load();
    this.accept(pair);
    try {
      this.watcher = watch(this.options.certDir, { persistent: false }, () => this.schedule());
      this.watcher.on('error', (e) =>
        this.logger.warn({ err: errorMessage(e) }, 'certificate folder watch failed; polling only'),
      );
    } catch (e) {
      this.logger.warn({ err: errorMessage(e) }, 'cannot watch the certificate folder; polling only');
    }
    const poll = this.options.pollIntervalMs ?? 10_000;
    if (poll > 0) {
      this.timer = setInterval(() => this.schedule(), poll);
      this.timer.unref();
    }
  }

  /** The pair serving now. */
  current(): KeyPair {
    if (!this.pair) throw new Error('the certificate watcher has not started');
    return this.pair;
  }

  /** The TLS context of the pair serving now. */
  secureContext(): SecureContext {
    if (!this.context) throw new Error('the certificate watcher has not started');
    return this.context;
  }

  /** Called with every new pair. */
  onChange(listener: (pair: KeyPair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the files now; resolves when done (a pair that does not load is kept out). */
  async reload(): Promise<void> {
    while (this.reading) await this.reading;
    this.reading = (async () => {
      try {
        const pair = await this.load();
        if (this.pair && pair.cert === this.pair.cert && pair.key === this.pair.key) return;
        this.accept(pair);
        this.logger.info({ cert: this.certPath }, 'serving certificate reloaded');
      } catch (e) {
        this.logger.warn({ err: errorMessage(e) }, 'serving certificate not reloaded; keeping the previous one');
      }
    })();
    try {
      await this.reading;
    } finally {
      this.reading = undefined;
    }
  }

  /** Stops watching. */
  stop(): void {
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher = undefined;
    this.timer = undefined;
  }

  private schedule(): void {
    // a burst of events (a Secret update rewrites several entries) reads once
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.reload();
    }, 100);
    this.debounce.unref();
  }

  private async load(): Promise<KeyPair> {
    let cert: string;
    let key: string;
    try {
      [cert, key] = await Promise.all([readFile(this.certPath, 'utf8'), readFile(this.keyPath, 'utf8')]);
    } catch (e) {
      throw new Error(
        `cannot read the webhook serving certificate: ${errorMessage(e)} (--webhook-cert-dir must hold ${this.options.certName ?? 'tls.crt'} and ${this.options.keyName ?? 'tls.key'})`,
      );
    }
    try {
      const ctx = createSecureContext({ cert, key });
      return Object.assign({ cert, key }, { ctx });
    } catch (e) {
      throw new Error(
        `the webhook serving certificate ${this.certPath} and key ${this.keyPath} do not load: ${errorMessage(e)}`,
      );
    }
  }

  private accept(pair: KeyPair): void {
    const { ctx } = pair as KeyPair & { ctx: SecureContext };
    this.pair = { cert: pair.cert, key: pair.key };
    this.context = ctx;
    for (const l of this.listeners) l(this.pair);
  }
}
