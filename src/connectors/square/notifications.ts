// Square's webhook notifications (POST /connectors/square/webhook, the port's webhook). Each is verified (Square's
// HMAC over the subscription's URL and the raw body, domain/square-signature.ts), matched to the
// branches connected to its merchant and location, and answered at once: the work is a job
// (order-sync.ts), keyed by Square's event_id and the branch, so Square's retries of one
// notification make one job. The notification carries only part of the order; the job reads the
// whole of it from Square.
import type { Services } from '../../core/ctx.ts';
import { AppError } from '../../domain/errors.ts';
import { validSquareSignature } from '../../domain/square-signature.ts';
import { enqueueJob, newJob } from '../../store/outbox.ts';
import { listMerchantConnections } from '../../store/square-connections.ts';
import { getBranch } from '../../store/tenancy.ts';
import type { WebhookOutcome } from '../port.ts';
import { SQUARE_ORDER_JOB } from './order-sync.ts';

/** The notifications the connector acts on; others are acknowledged and ignored. */
export const SQUARE_EVENT_TYPES = ['order.created', 'order.updated', 'order.fulfillment.updated'] as const;

type Notification = {
  merchant_id?: unknown;
  type?: unknown;
  event_id?: unknown;
  data?: { id?: unknown; object?: Record<string, { order_id?: unknown; location_id?: unknown } | undefined> };
};

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v.length <= 200 ? v : null);

export async function receiveSquareNotification(
  services: Services,
  rawBody: string,
  signature: string | undefined,
): Promise<WebhookOutcome> {
  const config = services.config.square;
  if (config === null)
    throw new AppError('forbidden', 'This readybell has no Square application configured, so no Square notification can be verified.');
  if (!validSquareSignature(config.webhookSignatureKey, config.webhookUrl, rawBody, signature))
    throw new AppError(
      'forbidden',
      'The notification is not signed by Square: x-square-hmacsha256-signature is missing or does not match the notification URL and body.',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new AppError('invalid-json', 'The notification body is not JSON.');
  }
  // Signed JSON that is not an object (`null`, a number, a list) is no notification: a problem, not a crash.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new AppError('bad-request', 'A Square notification is a JSON object with type, event_id and merchant_id.');
  const n = parsed as Notification;
  const type = text(n.type);
  const eventId = text(n.event_id);
  const merchantId = text(n.merchant_id);
  if (type === null || eventId === null || merchantId === null)
    throw new AppError('bad-request', 'A Square notification has type, event_id and merchant_id.');
  if (!(SQUARE_EVENT_TYPES as readonly string[]).includes(type)) return { jobs: 0, ignored: 'type' };
  const { db, clock } = services;
  const connections = await listMerchantConnections(db, merchantId);
  if (connections.length === 0) throw new AppError('not-found', `No branch is connected to the Square merchant ${merchantId}.`);
  // data.object holds one member named for the event (order_created, order_updated, order_fulfillment_updated).
  const inner = Object.values(n.data?.object ?? {})[0];
  const orderId = text(inner?.order_id) ?? text(n.data?.id);
  const locationId = text(inner?.location_id);
  if (orderId === null) throw new AppError('bad-request', 'The notification names no order (data.id).');
  // A location not chosen yet, or another one: the order is not for any branch here.
  const targets = connections.filter((c) => c.locationId !== null && (locationId === null || c.locationId === locationId));
  if (targets.length === 0) return { jobs: 0, ignored: 'location' };
  const now = clock.now();
  let jobs = 0;
  await db.write(async (tx) => {
    for (const c of targets) {
      const branch = await getBranch(tx, c.branchId);
      if (branch === undefined) continue;
      const payload = { branch_id: c.branchId, merchant_id: merchantId, order_id: orderId, event_id: eventId, type };
      if (
        await enqueueJob(
          tx,
          newJob(SQUARE_ORDER_JOB, `square:${eventId}:${c.branchId}`, payload, now, now, { accountId: branch.accountId }),
        )
      )
        jobs++;
    }
    tx.afterCommit(() => services.jobs.wake());
  });
  return { jobs, ignored: null };
}
