// The board's data: a snapshot of the branch's tickets from GET /v1/tickets, kept current by
// GET /v1/stream, and the one-tap actions. After every (re)connect the snapshot is read again,
// so a board that lost its connection never keeps a stale state. Collected and Cancel wait
// UNDO_MS with an Undo before they are sent (decision 0047): undone, nothing was sent at all.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, newIdempotencyKey } from '../api.ts';
import type { RingResult, Ticket } from '../types.ts';
import { t } from '../i18n/i18n.ts';
import { problemText } from '../ui/field-errors.tsx';
import { useLiveStream } from '../ui/use-live-stream.ts';
import type { NoticeKind, NoticeOptions } from '../ui/notify.tsx';

export type TicketAction = 'ready' | 'ring' | 'collect' | 'cancel' | 'reopen';
export type ClosingAction = 'collect' | 'cancel';
export type CardResult = { text: string; error: boolean };
type Say = (text: string, kind?: NoticeKind, options?: NoticeOptions) => void;

/** How long a Collected or Cancel can be undone before it is sent. */
export const UNDO_MS = 5000;

export const CLOSED_SHOWN = 12;

export function ringSummary(r: RingResult): string {
  const number = r.ticket.display_number;
  const reached = r.rang
    ? t(r.channel_used === 'push' ? 'ring.rangPush' : r.channel_used === 'sms' ? 'ring.rangSms' : 'ring.rangPage', { number })
    : r.channel_used === 'unknown'
      ? t('ring.unknown', { number })
      : t('ring.nobody', { number });
  return t('ring.summary', { reached, voice: t(r.call_out_loud ? 'ring.voiceYes' : 'ring.voiceNo') });
}

const closedAt = (t: Ticket): string => t.collected_at ?? t.cancelled_at ?? t.expired_at ?? t.created_at;

export function sortBoard(tickets: Iterable<Ticket>) {
  const all = [...tickets];
  // Ids sort by creation, so they break ties between tickets stamped in the same millisecond.
  const by = (key: (t: Ticket) => string) => (a: Ticket, b: Ticket) => key(a).localeCompare(key(b)) || a.id.localeCompare(b.id);
  const waiting = all.filter((t) => t.status === 'created').sort(by((t) => t.created_at));
  const ready = all.filter((t) => t.status === 'ready').sort(by((t) => t.ready_at ?? ''));
  const closed = all
    .filter((t) => t.status !== 'created' && t.status !== 'ready')
    .sort(by(closedAt))
    .reverse()
    .slice(0, CLOSED_SHOWN);
  return { waiting, ready, closed };
}

