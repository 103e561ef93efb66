// The event catalogue (PRODUCT.md §6): what an endpoint's enabled_events may name.
// Part of the contract: the event schemas, the webhook schemas and the fan-out read it.
export const TICKET_EVENT_TYPES = [
  'ticket.created',
  'ticket.ready',
  'ticket.rung',
  'ticket.collected',
  'ticket.cancelled',
  'ticket.expired',
  'ticket.reopened',
  'ticket.customer_viewed',
  'ticket.customer_subscribed',
  'ticket.customer_acknowledged',
  'ticket.customer_snoozed',
] as const;

/** Sent by POST /v1/webhook_endpoints/{id}/test to that endpoint only, whatever its filter. */
export const PING_EVENT_TYPE = 'ping';

/** Every type of event readybell sends: the ticket events and the ping. */
export const EVENT_TYPES = [...TICKET_EVENT_TYPES, PING_EVENT_TYPE] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ALL_EVENTS = '*';

const KNOWN: ReadonlySet<string> = new Set<string>(TICKET_EVENT_TYPES);

export function isKnownEventType(type: string): boolean {
  return KNOWN.has(type);
}

export function endpointWants(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes(ALL_EVENTS) || enabledEvents.includes(type);
}
