// Whether this node asks Redis now (decision 0053). Redis carries what nodes share (rate-limit
// buckets, presence, the live bus), never what a request needs to be served, so a node that loses
// it degrades instead of failing: while Redis is down every use of it takes its per-node fallback
// at once, and no request waits for a Redis that does not answer.
//
// Down: a command failed (refused, timed out after REDIS_COMMAND_TIMEOUT_MS) or a connection
// closed. Up again: a probe (PING on every command connection) answered, tried every
// REDIS_RETRY_MS and as soon as a connection is ready again. Only the probe asks Redis while it
// is down, so an outage costs requests nothing and a recovery is seen within one retry.
import type { Redis } from 'ioredis';

export type BreakerListener = (up: boolean) => void;

export class RedisBreaker {
  private down = false;
  private probing = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly listeners: BreakerListener[] = [];

  /** The connections commands go through: pinged to decide Redis is back. */
  private readonly probed: readonly Redis[];
  /** `watched`: connections that must be ready too but are never pinged (the subscriber, whose commands wait in its offline queue). */
  private readonly opts: { retryMs: number; watched?: readonly Redis[]; onChange?: BreakerListener };

  constructor(
    probed: readonly Redis[],
    opts: { retryMs: number; watched?: readonly Redis[]; onChange?: BreakerListener } = { retryMs: 1000 },
  ) {
    this.probed = probed;
    this.opts = opts;
    if (opts.onChange !== undefined) this.listeners.push(opts.onChange);
    for (const c of this.connections()) {
      c.on('close', () => this.failed());
      c.on('ready', () => void this.probe());
    }
  }

  private connections(): Redis[] {
    return [...this.probed, ...(this.opts.watched ?? [])];
  }

  /** Whether Redis may be asked now. */
  get up(): boolean {
    return !this.down && this.connections().every((c) => c.status === 'ready');
  }

  /** Resolves once Redis is up (true) or after `timeoutMs` (false): a node starts with Redis when it can, and without it when it cannot. */
  async whenUp(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!this.up) {
      if (performance.now() >= deadline || this.closed) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    return true;
  }

  onChange(listener: BreakerListener): void {
    this.listeners.push(listener);
  }

  /** A command failed or a connection closed: stop asking Redis until a probe answers. */
  failed(): void {
    if (this.closed) return;
    if (!this.down) {
      this.down = true;
      this.emit(false);
    }
    this.schedule();
  }

  /** `attempt` through Redis when it is up, else (or when it fails) `fallback`, at once. */
  async run<T>(attempt: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (!this.up) return fallback();
    try {
      return await attempt();
    } catch {
      this.failed();
      return fallback();
    }
  }

  private schedule(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.probe();
    }, this.opts.retryMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    if (!this.down || this.probing || this.closed) return;
    this.probing = true;
    try {
      if (!this.connections().every((c) => c.status === 'ready')) throw new Error('not connected');
      await Promise.all(this.probed.map((c) => c.ping()));
      this.down = false;
      this.emit(true);
    } catch {
      this.schedule();
    } finally {
      this.probing = false;
    }
  }

  private emit(up: boolean): void {
    for (const l of this.listeners) l(up);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
