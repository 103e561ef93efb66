// One ticket on the board: number, how long it has waited, what the customer has done, and the
// one-tap actions its state allows. Every button names its ticket for screen readers; what an
// action did (or why it failed) is said on the ticket itself. A ticket whose Collected or Cancel
// waits for its Undo says so, with the Undo; a cancelled or collected one can be brought back
// while its customer page still opens (decision 0047).
import type { Ticket } from '../types.ts';
import { clock, since } from '../ui/format.ts';
import { t } from '../i18n/i18n.ts';
import type { CardResult, ClosingAction, TicketAction } from './use-board.ts';

/** As long as a closed ticket's customer page opens, and so as long as it can be reopened (CLOSED_LINK_TTL_MS). */
const REOPEN_WITHIN_MS = 24 * 3600_000;

type Props = {
  ticket: Ticket;
  now: number;
  timeZone: string;
  selected: boolean;
  busy: boolean;
  result: CardResult | undefined;
  /** Collected or Cancel tapped, waiting for its Undo. */
  closing: ClosingAction | undefined;
  onUndo: (t: Ticket) => void;
  onAction: (t: Ticket, a: TicketAction) => void;
  onSlip: (t: Ticket) => void;
  onSelect: (t: Ticket) => void;
};

const SMS_CHIP = { queued: 'sms', sent: 'sms', delivered: 'sms-delivered', undelivered: 'sms-failed', failed: 'sms-failed' } as const;
const SMS_TEXT = {
  queued: 'card.smsSending',
  sent: 'card.smsSent',
  delivered: 'card.smsDelivered',
  undelivered: 'card.smsFailed',
  failed: 'card.smsFailed',
} as const;

export function CustomerState({ t: ticket, now, timeZone }: { t: Ticket; now: number; timeZone: string }) {
  const c = ticket.customer;
  const chips: Array<{ key: string; icon: string; text: string }> = [];
  if (c.viewed_at !== null) chips.push({ key: 'viewed', icon: 'eye', text: t('card.seen') });
  if (c.notifications !== 'none')
    chips.push({ key: 'notify', icon: 'bell', text: t(c.notifications === 'sms' ? 'card.smsOn' : 'card.alertsOn') });
  // The latest text's delivery receipt: staff see a text that will not arrive, and can call out instead.
  if (ticket.sms_status !== null) chips.push({ key: SMS_CHIP[ticket.sms_status], icon: 'text', text: t(SMS_TEXT[ticket.sms_status]) });
  if (c.acknowledged_at !== null && ticket.status === 'ready') chips.push({ key: 'ack', icon: 'walk', text: t('card.onTheWay') });
  if (c.snoozed_until !== null && Date.parse(c.snoozed_until) > now && ticket.status === 'ready') {
    chips.push({ key: 'snooze', icon: 'clock', text: t('card.snoozed', { time: clock(c.snoozed_until, timeZone) }) });
  }
  if (chips.length === 0) return <p class="chips-none">{t('card.notOpened')}</p>;
  return (
    <ul class="chips" aria-label={t('card.customer')}>
      {chips.map((ch) => (
        <li key={ch.key} class={`chip chip-${ch.key}`}>
          <Icon name={ch.icon} />
          {ch.text}
        </li>
      ))}
    </ul>
  );
}

const PATHS: Record<string, string> = {
  eye: 'M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12zm11 3.5a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z',
  bell: 'M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.8V3a1.5 1.5 0 0 0-3 0v1.2A7 7 0 0 0 5 11v5l-2 2v1h18v-1z',
  walk: 'M13.5 5.5a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM9.8 8.9 7 23h2.1l1.8-8 2.1 2v6h2v-7.5l-2.1-2 .6-3A7.3 7.3 0 0 0 19 13v-2a5 5 0 0 1-4.3-2.4l-1-1.6a2 2 0 0 0-2.5-.8L6 8.3V13h2V9.6z',
  text: 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 6v2h2V9zm4 0v2h2V9zm4 0v2h2V9z',
  clock: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm1 10.4 3.6 2.1-.8 1.3L11 13V7h2z',
  // A plug: the board's connection to the server (not the data mode, which the top bar shows).
  plug: 'M9 2v5H7v4a5 5 0 0 0 4 4.9V22h2v-6.1A5 5 0 0 0 17 11V7h-2V2h-2v5h-2V2z',
  unplugged:
    'M3.3 2 2 3.3l4.6 4.6H7V11a5 5 0 0 0 4 4.9V22h2v-6.1c.9-.2 1.7-.6 2.4-1.2l5.3 5.3 1.3-1.3zM17 11V7h-2V2h-2v5h-1.2L17 12.2z M11 2H9v2.8l2 2z',
};

