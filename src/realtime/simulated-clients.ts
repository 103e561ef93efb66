// Customer pages and display boards that readybell plays itself in test mode, so that an
// integrator sees `channel_used: "page"` and `call_out_loud: true` with a test key and no browser.
// Each is a live connection like a browser's (the same hub, presence entry, bus topics and
// snapshots); only its stream differs: instead of writing to a socket it answers rings the way the
// page's and board's scripts do, through the same confirmation (ring-confirm.ts), marked simulated.
// Like a browser tab left open it lives on the node that opened it, for the minutes asked, and goes
// with that node.
import type { ClientSimulator, SimulatedTarget } from '../core/client-simulator.ts';
import type { Mode } from '../core/tenancy.ts';
import { notFound } from '../domain/errors.ts';
import { getDisplay } from '../store/displays.ts';
import { getBranch } from '../store/tenancy.ts';
import { getTicket } from '../store/tickets.ts';
import { isLanguage } from '../i18n/language.ts';
import { attachBoardStream, type BoardLiveDeps } from './board-live.ts';
import { attachPageStream, type CustomerLiveDeps } from './customer-live.ts';
import { confirmBoardRing, confirmPageRing } from './ring-confirm.ts';
import type { LiveStream } from './sse.ts';

/** How long a simulated page or board stays connected. */
export const SIMULATED_MINUTES = { min: 1, max: 60, default: 10 } as const;
/** Per node; opening one more closes the one opened longest ago, as a browser closes old tabs. */
export const MAX_SIMULATED_CLIENTS = 1000;

type Answer = (event: string, data: { ring_id?: unknown }) => void;

class SimulatedStream implements LiveStream {
  closed = false;
  private handlers: Array<() => void> = [];
  private readonly answer: Answer;
  private readonly timer: NodeJS.Timeout;

  constructor(answer: Answer, ms: number) {
    this.answer = answer;
    this.timer = setTimeout(() => this.close(), ms);
    this.timer.unref();
  }

  send(event: string, data: unknown): void {
    if (!this.closed) this.answer(event, (data ?? {}) as { ring_id?: unknown });
  }

  ping(): void {}

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.handlers.push(fn);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    const handlers = this.handlers;
    this.handlers = [];
    for (const h of handlers) h();
  }
}

function testOnly(mode: Mode): void {
  // The routes already refuse live keys; this keeps a live ticket or board out whatever calls it.
  if (mode !== 'test') throw new Error('simulated pages and boards exist in test mode only');
}

export class SimulatedClients implements ClientSimulator {
  private readonly deps: CustomerLiveDeps & BoardLiveDeps;
  private readonly open = new Map<string, SimulatedStream>();
  private readonly max: number;

  constructor(deps: CustomerLiveDeps & BoardLiveDeps, opts: { max?: number } = {}) {
    this.deps = deps;
    this.max = opts.max ?? MAX_SIMULATED_CLIENTS;
  }

  get size(): number {
    return this.open.size;
  }

  /** Opens the ticket's page (again: for `minutes` from now); resolves once a ring would reach it. */
  async openPage(target: SimulatedTarget, minutes: number): Promise<void> {
    testOnly(target.mode);
    const { services } = this.deps;
    const ticket = await getTicket(services.db, target.branchId, target.mode, target.id);
    const branch = await getBranch(services.db, target.branchId);
    if (ticket === undefined || branch === undefined) throw notFound('ticket');
    const stream = this.start(`page:${ticket.id}`, minutes, (event, data) => {
      if (event !== 'ring' || typeof data.ring_id !== 'string') return;
      confirmPageRing(services, ticket, data.ring_id, { simulated: true }).catch((err: unknown) =>
        services.log.warn({ err }, 'simulated page failed to confirm a ring'),
      );
    });
    const lang = branch.settings.customer_page.language;
    await attachPageStream(this.deps, ticket, isLanguage(lang) ? lang : 'en', stream);
  }

  /**
   * Connects a board of the display with sound enabled (again: for `minutes` from now). It speaks
   * what a real board would be asked to: nothing when voice is off for the display or the branch.
   */
  async connectBoard(target: SimulatedTarget, minutes: number): Promise<void> {
    testOnly(target.mode);
    const { services } = this.deps;
    const display = await getDisplay(services.db, target.branchId, target.mode, target.id);
    const branch = await getBranch(services.db, target.branchId);
    if (display === undefined || branch === undefined) throw notFound('display');
    const stream = this.start(`board:${display.id}`, minutes, (event, data) => {
      if (event !== 'announce' || typeof data.ring_id !== 'string') return;
      confirmBoardRing(services, display, data.ring_id, true, { simulated: true }).catch((err: unknown) =>
        services.log.warn({ err }, 'simulated board failed to confirm a call-out'),
      );
    });
    await attachBoardStream(this.deps, display, branch, stream);
  }

  /** Disconnects them all (their presence entries go with them). */
  close(): void {
    for (const stream of [...this.open.values()]) stream.close();
  }

  private start(key: string, minutes: number, answer: Answer): SimulatedStream {
    this.open.get(key)?.close();
    if (this.open.size >= this.max) this.open.values().next().value?.close();
    const stream = new SimulatedStream(answer, minutes * 60_000);
    this.open.set(key, stream);
    stream.onClose(() => {
      if (this.open.get(key) === stream) this.open.delete(key);
    });
    return stream;
  }
}