export function useBoard(say: Say, announce: (text: string) => void) {
  const [tickets, setTickets] = useState<Map<string, Ticket>>(new Map());
  const [loaded, setLoaded] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [results, setResults] = useState<ReadonlyMap<string, CardResult>>(new Map());
  // Intent → Idempotency-Key. A double tap or a retry after a lost answer sends the same key, so
  // the server answers once; the key is forgotten only once the server has given a final answer.
  const intents = useRef(new Map<string, string>());
  const inflight = useRef(new Set<string>());

  const upsert = useCallback((t: Ticket) => setTickets((m) => new Map(m).set(t.id, t)), []);
  const remove = useCallback(
    (id: string) =>
      setTickets((m) => {
        const next = new Map(m);
        next.delete(id);
        return next;
      }),
    [],
  );

  const reload = useCallback(async () => {
    const q = (status: string, limit: number) => call('listTickets', { query: { status, limit } });
    try {
      const [waiting, ready, closed] = await Promise.all([
        q('created', 100),
        q('ready', 100),
        q('collected,cancelled,expired', CLOSED_SHOWN),
      ]);
      setTickets(new Map([...waiting.data, ...ready.data, ...closed.data].map((t) => [t.id, t])));
      setLoaded(true);
      setLoadError(null);
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) setLoadError(problemText(err));
    }
  }, [say]);

  // A message names a ticket; it is read a moment later, once for a burst of changes to it.
  const fetchSoon = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const refresh = (id: string) => {
    clearTimeout(fetchSoon.current.get(id));
    fetchSoon.current.set(
      id,
      setTimeout(() => {
        fetchSoon.current.delete(id);
        call('getTicket', { params: { id } }).then(upsert, (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) remove(id);
        });
      }, 60),
    );
  };
  const live = useLiveStream({
    onReady: () => void reload(),
    onTicket: (m) => {
      if (m.type === 'ticket.created') announce(t('board.announceNew', { number: m.display_number ?? '' }));
      if (m.type === 'ticket.customer_acknowledged') announce(t('board.announceOnWay', { number: m.display_number ?? '' }));
      refresh(m.ticket_id!);
    },
    onStop: () => {
      for (const timer of fetchSoon.current.values()) clearTimeout(timer);
    },
  });
  // The first snapshot does not wait for the stream: a board behind a proxy that drops event
  // streams still shows (and refreshes after each action), it just is not live.
  useEffect(() => {
    void reload();
  }, [reload]);

  const send = useCallback(
    async (ticket: Ticket, action: TicketAction, keepalive = false) => {
      const intent = `${action}:${ticket.id}:${ticket.rings}`;
      if (inflight.current.has(intent)) return;
      inflight.current.add(intent);
      let key = intents.current.get(intent);
      if (key === undefined) {
        key = newIdempotencyKey(`staff-${action}`);
        intents.current.set(intent, key);
      }
      setPending((p) => new Set(p).add(ticket.id));
      const number = ticket.display_number;
      const show = (text: string, error = false) => setResults((m) => new Map(m).set(ticket.id, { text, error }));
      const request = { params: { id: ticket.id }, idempotencyKey: key, body: {}, keepalive };
      try {
        if (action === 'ready' || action === 'ring') {
          const r = action === 'ready' ? await call('markTicketReady', request) : await call('ringTicket', request);
          upsert(r.ticket);
          show(ringSummary(r));
          // The card has just moved (to the end of the Ready column, often off-screen): the result
          // is also said where staff are looking, and when nobody was reached it stays until
          // dismissed, because then staff must call the number themselves.
          say(ringSummary(r), r.rang ? 'success' : 'warning', r.rang ? {} : { ms: null });
        } else if (action === 'reopen') {
          upsert(await call('reopenTicket', request));
          say(t('board.reopenedDone', { number }), 'success');
        } else {
          // Said when tapped, with its Undo; the answer only moves the card.
          upsert(action === 'collect' ? await call('collectTicket', request) : await call('cancelTicket', request));
        }
        intents.current.delete(intent);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.status >= 400 && err.status < 500) intents.current.delete(intent);
        if (err.problem.code === 'ticket-state-conflict') {
          say(t('board.conflict', { number, status: t(`status.${(err.problem.ticket_status ?? 'changed') as 'changed'}`) }), 'warning');
          void reload();
        } else if (err.status === 404) {
          say(t('board.gone', { number }), 'warning');
          void reload();
        } else if (err.status !== 401) {
          // Said on the ticket it is about, where staff are looking.
          show(problemText(err), true);
        }
      } finally {
        inflight.current.delete(intent);
        setPending((p) => {
          const next = new Set(p);
          next.delete(ticket.id);
          return next;
        });
      }
    },
    [upsert, reload, say],
  );

  // Closes waiting for their Undo: the card shows it is closing; the request leaves when the time
  // is up, or at once when staff leave the board or close the tab (never lost, never twice).
  const [closing, setClosing] = useState<ReadonlyMap<string, ClosingAction>>(new Map());
  const waitingCloses = useRef(new Map<string, { ticket: Ticket; action: ClosingAction; timer: ReturnType<typeof setTimeout> }>());
  const settle = useCallback((id: string) => {
    const w = waitingCloses.current.get(id);
    waitingCloses.current.delete(id);
    if (w !== undefined) clearTimeout(w.timer);
    setClosing((m) => {
      const next = new Map(m);
      next.delete(id);
      return next;
    });
    return w;
  }, []);
  const sendRef = useRef(send);
  sendRef.current = send;
  useEffect(() => {
    const flush = (keepalive: boolean) => {
      for (const id of [...waitingCloses.current.keys()]) {
        const w = settle(id)!;
        void sendRef.current(w.ticket, w.action, keepalive);
      }
    };
    const onHide = () => flush(true);
    addEventListener('pagehide', onHide);
    return () => {
      removeEventListener('pagehide', onHide);
      flush(true);
    };
  }, [settle]);

  const undo = useCallback(
    (id: string) => {
      const w = settle(id);
      if (w !== undefined) announce(t('board.undone', { number: w.ticket.display_number }));
    },
    [settle, announce],
  );

  const perform = useCallback(
    async (ticket: Ticket, action: TicketAction) => {
      // A ticket closing in a moment takes no other action (a shortcut on the selected card).
      if (waitingCloses.current.has(ticket.id)) return;
      if (action !== 'collect' && action !== 'cancel') return send(ticket, action);
      const number = ticket.display_number;
      const timer = setTimeout(() => {
        const w = settle(ticket.id);
        if (w !== undefined) void send(w.ticket, w.action);
      }, UNDO_MS);
      waitingCloses.current.set(ticket.id, { ticket, action, timer });
      setClosing((m) => new Map(m).set(ticket.id, action));
      say(t(action === 'collect' ? 'board.collectedDone' : 'board.cancelledDone', { number }), 'success', {
        ms: UNDO_MS,
        action: { label: t('board.undo'), run: () => undo(ticket.id) },
      });
    },
    [send, settle, say, undo],
  );

  return { tickets, loaded, loadError, live, pending, results, closing, perform, undo, upsert, reload };
}