export function Icon({ name }: { name: string }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={PATHS[name] ?? ''} />
    </svg>
  );
}

function timing(x: Ticket, now: number, timeZone: string): string {
  switch (x.status) {
    case 'created':
      return t('card.waiting', { time: since(x.created_at, now) });
    case 'ready':
      return t('card.readyFor', { time: since(x.ready_at!, now), waited: since(x.created_at, Date.parse(x.ready_at!)) });
    case 'collected':
      return t('card.collectedAt', { time: clock(x.collected_at!, timeZone) });
    case 'cancelled':
      return x.cancellation_reason
        ? t('card.cancelledWhy', { time: clock(x.cancelled_at!, timeZone), reason: x.cancellation_reason })
        : t('card.cancelledAt', { time: clock(x.cancelled_at!, timeZone) });
    case 'expired':
      return t('card.expiredAt', { time: clock(x.expired_at!, timeZone) });
  }
}

export function TicketCard({ ticket: x, now, timeZone, selected, busy, result, closing, onUndo, onAction, onSlip, onSelect }: Props) {
  const number = x.display_number;
  const open = x.status === 'created' || x.status === 'ready';
  const closedAt = x.collected_at ?? x.cancelled_at;
  const reopenable =
    (x.status === 'collected' || x.status === 'cancelled') && closedAt !== null && now - Date.parse(closedAt) < REOPEN_WITHIN_MS;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a tap on the card selects it, a pointer shortcut; the keyboard selects with the board's arrow keys (shortcuts.tsx), and every action on the card is a button
    <li
      class={`ticket ticket-${x.status}${selected ? ' selected' : ''}${closing !== undefined ? ' closing' : ''}`}
      data-ticket={x.id}
      data-number={number}
      aria-busy={busy ? 'true' : undefined}
      onClick={(e) => {
        if (!(e.target as HTMLElement).closest('button')) onSelect(x);
      }}
    >
      <div class="ticket-head">
        <span class="number">{number}</span>
        <span class="status-label">{t(`status.${x.status}`)}</span>
        {x.rings > 0 && (
          <span class="rings" title={t('card.ringsTitle')}>
            {t('card.rings', { count: x.rings })}
          </span>
        )}
        {open && (
          <button type="button" class="slip-button" onClick={() => onSlip(x)} aria-label={t('card.slipFor', { number })}>
            {t('card.slip')}
          </button>
        )}
      </div>
      <p class="ticket-meta">
        {x.metadata?.source === 'square' && <SquareTag />}
        {x.external_ref !== null && <span class="ref">#{x.external_ref} · </span>}
        <span class="timing">{timing(x, now, timeZone)}</span>
      </p>
      {open && <CustomerState t={x} now={now} timeZone={timeZone} />}
      {open && closing !== undefined && (
        <div class="actions closing-note" role="status">
          <span>{t(closing === 'collect' ? 'card.closingCollect' : 'card.closingCancel')}</span>
          <button type="button" class="primary" onClick={() => onUndo(x)} aria-label={t('card.undoLabel', { number })}>
            {t('board.undo')}
          </button>
        </div>
      )}
      {reopenable && (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => onAction(x, 'reopen')} aria-label={t('card.reopenLabel', { number })}>
            {t('card.reopen')}
          </button>
        </div>
      )}
      {open && closing === undefined && (
        <div class="actions">
          {x.status === 'created' ? (
            <button
              type="button"
              class="primary go"
              disabled={busy}
              onClick={() => onAction(x, 'ready')}
              aria-label={t('card.readyLabel', { number })}
            >
              {t('card.ready')}
            </button>
          ) : (
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => onAction(x, 'ring')}
              aria-label={t('card.ringLabel', { number })}
            >
              {t('card.ring')}
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => onAction(x, 'collect')} aria-label={t('card.collectLabel', { number })}>
            {t('card.collect')}
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => onAction(x, 'cancel')}
            aria-label={t('card.cancelLabel', { number })}
          >
            {t('card.cancel')}
          </button>
        </div>
      )}
      {result !== undefined && open && (
        <p class={`ring-result${result.error ? ' ring-error' : ''}`} role={result.error ? 'alert' : undefined}>
          {result.text}
        </p>
      )}
    </li>
  );
}

/**
 * A ticket the Square connector made from a Square order (its metadata says `source: square`,
 * decision 0073): staff know its number is printed on Square's kitchen ticket and that Square may
 * close it too.
 */
function SquareTag() {
  return (
    <span class="tag-square" title={t('card.fromSquareLabel')}>
      <span class="sr-only">{t('card.fromSquareLabel')}</span>
      <span aria-hidden="true">{t('card.fromSquare')}</span>
    </span>
  );
}
