// Shopify's webhooks (POST /connectors/shopify/webhook, the port's webhook). Each is verified
// (X-Shopify-Hmac-Sha256: the base64 HMAC-SHA256 of the raw body with the app's secret, compared in
// constant time), matched to the branches connected to its shop (X-Shopify-Shop-Domain), and
// answered at once: the work is a job (order-sync.ts) keyed by X-Shopify-Webhook-Id and the branch,
// so Shopify's retries of one delivery make one job. The job reads the whole order from Shopify.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Services } from '../../core/ctx.ts';
import { AppError } from '../../domain/errors.ts';
import { enqueueJob, newJob } from '../../store/outbox.ts';
import { getBranch } from '../../store/tenancy.ts';
import type { WebhookOutcome } from '../port.ts';
import { SHOPIFY_ORDER_JOB, type ShopifyOrderJobPayload } from './order-sync.ts';
import { shopDomainOf } from './shopify-api.ts';
import { eraseConnection, listShopConnections } from './store.ts';

/** The topics the connector acts on (the app's subscriptions, docs/shopify-operator.md); others are acknowledged and ignored. */
export const SHOPIFY_TOPICS = [
  'orders/create',
  'orders/cancelled',
  'fulfillments/create',
  'fulfillment_orders/line_items_prepared_for_pickup',
] as const;

type WebhookBody = { id?: unknown; admin_graphql_api_id?: unknown; order_id?: unknown; fulfillment_order?: { id?: unknown } };
type Headers = Readonly<Record<string, string | string[] | undefined>>;
const header = (h: Headers, name: string): string | null => {
  const v = h[name];
  return typeof v === 'string' && v !== '' && v.length <= 300 ? v : null;
};

export function validShopifyHmac(secret: string, rawBody: string, signature: string | null): boolean {
  if (signature === null) return false;
  const expected = createHmac('sha256', secret).update(rawBody, 'utf8').digest();
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const gid = (kind: string, v: unknown): string | null =>
  typeof v === 'string' && v.startsWith(`gid://shopify/${kind}/`) && v.length <= 200
    ? v
    : typeof v === 'number' && Number.isSafeInteger(v)
      ? `gid://shopify/${kind}/${v}`
      : null;

/** What the body names: the order (orders/*: its id; fulfillments/create: order_id) or the fulfillment order. */
function subjectOf(topic: string, body: WebhookBody): { order_id: string } | { fulfillment_order_id: string } | null {
  if (topic === 'fulfillment_orders/line_items_prepared_for_pickup') {
    const id = gid('FulfillmentOrder', body.fulfillment_order?.id);
    return id === null ? null : { fulfillment_order_id: id };
  }
  const id =
    topic === 'fulfillments/create' ? gid('Order', body.order_id) : (gid('Order', body.admin_graphql_api_id) ?? gid('Order', body.id));
  return id === null ? null : { order_id: id };
}

export async function receiveShopifyWebhook(services: Services, rawBody: string, headers: Headers): Promise<WebhookOutcome> {
  const config = services.config.shopify;
  if (config === null)
    throw new AppError('forbidden', 'This readybell has no Shopify app configured, so no Shopify webhook can be verified.');
  if (!validShopifyHmac(config.apiSecret, rawBody, header(headers, 'x-shopify-hmac-sha256')))
    throw new AppError('forbidden', 'The webhook is not signed by Shopify: X-Shopify-Hmac-Sha256 is missing or does not match the body.');
  const topic = header(headers, 'x-shopify-topic');
  const shop = shopDomainOf(header(headers, 'x-shopify-shop-domain') ?? '');
  const webhookId = header(headers, 'x-shopify-webhook-id');
  if (topic === null || shop === null || webhookId === null)
    throw new AppError('bad-request', 'A Shopify webhook has X-Shopify-Topic, X-Shopify-Shop-Domain and X-Shopify-Webhook-Id.');
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new AppError('invalid-json', 'The webhook body is not JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('bad-request', 'A Shopify webhook body is a JSON object.');
  const { db, clock } = services;
  const connections = await listShopConnections(db, shop);
  if (topic === 'app/uninstalled') {
    // The shop removed the app: its token is dead; the branches' connections go with it.
    await db.write(async (tx) => {
      for (const c of connections) await eraseConnection(tx, c.branchId);
    });
    return { jobs: 0, ignored: 'uninstalled' };
  }
  if (!(SHOPIFY_TOPICS as readonly string[]).includes(topic)) return { jobs: 0, ignored: 'topic' };
  if (connections.length === 0) throw new AppError('not-found', `No branch is connected to the Shopify shop ${shop}.`);
  const subject = subjectOf(topic, body as WebhookBody);
  if (subject === null) throw new AppError('bad-request', `The ${topic} webhook names no order.`);
  const targets = connections.filter((c) => c.locationId !== null);
  if (targets.length === 0) return { jobs: 0, ignored: 'location' };
  const now = clock.now();
  let jobs = 0;
  await db.write(async (tx) => {
    for (const c of targets) {
      const branch = await getBranch(tx, c.branchId);
      if (branch === undefined) continue;
      const payload: ShopifyOrderJobPayload = { branch_id: c.branchId, shop, topic, ...subject };
      const job = newJob(SHOPIFY_ORDER_JOB, `shopify:${webhookId}:${c.branchId}`, payload, now, now, { accountId: branch.accountId });
      if (await enqueueJob(tx, job)) jobs++;
    }
    tx.afterCommit(() => services.jobs.wake());
  });
  return { jobs, ignored: null };
}
