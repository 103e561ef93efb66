// The `display` channel: asks the branch's connected boards that show the ticket's queue, with
// voice on, to call the number out loud. Delivered (→ `call_out_loud: true`) only when such a board
// confirmed that it spoke; boards that cannot (sound never enabled on the TV) answer "no", so the
// channel stops waiting once all have answered instead of running out the deadline.
import type { Channel, QuietCheck } from './ringer.ts';
import type { ChannelAttempt, RingRequest, RingTarget } from '../core/ring.ts';
import type { BoardPresence, PresenceMember } from '../realtime/presence.ts';
import { presenceScopes } from '../realtime/presence.ts';
import { relayTopics, waitForAck, type BoardRingMessage } from '../realtime/ring-relay.ts';
import { wasDelivered } from '../store/ring-deliveries.ts';
import { getBranch } from '../store/tenancy.ts';
import { isLanguage, SPEECH_LOCALE } from '../i18n/language.ts';
import { calloutText } from '../i18n/board-texts.ts';
import { confirmed, type LiveChannelDeps } from './page.ts';

export function boardShowsQueue(board: BoardPresence, queue: string): boolean {
  return board.queues.length === 0 || board.queues.includes(queue);
}

const VOICE_OFF: ChannelAttempt = { channel: 'display', delivered: false, detail: 'voice call-out is off for the branch' };
const NO_BOARD: ChannelAttempt = { channel: 'display', delivered: false, detail: 'no connected board with voice on shows this queue' };

const speakingBoards = (members: PresenceMember[], queue: string): BoardPresence[] =>
  members.map((m) => m.info as BoardPresence).filter((b) => b.voice && boardShowsQueue(b, queue));

export function createDisplayChannel(deps: LiveChannelDeps): Channel {
  const { db, bus, presence } = deps;
  return {
    name: 'display',
    async lookAhead(target: RingTarget): Promise<QuietCheck> {
      const members = await presence.members(presenceScopes.board(target.branchId, target.mode));
      return ({ ticket, first }) => {
        if (first === undefined) return null;
        if (!first.branch.settings.voice.enabled) return { ...VOICE_OFF };
        return speakingBoards(members, ticket.queue).length === 0 ? { ...NO_BOARD } : null;
      };
    },
    async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
      const { ticket, first } = request;
      if (first === undefined && (await wasDelivered(db, request.ringId, 'display')))
        return { channel: 'display', delivered: true, detail: 'already announced' };
      const branch = first?.branch ?? (await getBranch(db, ticket.branchId));
      if (branch === undefined || !branch.settings.voice.enabled) return { ...VOICE_OFF };
      const boards = speakingBoards(await presence.members(presenceScopes.board(ticket.branchId, ticket.mode)), ticket.queue);
      const displays = new Set(boards.map((b) => b.display));
      if (displays.size === 0) return { ...NO_BOARD };
      const ack = waitForAck(
        bus,
        request.ringId,
        'display',
        (a) => a.branch_id === ticket.branchId && a.mode === ticket.mode && displays.has(a.target),
        displays.size,
        [signal],
      );
      const lang = isLanguage(branch.settings.voice.language) ? branch.settings.voice.language : 'en';
      const message: BoardRingMessage = {
        type: 'board.announce',
        ring_id: request.ringId,
        ticket_id: ticket.id,
        queue: ticket.queue,
        display_number: ticket.displayNumber,
        reason: request.reason,
        speech: calloutText(lang, ticket.displayNumber),
        speech_lang: SPEECH_LOCALE[lang],
      };
      bus.publish(relayTopics.boardRing(ticket.branchId, ticket.mode), message);
      const result = await ack;
      if (result.delivered) return confirmed('display', result);
      return {
        channel: 'display',
        delivered: false,
        detail: result.timedOut ? 'no board confirmed before the deadline' : 'no board could speak (sound not enabled)',
      };
    },
  };
}
