// Periodic housekeeping that every node may run at once without harm: expiring overdue tickets
// (a guarded transition, so a second node's attempt is a no-op), the retention sweep
// (src/store/retention.ts says what goes when) with the erasure of deleted accounts after their 30
// days, and flushing API keys' last_used_at.
import { write } from '../write/idempotent-write.ts';
import type { Services } from '../core/ctx.ts';
import { expireTicket } from '../actions/close-ticket.ts';
import { AppError } from '../domain/errors.ts';
import { listOverdueTickets } from '../store/open-tickets.ts';
import { sweepExpiredRecords, type SweepCounts } from '../store/retention.ts';
import { touchApiKeys } from '../store/credentials.ts';
import { ctxForBranch } from '../actions/system-ctx.ts';
import { foldShards } from '../store/insights-rollups.ts';
import { eraseDeletedAccounts } from './account-deletion.ts';

export class Maintenance {
  private readonly services: Services;
  private readonly lastUsedKeys: Set<string>;
  private timers: NodeJS.Timeout[] = [];

  constructor(services: Services, lastUsedKeys: Set<string>) {
    this.services = services;
    this.lastUsedKeys = lastUsedKeys;
  }

  start(): void {
    const every = (ms: number, fn: () => Promise<unknown>): void => {
      const t = setInterval(() => void fn().catch((err: Error) => this.services.log.warn({ err: err.message }, 'maintenance failed')), ms);
      t.unref();
      this.timers.push(t);
    };
    every(15_000, () => this.expireDue());
    every(60_000, () => this.flushLastUsed());
    every(3600_000, () => this.sweep());
    every(15 * 60_000, () => foldShards(this.services.db, this.services.clock.now()));
  }

  /** Expires open tickets past their branch's expiry; returns how many. */
  async expireDue(limit = 200): Promise<number> {
    const { db, clock } = this.services;
    const due = await listOverdueTickets(db, clock.now(), limit);
    let n = 0;
    for (const t of due) {
      const ctx = await ctxForBranch(this.services, t.branchId, t.mode, 'expiry');
      if (ctx === null) continue;
      try {
        await write(ctx, { verb: expireTicket, input: { id: t.id } });
        n++;
      } catch (err) {
        if (!(err instanceof AppError)) throw err; // closed meanwhile by someone else: fine
      }
    }
    return n;
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsedKeys.size === 0) return;
    const ids = [...this.lastUsedKeys];
    this.lastUsedKeys.clear();
    const now = this.services.clock.now();
    await this.services.db.write((tx) => touchApiKeys(tx, ids, now));
  }

  /**
   * Deletes what is past its retention; returns how many of each kind of record went. Accounts
   * deleted 30 days ago are erased with it (decision 0083).
   */
  async sweep(): Promise<SweepCounts> {
    const counts = await sweepExpiredRecords(this.services.db, this.services.clock.now());
    await eraseDeletedAccounts(this.services, this.services.clock.now());
    return counts;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.flushLastUsed().catch(() => {});
  }
}
