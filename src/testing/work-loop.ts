// A serial work loop for in-process controllers: storage events are queued and handled
// one at a time, so controllers never race each other; idle() resolves when the queue
// is drained (tests and stop() wait on it).

/** A queue of async jobs run one after another. */
export class WorkLoop {
  private readonly queue: (() => Promise<void>)[] = [];
  private running = false;
  private stopped = false;
  private waiters: (() => void)[] = [];

  /** Called with errors thrown by jobs (they never stop the loop). */
  constructor(private readonly onError: (e: unknown) => void = () => {}) {}

  /** Adds a job. Ignored after stop(). */
  push(job: () => Promise<void>): void {
    if (this.stopped) return;
    this.queue.push(job);
    if (!this.running) void this.run();
  }

  /** Resolves when no job is queued or running. */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Whether a job is queued or running. */
  busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  /** Drops queued jobs and refuses new ones. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length) {
      const job = this.queue.shift()!;
      try {
        await job();
      } catch (e) {
        this.onError(e);
      }
    }
    this.running = false;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
