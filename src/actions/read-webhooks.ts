// Reading webhook endpoints and their deliveries over /v1. The same access rule as managing them
// (requireWebhookAccess: not on the free plan, owners only among staff) holds for every read, and
// each belongs to the ctx's branch and mode: another branch's or mode's id answers 404 like an
// unknown one.
import { readerOf, type Read } from '../core/ctx.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { isId } from '../domain/ids.ts';
import { requireWebhookAccess } from './webhook-endpoints.ts';
import { SecretBox } from '../domain/secret-box.ts';
import { getEndpoint, listEndpoints, type WebhookEndpoint } from '../store/webhook-endpoints.ts';
import {
  getDelivery,
  listAttempts,
  listDeliveries,
  type DeliveryFilter,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../store/webhook-deliveries.ts';

/** A delivery with its latest attempts, as the API shows it. */
export type DeliveryWithAttempts = { delivery: WebhookDelivery; attempts: WebhookAttempt[] };

export const listWebhookEndpoints: Read<void, WebhookEndpoint[]> = async ({ ctx }) => {
  requireWebhookAccess(ctx);
  return listEndpoints(readerOf(ctx), ctx.branchId, ctx.mode);
};

/** `id` has the shape of an endpoint id (the route answers 404 for one that has not). */
export const readWebhookEndpoint: Read<{ id: string }, WebhookEndpoint> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const endpoint = await getEndpoint(readerOf(ctx), ctx.branchId, ctx.mode, input.id);
  if (endpoint === undefined) throw notFound('webhook endpoint');
  return endpoint;
};

/** The endpoint's current secret, opened, and until when the previous one still signs (null: it no longer does). */
export const revealWebhookSecret: Read<
  { id: string },
  { endpoint: WebhookEndpoint; secret: string; previousUntil: number | null }
> = async ({ ctx, input }) => {
  const endpoint = await readWebhookEndpoint({ ctx, input });
  const now = ctx.services.clock.now();
  const overlap = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return {
    endpoint,
    secret: new SecretBox(ctx.services.config.webhookSecretsKey).open(endpoint.secret, endpoint.id),
    previousUntil: overlap ? endpoint.previousSecretExpiresAt : null,
  };
};

async function withAttempts(ctx: Parameters<typeof readerOf>[0], list: WebhookDelivery[]): Promise<DeliveryWithAttempts[]> {
  const attempts = await listAttempts(
    readerOf(ctx),
    list.map((d) => d.id),
  );
  return list.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] }));
}

/** A page of an endpoint's deliveries, newest first; the cursor must be a delivery of that endpoint. */
export const listWebhookDeliveries: Read<
  { endpointId: string } & DeliveryFilter,
  { data: DeliveryWithAttempts[]; hasMore: boolean }
> = async ({ ctx, input }) => {
  const { endpointId, ...filter } = input;
  const endpoint = await readWebhookEndpoint({ ctx, input: { id: endpointId } });
  const q = readerOf(ctx);
  if (filter.startingAfter !== undefined) {
    const cursor = isId('webhookDelivery', filter.startingAfter)
      ? await getDelivery(q, ctx.branchId, ctx.mode, filter.startingAfter)
      : undefined;
    if (cursor === undefined || cursor.endpointId !== endpoint.id) {
      throw invalid('/query/starting_after', 'starting_after must be the id of a delivery of this endpoint.');
    }
  }
  const page = await listDeliveries(q, ctx.branchId, ctx.mode, endpoint.id, filter);
  return { data: await withAttempts(ctx, page.data), hasMore: page.hasMore };
};

/** `id` as sent: access is checked before its shape, so a caller without access learns nothing from it. */
export const readWebhookDelivery: Read<{ id: string }, DeliveryWithAttempts> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const delivery = isId('webhookDelivery', input.id) ? await getDelivery(readerOf(ctx), ctx.branchId, ctx.mode, input.id) : undefined;
  if (delivery === undefined) throw notFound('webhook delivery');
  return (await withAttempts(ctx, [delivery]))[0]!;
};
