// Whole example objects for the reference: one ticket's life (created 12:00, ready 12:09, on its
// way 12:09:48, collected 12:11), so that an answer shows a ticket in the state that answer
// leaves it in. The tests validate every one against its schema.
import { EXAMPLE_IDS, EXAMPLE_REQUEST_ID, EXAMPLE_TICKET_URL, EXAMPLE_TIME } from './schema-parts.ts';
import type { EventType } from './event-types.ts';

const at = (time: string): string => `2026-11-22T${time}.000Z`;

const created = {
  object: 'ticket',
  id: EXAMPLE_IDS.ticket,
  display_number: 'A-42',
  queue: 'A',
  status: 'created',
  url: EXAMPLE_TICKET_URL,
  external_ref: '1001',
  metadata: { table: '12' },
  livemode: false,
  branch: EXAMPLE_IDS.branch,
  created_at: EXAMPLE_TIME,
  ready_at: null,
  collected_at: null,
  cancelled_at: null,
  expired_at: null,
  cancellation_reason: null,
  customer: { viewed_at: null, notifications: 'none', acknowledged_at: null, snoozed_until: null },
  rings: 0,
  sms_status: null,
};
const viewed = { ...created, customer: { ...created.customer, viewed_at: at('12:00:41') } };
const subscribed = { ...viewed, customer: { ...viewed.customer, notifications: 'push' } };
const ready = { ...subscribed, status: 'ready', ready_at: at('12:09:30'), rings: 1 };
const acknowledged = { ...ready, customer: { ...ready.customer, acknowledged_at: at('12:09:48') } };
const snoozed = { ...ready, customer: { ...ready.customer, snoozed_until: at('12:14:40') } };

export const EXAMPLE_TICKETS = {
  created,
  viewed,
  subscribed,
  ready,
  acknowledged,
  snoozed,
  collected: { ...acknowledged, status: 'collected', collected_at: at('12:11:02') },
  cancelled: { ...created, status: 'cancelled', cancelled_at: at('12:03:15'), cancellation_reason: 'Out of stock' },
  expired: { ...ready, status: 'expired', expired_at: at('23:59:59'), rings: 3 },
};

export const EXAMPLE_RING = {
  id: EXAMPLE_IDS.ring,
  seq: 1,
  reason: 'ready',
  rang: true,
  channel_used: 'push',
  call_out_loud: true,
  channels: [
    { channel: 'push', delivered: true, detail: 'accepted' },
    { channel: 'page', delivered: false, detail: 'no page open' },
    { channel: 'display', delivered: true },
  ],
};

export const EXAMPLE_RING_RESULT = { rang: true, channel_used: 'push', call_out_loud: true, ticket: ready };

export const EXAMPLE_ENDPOINT = {
  object: 'webhook_endpoint',
  id: EXAMPLE_IDS.webhookEndpoint,
  url: 'https://pos.example.com/readybell/webhooks',
  enabled_events: ['*'],
  description: 'POS at the counter',
  disabled: false,
  disabled_reason: null,
  disabled_at: null,
  previous_secret_expires_at: null,
  livemode: false,
  branch: EXAMPLE_IDS.branch,
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

const byApi = (key: string) => ({ id: EXAMPLE_REQUEST_ID, idempotency_key: key });

const EVENTS: Record<EventType, { time: string; data: Record<string, unknown>; request: ReturnType<typeof byApi> | null }> = {
  'ticket.created': { time: EXAMPLE_TIME, data: { object: created }, request: byApi('order-1001-create') },
  'ticket.customer_viewed': { time: at('12:00:41'), data: { object: viewed }, request: null },
  'ticket.customer_subscribed': { time: at('12:00:52'), data: { object: subscribed, channel: 'push' }, request: null },
  'ticket.ready': { time: at('12:09:30'), data: { object: ready, previous_status: 'created' }, request: byApi('order-1001-ready') },
  'ticket.rung': { time: at('12:09:31'), data: { object: ready, ring: EXAMPLE_RING }, request: byApi('order-1001-ready') },
  'ticket.customer_acknowledged': { time: at('12:09:48'), data: { object: acknowledged, via: 'page' }, request: null },
  'ticket.customer_snoozed': {
    time: at('12:09:40'),
    data: { object: snoozed, minutes: 5, snoozed_until: at('12:14:40'), via: 'page' },
    request: null,
  },
  'ticket.collected': {
    time: at('12:11:02'),
    data: { object: EXAMPLE_TICKETS.collected, previous_status: 'ready' },
    request: byApi('order-1001-collect'),
  },
  'ticket.cancelled': {
    time: at('12:03:15'),
    data: { object: EXAMPLE_TICKETS.cancelled, previous_status: 'created' },
    request: byApi('order-1001-cancel'),
  },
  'ticket.expired': { time: at('23:59:59'), data: { object: EXAMPLE_TICKETS.expired, previous_status: 'ready' }, request: null },
  'ticket.reopened': {
    time: at('12:03:21'),
    data: { object: EXAMPLE_TICKETS.created, previous_status: 'cancelled' },
    request: byApi('order-1001-reopen'),
  },
  ping: { time: EXAMPLE_TIME, data: { object: EXAMPLE_ENDPOINT }, request: byApi('endpoint-test-1') },
};

export function exampleEvent(type: EventType) {
  const { time, data, request } = EVENTS[type];
  return {
    id: EXAMPLE_IDS.event,
    object: 'event',
    type,
    created_at: time,
    livemode: false,
    api_version: 'v1',
    branch: EXAMPLE_IDS.branch,
    data,
    request,
  };
}
