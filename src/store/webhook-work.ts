// What one delivery attempt needs, in one read: the delivery, its endpoint and its event's body.
// One round trip instead of three matters on PostgreSQL, where a worker draining a backlog does
// this for every delivery. The worker acts for the system on an id it was given; the event is
// still joined on the delivery's own branch and mode.
import type { Queryable } from '../core/db.ts';
import { one } from './db.ts';
import { DELIVERY_COLUMNS, deliveryFromRow, type DeliveryRow, type WebhookDelivery } from './webhook-deliveries.ts';
import { ENDPOINT_COLUMNS, endpointFromRow, type EndpointRow, type WebhookEndpoint } from './webhook-endpoints.ts';

const aliased = (columns: string, table: string, prefix: string): string =>
  columns
    .split(', ')
    .map((c) => `${table}.${c} AS ${prefix}${c}`)
    .join(', ');

const SQL = `SELECT ${aliased(DELIVERY_COLUMNS, 'd', 'd_')}, ${aliased(ENDPOINT_COLUMNS, 'w', 'w_')}, e.body AS event_body
  FROM webhook_deliveries d
  LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id
  LEFT JOIN events e ON e.id = d.event_id AND e.branch_id = d.branch_id AND e.mode = d.mode
  WHERE d.id = $1`;

// Column lists are fixed, so the renaming is a precomputed list of pairs, not a scan of every key.
const renames = (columns: string, prefix: string): Array<[string, string]> => columns.split(', ').map((c) => [`${prefix}${c}`, c]);
const DELIVERY_RENAMES = renames(DELIVERY_COLUMNS, 'd_');
const ENDPOINT_RENAMES = renames(ENDPOINT_COLUMNS, 'w_');

function unprefix<T>(row: Record<string, unknown>, pairs: Array<[string, string]>): T {
  const out: Record<string, unknown> = {};
  for (const [from, to] of pairs) out[to] = row[from];
  return out as T;
}

export type DeliveryWork = { delivery: WebhookDelivery; endpoint: WebhookEndpoint | undefined; eventBody: string | undefined };

export async function loadDeliveryWork(q: Queryable, deliveryId: string): Promise<DeliveryWork | undefined> {
  const row = await one<Record<string, unknown>>(q, SQL, [deliveryId]);
  if (row === undefined) return undefined;
  return {
    delivery: deliveryFromRow(unprefix<DeliveryRow>(row, DELIVERY_RENAMES)),
    endpoint: row['w_id'] === null || row['w_id'] === undefined ? undefined : endpointFromRow(unprefix<EndpointRow>(row, ENDPOINT_RENAMES)),
    eventBody: typeof row['event_body'] === 'string' ? row['event_body'] : undefined,
  };
}
