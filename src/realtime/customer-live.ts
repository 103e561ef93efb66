// The customer page's live side: the snapshot loader shared with the first HTML, and the stream
// connection that keeps a page current (its ticket, its place in the queue, announcements) and
// relays rings to it. Snapshots are recomputed, never patched, so a page can never drift.
import { Coalescer } from './coalescer.ts';
import type { BaseServices } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { getTicket } from '../store/tickets.ts';
import type { Branch } from '../store/tenancy.ts';
import { ringIdOf } from '../store/live-queries.ts';
import type { Language } from '../i18n/language.ts';
import { channels } from '../core/bus.ts';
import type { BusMessage } from '../core/bus.ts';
import type { LiveConnection, LiveHub } from './hub.ts';
import type { LiveData } from './live-data.ts';
import { presenceScopes } from './presence.ts';
import { relayTopics, type PageRingMessage } from './ring-relay.ts';
import { buildPageView, pageState, withPosition, type PageView } from './page-view.ts';
import { phoneEntryOffered } from '../domain/customer-phone.ts';
import type { LiveStream } from './sse.ts';

export type CustomerLiveDeps = { services: BaseServices; hub: LiveHub; data: LiveData };

/** A ticket that is no longer waiting may have been ahead of this one (customer events never move it). */
const mayLeaveQueue = (m: BusMessage): boolean => m.status !== 'created' && !String(m.type).startsWith('ticket.customer_');
const WAIT_REFRESH_MS = 60_000;
/**
 * Position updates wait this long: a burst of readys then moves a queue's pages once, and the
 * work never sits between a ready and its ring.
 */
const POSITION_DELAY_MS = 100;

export async function loadPageView(deps: CustomerLiveDeps, ticket: Ticket, branch: Branch, lang: Language): Promise<PageView> {
  const { data } = deps;
  const now = deps.services.clock.now();
  const state = pageState(ticket, now);
  const [position, medianPrepMs, announcements, ringId, phoneEntry] = await Promise.all([
    state === 'created' ? data.position(ticket.branchId, ticket.mode, ticket.queue, ticket.id) : null,
    state === 'created' ? data.medianPrepMs(ticket.branchId, ticket.mode) : null,
    data.announcements(ticket.branchId, ticket.mode),
    state === 'ready' && ticket.rings > 0 ? ringIdOf(deps.services.db, ticket.id, ticket.rings) : null,
    // The plan is read only for the few branches that ask for phone numbers.
    branch.settings.customer_page.phone_entry
      ? data.plan(branch.accountId).then((plan) =>
          phoneEntryOffered({
            settings: branch.settings,
            plan,
            livemode: ticket.mode === 'live',
            configured: (channel) => deps.services.config[channel] !== null,
          }),
        )
      : false,
  ]);
  return buildPageView({ ticket, branch, lang, now, position, medianPrepMs, announcements, ringId, phoneEntry });
}

class PageConnection implements LiveConnection {
  readonly stream: LiveStream;
  readonly topics: readonly string[];
  readonly presence: LiveConnection['presence'];
  member?: string;
  private readonly deps: CustomerLiveDeps;
  private readonly ticketId: string;
  private readonly branchId: string;
  private readonly mode: Ticket['mode'];
  private readonly queue: string;
  private readonly lang: Language;
  private status: string;
  private hasWaitText = false;
  private lastView: PageView | null = null;
  private positionTimer: NodeJS.Timeout | null = null;
  private lastSentAt = 0;
  private readonly reload = new Coalescer(
    () => this.load(),
    () => !this.stream.closed,
    (err) => this.deps.services.log.warn({ err }, 'customer page refresh failed'),
  );

  constructor(deps: CustomerLiveDeps, ticket: Ticket, lang: Language, stream: LiveStream) {
    this.deps = deps;
    this.stream = stream;
    this.ticketId = ticket.id;
    this.branchId = ticket.branchId;
    this.mode = ticket.mode;
    this.queue = ticket.queue;
    this.lang = lang;
    this.status = ticket.status;
    this.topics = [relayTopics.pageRing(ticket.id), channels.branch(ticket.branchId, ticket.mode)];
    // A closed ticket's page is told its final state but is not "open" for rings.
    this.presence = ticket.status === 'created' || ticket.status === 'ready' ? { scope: presenceScopes.page(ticket.id), info: {} } : null;
    stream.onClose(() => {
      if (this.positionTimer !== null) clearTimeout(this.positionTimer);
    });
  }

  onMessage(topic: string, message: BusMessage): void {
    if (message.type === 'page.ring') {
      const m = message as PageRingMessage;
      if (m.ticket_id !== this.ticketId) return;
      this.stream.send('ring', { ring_id: m.ring_id, seq: m.seq, reason: m.reason });
      return;
    }
    if (topic.startsWith('ticket:') || (typeof message.type === 'string' && message.type.startsWith('announcement.'))) {
      this.refresh();
      return;
    }
    if (this.status === 'created' && message.queue === this.queue && message.ticket_id !== this.ticketId && mayLeaveQueue(message))
      this.schedulePosition();
  }

  private schedulePosition(): void {
    if (this.positionTimer !== null) return;
    this.positionTimer = setTimeout(() => {
      this.positionTimer = null;
      void this.updatePosition().catch((err: unknown) => this.deps.services.log.warn({ err }, 'customer page position update failed'));
    }, POSITION_DELAY_MS);
  }

  /** Moves the page up the queue from the shared (cached) waiting list: no per-page reads. */
  private async updatePosition(): Promise<void> {
    const view = this.lastView;
    if (this.stream.closed || view === null || view.state !== 'created') return;
    const position = await this.deps.data.position(this.branchId, this.mode, this.queue, this.ticketId);
    if (position === view.position) return;
    if (position === null || this.reload.busy) return this.refresh();
    this.send(withPosition(view, position));
  }

  private send(view: PageView): void {
    this.lastView = view;
    this.lastSentAt = Date.now();
    this.stream.send('snapshot', view);
  }

  onHeartbeat(): void {
    // The estimated wait shrinks with time even when nothing happens.
    if (this.hasWaitText && Date.now() - this.lastSentAt >= WAIT_REFRESH_MS) this.refresh();
  }

  refresh(): void {
    this.reload.trigger();
  }

  async load(force = false): Promise<void> {
    if (this.stream.closed) return;
    const { db } = this.deps.services;
    const [ticket, branch] = await Promise.all([
      getTicket(db, this.branchId, this.mode, this.ticketId),
      this.deps.data.branch(this.branchId),
    ]);
    if (ticket === undefined || branch === undefined) return this.stream.close();
    const view = await loadPageView(this.deps, ticket, branch, this.lang);
    this.status = ticket.status;
    this.hasWaitText = view.wait_text !== null;
    if (!force && this.lastView !== null && JSON.stringify(view) === JSON.stringify(this.lastView)) return;
    this.send(view);
  }
}

/**
 * Attaches an open SSE stream to a ticket. The first event is always a fresh snapshot (also for
 * a reconnect with Last-Event-ID), read after the subscriptions are in place so that nothing
 * published meanwhile is lost.
 */
export async function attachPageStream(deps: CustomerLiveDeps, ticket: Ticket, lang: Language, stream: LiveStream): Promise<void> {
  const conn = new PageConnection(deps, ticket, lang, stream);
  await deps.hub.attach(conn);
  await conn.load(true);
}
