// One ticket on the board: number, how long it has waited, what the customer has done, and the
// one-tap actions its state allows. Every button names its ticket for screen readers.
import type { Ticket } from '../types.ts';
import { clock, since } from '../ui/format.ts';
import type { TicketAction } from './use-board.ts';

type Props = {
  ticket: Ticket;
  now: number;
  timeZone: string;
  selected: boolean;
  busy: boolean;
  result: string | undefined;
  onAction: (t: Ticket, a: TicketAction) => void;
  onSlip: (t: Ticket) => void;
  onSelect: (t: Ticket) => void;
};

const STATUS_LABEL: Record<Ticket['status'], string> = {
  created: 'Waiting', ready: 'Ready', collected: 'Collected', cancelled: 'Cancelled', expired: 'Expired',
};

export function CustomerState({ t, now, timeZone }: { t: Ticket; now: number; timeZone: string }) {
  const c = t.customer;
  const chips: Array<{ key: string; icon: string; text: string }> = [];
  if (c.viewed_at !== null) chips.push({ key: 'viewed', icon: 'eye', text: 'Seen' });
  if (c.notifications !== 'none') chips.push({ key: 'notify', icon: 'bell', text: c.notifications === 'sms' ? 'SMS on' : 'Alerts on' });
  if (c.acknowledged_at !== null && t.status === 'ready') chips.push({ key: 'ack', icon: 'walk', text: 'On the way' });
  if (c.snoozed_until !== null && Date.parse(c.snoozed_until) > now && t.status === 'ready') {
    chips.push({ key: 'snooze', icon: 'clock', text: `Snoozed until ${clock(c.snoozed_until, timeZone)}` });
  }
  if (chips.length === 0) return <p class="chips-none">Link not opened yet</p>;
  return (
    <ul class="chips" aria-label="Customer">
      {chips.map((ch) => <li key={ch.key} class={`chip chip-${ch.key}`}><Icon name={ch.icon} />{ch.text}</li>)}
    </ul>
  );
}

export function Icon({ name }: { name: string }) {
  const paths: Record<string, string> = {
    eye: 'M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12zm11 3.5a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z',
    bell: 'M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.8V3a1.5 1.5 0 0 0-3 0v1.2A7 7 0 0 0 5 11v5l-2 2v1h18v-1z',
    walk: 'M13.5 5.5a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM9.8 8.9 7 23h2.1l1.8-8 2.1 2v6h2v-7.5l-2.1-2 .6-3A7.3 7.3 0 0 0 19 13v-2a5 5 0 0 1-4.3-2.4l-1-1.6a2 2 0 0 0-2.5-.8L6 8.3V13h2V9.6z',
    clock: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm1 10.4 3.6 2.1-.8 1.3L11 13V7h2z',
  };
  return <svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d={paths[name] ?? ''} /></svg>;
}

function timing(t: Ticket, now: number, timeZone: string): string {
  switch (t.status) {
    case 'created': return `waiting ${since(t.created_at, now)}`;
    case 'ready': return `ready ${since(t.ready_at!, now)} · waited ${since(t.created_at, Date.parse(t.ready_at!))}`;
    case 'collected': return `collected ${clock(t.collected_at!, timeZone)}`;
    case 'cancelled': return `cancelled ${clock(t.cancelled_at!, timeZone)}${t.cancellation_reason ? ` (${t.cancellation_reason})` : ''}`;
    case 'expired': return `expired ${clock(t.expired_at!, timeZone)}`;
  }
}

export function TicketCard({ ticket: t, now, timeZone, selected, busy, result, onAction, onSlip, onSelect }: Props) {
  const n = t.display_number;
  const open = t.status === 'created' || t.status === 'ready';
  return (
    <li class={`ticket ticket-${t.status}${selected ? ' selected' : ''}`} data-ticket={t.id} data-number={n} aria-busy={busy ? 'true' : undefined}
      onClick={(e) => { if (!(e.target as HTMLElement).closest('button')) onSelect(t); }}>
      <div class="ticket-head">
        <span class="number">{n}</span>
        <span class="status-label">{STATUS_LABEL[t.status]}</span>
        {t.rings > 0 && <span class="rings" title="Times rung">rung {t.rings}×</span>}
        {open && <button type="button" class="slip-button" onClick={() => onSlip(t)} aria-label={`Receipt slip for ${n}`}>Slip</button>}
      </div>
      <p class="ticket-meta">
        {t.external_ref !== null && <span class="ref">#{t.external_ref} · </span>}
        <span class="timing">{timing(t, now, timeZone)}</span>
      </p>
      {open && <CustomerState t={t} now={now} timeZone={timeZone} />}
      {open && (
        <div class="actions">
          {t.status === 'created'
            ? <button type="button" class="primary go" disabled={busy} onClick={() => onAction(t, 'ready')} aria-label={`Mark ${n} ready`}>Ready</button>
            : <button type="button" class="primary" disabled={busy} onClick={() => onAction(t, 'ring')} aria-label={`Ring ${n} again`}>Ring again</button>}
          <button type="button" disabled={busy} onClick={() => onAction(t, 'collect')} aria-label={`${n} collected`}>Collected</button>
          <button type="button" class="danger" disabled={busy} onClick={() => onAction(t, 'cancel')} aria-label={`Cancel ${n}`}>Cancel</button>
        </div>
      )}
      {result !== undefined && open && <p class="ring-result">{result}</p>}
    </li>
  );
}
