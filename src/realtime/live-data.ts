// The reads behind live snapshots, cached per branch so that one change fanned out to many open
// pages costs one query, not one per page. Caches are dropped by the same bus messages that make
// them stale (every node receives those), or after a short TTL for what no message announces
// (branch settings, preparation times).
import type { Clock } from '../core/clock.ts';
import type { Queryable } from '../core/db.ts';
import type { Branch } from '../store/tenancy.ts';
import type { Mode, Plan } from '../core/tenancy.ts';
import { getAccount, getBranch } from '../store/tenancy.ts';
import { listActiveAnnouncements, type Announcement } from '../store/announcements.ts';
import { openTickets, recentPrepTimes, waitingIds, type BoardTicket } from '../store/live-queries.ts';

const BRANCH_TTL_MS = 10_000;
const PREP_TTL_MS = 60_000;
/** Preparation times older than this say little about the wait now. */
const PREP_WINDOW_MS = 3 * 60 * 60 * 1000;
const MAX_ENTRIES = 50_000;

type Cached<T> = { value: Promise<T>; at: number };

class TtlCache<T> {
  private readonly map = new Map<string, Cached<T>>();
  private readonly ttlMs: number;
  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }
  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.map.get(key);
    if (hit !== undefined && now - hit.at < this.ttlMs) return hit.value;
    if (this.map.size >= MAX_ENTRIES) this.map.clear();
    const value = load();
    this.map.set(key, { value, at: now });
    // A failed read must not be served from the cache until its TTL runs out.
    value.catch(() => {
      if (this.map.get(key)?.value === value) this.map.delete(key);
    });
    return value;
  }
  drop(key: string): void {
    this.map.delete(key);
  }
  dropPrefix(prefix: string): void {
    for (const k of this.map.keys()) if (k.startsWith(prefix)) this.map.delete(k);
  }
}

export class LiveData {
  private readonly db: Queryable;
  private readonly clock: Clock;
  private readonly branches = new TtlCache<Branch | undefined>(BRANCH_TTL_MS);
  private readonly plans = new TtlCache<Plan>(BRANCH_TTL_MS);
  private readonly prep = new TtlCache<number | null>(PREP_TTL_MS);
  private readonly announcementsCache = new TtlCache<Announcement[]>(60_000);
  private readonly waiting = new TtlCache<string[]>(60_000);
  private readonly open = new TtlCache<BoardTicket[]>(60_000);

  constructor(db: Queryable, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  branch(branchId: string): Promise<Branch | undefined> {
    return this.branches.get(branchId, () => getBranch(this.db, branchId));
  }

  /** The plan of an account (what its customer pages may offer), like branch settings for a few seconds. */
  plan(accountId: string): Promise<Plan> {
    return this.plans.get(accountId, async () => (await getAccount(this.db, accountId))?.plan ?? 'free');
  }

  /** Median preparation time of the branch's recent tickets, or null with too few to judge. */
  medianPrepMs(branchId: string, mode: Mode): Promise<number | null> {
    return this.prep.get(`${branchId}:${mode}`, async () => {
      const times = (await recentPrepTimes(this.db, branchId, mode, this.clock.now() - PREP_WINDOW_MS)).sort((a, b) => a - b);
      if (times.length < 3) return null;
      return times[Math.floor(times.length / 2)]!;
    });
  }

  async announcements(branchId: string, mode: Mode): Promise<Announcement[]> {
    const all = await this.announcementsCache.get(`${branchId}:${mode}`, () =>
      listActiveAnnouncements(this.db, branchId, mode, this.clock.now()),
    );
    const now = this.clock.now();
    return all.filter((a) => a.expiresAt > now);
  }

  /** 1 for the next ticket to be prepared; null when the ticket is not waiting. */
  async position(branchId: string, mode: Mode, queue: string, ticketId: string): Promise<number | null> {
    const ids = await this.waiting.get(`${branchId}:${mode}:${queue}`, () => waitingIds(this.db, branchId, mode, queue));
    const i = ids.indexOf(ticketId);
    return i === -1 ? null : i + 1;
  }

  openTickets(branchId: string, mode: Mode): Promise<BoardTicket[]> {
    return this.open.get(`${branchId}:${mode}`, () => openTickets(this.db, branchId, mode));
  }

  /**
   * A ticket of the branch changed (now `status`, in `queue`), or, with queue null, anything may
   * have: positions and board lists are stale, and preparation times once a ticket is ready.
   */
  ticketsChanged(branchId: string, mode: Mode, queue: string | null, status: string | null = null): void {
    if (queue === null) this.waiting.dropPrefix(`${branchId}:${mode}:`);
    else this.waiting.drop(`${branchId}:${mode}:${queue}`);
    this.open.drop(`${branchId}:${mode}`);
    if (queue === null || status === 'ready') this.prep.drop(`${branchId}:${mode}`);
  }

  /** Branch settings changed (or may have): read them again. */
  branchChanged(branchId: string): void {
    this.branches.drop(branchId);
  }

  announcementsChanged(branchId: string, mode: Mode): void {
    this.announcementsCache.drop(`${branchId}:${mode}`);
  }
}
