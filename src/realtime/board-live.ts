// The display board's live side: snapshots of its queues and the relay of call-outs. A board
// counts in presence with what it shows and whether it has voice, which is what the display
// channel asks before announcing (so `call_out_loud` reflects the boards really connected).
import { Coalescer } from './coalescer.ts';
import type { BaseServices } from '../core/ctx.ts';
import type { Display } from '../store/displays.ts';
import type { Branch } from '../store/tenancy.ts';
import { isLanguage, type Language } from '../i18n/language.ts';
import { channels } from '../core/bus.ts';
import type { BusMessage } from '../core/bus.ts';
import type { LiveConnection, LiveHub } from './hub.ts';
import type { LiveData } from './live-data.ts';
import { presenceScopes, type BoardPresence } from './presence.ts';
import { relayTopics, type BoardRingMessage } from './ring-relay.ts';
import { buildBoardView, type BoardView } from './board-view.ts';
import type { LiveStream } from './sse.ts';

export type BoardLiveDeps = { services: BaseServices; hub: LiveHub; data: LiveData };

export function boardLanguage(branch: Branch): Language {
  const l = branch.settings.customer_page.language;
  return isLanguage(l) ? l : 'en';
}

export function boardVoice(display: Display, branch: Branch): boolean {
  return display.voice && branch.settings.voice.enabled;
}

export async function loadBoardView(deps: BoardLiveDeps, display: Display, branch: Branch): Promise<BoardView> {
  const [tickets, announcements] = await Promise.all([
    deps.data.openTickets(display.branchId, display.mode),
    deps.data.announcements(display.branchId, display.mode),
  ]);
  const place = { shop: branch.name, timezone: branch.timezone, lang: boardLanguage(branch), voice: boardVoice(display, branch) };
  return buildBoardView(display, place, tickets, announcements, deps.services.clock.now());
}

class BoardConnection implements LiveConnection {
  readonly stream: LiveStream;
  readonly topics: readonly string[];
  readonly presence: LiveConnection['presence'];
  member?: string;
  private readonly deps: BoardLiveDeps;
  private readonly display: Display;
  private readonly voice: boolean;
  private lastJson = '';
  private readonly reload = new Coalescer(
    () => this.load(),
    () => !this.stream.closed,
    (err) => this.deps.services.log.warn({ err }, 'board refresh failed'),
  );

  constructor(deps: BoardLiveDeps, display: Display, branch: Branch, stream: LiveStream) {
    this.deps = deps;
    this.display = display;
    this.stream = stream;
    this.voice = boardVoice(display, branch);
    this.topics = [channels.branch(display.branchId, display.mode), relayTopics.boardRing(display.branchId, display.mode)];
    const info: BoardPresence = { display: display.id, queues: display.queues, voice: this.voice };
    this.presence = { scope: presenceScopes.board(display.branchId, display.mode), info };
  }

  private shows(queue: unknown): boolean {
    return typeof queue === 'string' && (this.display.queues.length === 0 || this.display.queues.includes(queue));
  }

  onMessage(_topic: string, message: BusMessage): void {
    const type = String(message.type);
    if (type === 'board.announce') {
      const m = message as BoardRingMessage;
      if (!this.voice || !this.shows(m.queue)) return;
      this.stream.send('announce', {
        ring_id: m.ring_id,
        number: m.display_number,
        speech: m.speech,
        speech_lang: m.speech_lang,
        reason: m.reason,
      });
      return;
    }
    if (type === 'display.deleted') {
      if (message.display_id !== this.display.id) return;
      this.stream.send('gone', { reason: 'deleted' });
      this.stream.close();
      return;
    }
    if (type.startsWith('announcement.') || (type.startsWith('ticket.') && this.shows(message.queue))) this.refresh();
  }

  refresh(): void {
    this.reload.trigger();
  }

  async load(force = false): Promise<void> {
    if (this.stream.closed) return;
    const branch = await this.deps.data.branch(this.display.branchId);
    if (branch === undefined) return this.stream.close();
    const view = await loadBoardView(this.deps, this.display, branch);
    // Ages change every time; compare without them so an unchanged board is not resent.
    const json = JSON.stringify({ ...view, ready: view.ready.map((r) => r.number) });
    if (!force && json === this.lastJson) return;
    this.lastJson = json;
    this.stream.send('snapshot', view);
  }
}

/** Attaches a board's SSE stream; the first event is a fresh snapshot, also after a reconnect. */
export async function attachBoardStream(deps: BoardLiveDeps, display: Display, branch: Branch, stream: LiveStream): Promise<void> {
  const conn = new BoardConnection(deps, display, branch, stream);
  await deps.hub.attach(conn);
  await conn.load(true);
}
