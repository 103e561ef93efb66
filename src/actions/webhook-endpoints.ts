// Webhook endpoints: create, change, delete (PRODUCT.md §3, §5, §6). An endpoint belongs to the
// branch and mode of the caller, so test events never reach live endpoints and the reverse.
// URLs arrive already checked against DNS by the edge (a lookup must not run inside the write
// transaction); the checks that need no network run here again.
import type { Action, Ctx } from '../core/ctx.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { generateWebhookSecret } from '../webhooks/signature.ts';
import { SecretBox } from '../domain/secret-box.ts';
import { MAX_DESCRIPTION } from '../contract/webhook-schemas.ts';
import { checkWebhookUrlSyntax, privateTargetsAllowed } from '../webhooks/url-policy.ts';
import { ALL_EVENTS, isKnownEventType, TICKET_EVENT_TYPES } from '../contract/event-types.ts';
import {
  countEndpoints,
  deleteEndpoint,
  failPendingDeliveries,
  getEndpointForUpdate,
  insertEndpoint,
  updateEndpoint,
  type WebhookEndpoint,
} from '../store/webhook-endpoints.ts';

/** Per branch and mode, as Stripe allows per account: enough for a POS, a CRM and a test tool. */
export const MAX_ENDPOINTS = 16;

/**
 * Webhooks are in the pro and business plans (the API already refuses free accounts' keys; staff
 * sessions of a free account reach this). Staff users need the owner role; API keys may manage
 * their own branch's endpoints (docs/decisions/0003).
 */
export function requireWebhookAccess(ctx: Ctx): void {
  if (ctx.plan === 'free') throw new AppError('plan-required', 'Webhooks are part of the pro and business plans.');
  if (ctx.actor.kind === 'user' && ctx.actor.role !== 'owner') throw new AppError('forbidden', 'Managing webhooks needs the owner role.');
  if (ctx.actor.kind === 'customer') throw new AppError('forbidden', 'Customers cannot manage webhooks.');
}

export function normaliseEnabledEvents(events: readonly string[] | undefined): string[] {
  if (events === undefined) return [ALL_EVENTS];
  if (events.length === 0) throw invalid('/enabled_events', 'enabled_events must name at least one event type, or "*" for all.');
  events.forEach((type, i) => {
    if (type !== ALL_EVENTS && !isKnownEventType(type)) {
      throw invalid(`/enabled_events/${i}`, `Unknown event type "${type}"; known types: ${TICKET_EVENT_TYPES.join(', ')}, or "*".`);
    }
  });
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
}

function checkDescription(d: string | null | undefined): string | null {
  if (d === undefined || d === null || d.trim() === '') return null;
  if (d.length > MAX_DESCRIPTION) throw invalid('/description', `description must be at most ${MAX_DESCRIPTION} characters.`);
  return d;
}

export type CreateEndpointInput = { url: string; enabled_events?: string[]; description?: string | null };

export const createWebhookEndpoint: Action<CreateEndpointInput, { endpoint: WebhookEndpoint; secret: string }> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const { config, clock } = ctx.services;
  const url = checkWebhookUrlSyntax(input.url, ctx.mode, privateTargetsAllowed(config, ctx.mode));
  const enabledEvents = normaliseEnabledEvents(input.enabled_events);
  const description = checkDescription(input.description);
  if ((await countEndpoints(ctx.tx, ctx.branchId, ctx.mode)) >= MAX_ENDPOINTS) {
    throw new AppError('conflict', `A branch may have at most ${MAX_ENDPOINTS} webhook endpoints per mode; delete one first.`);
  }
  const now = clock.now();
  const id = newId('webhookEndpoint', now);
  const secret = generateWebhookSecret();
  const endpoint: WebhookEndpoint = {
    id,
    branchId: ctx.branchId,
    mode: ctx.mode,
    url,
    enabledEvents,
    description,
    disabled: false,
    disabledReason: null,
    disabledAt: null,
    secret: new SecretBox(config.webhookSecretsKey).seal(secret, id),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertEndpoint(ctx.tx, endpoint);
  return { endpoint, secret };
};

export type UpdateEndpointInput = { id: string; url?: string; enabled_events?: string[]; description?: string | null; disabled?: boolean };

export const updateWebhookEndpoint: Action<UpdateEndpointInput, WebhookEndpoint> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  const { config, clock } = ctx.services;
  const current = await getEndpointForUpdate(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (current === undefined) throw notFound('webhook endpoint');
  const now = clock.now();
  const next: WebhookEndpoint = { ...current, updatedAt: now };
  if (input.url !== undefined) next.url = checkWebhookUrlSyntax(input.url, ctx.mode, privateTargetsAllowed(config, ctx.mode));
  if (input.enabled_events !== undefined) next.enabledEvents = normaliseEnabledEvents(input.enabled_events);
  if (input.description !== undefined) next.description = checkDescription(input.description);
  if (input.disabled === true && !current.disabled) {
    const by = ctx.actor.kind === 'user' ? 'in the staff page' : 'through the API';
    Object.assign(next, { disabled: true, disabledReason: `Disabled ${by}.`, disabledAt: now });
    await failPendingDeliveries(ctx.tx, current.id, now);
  } else if (input.disabled === false && current.disabled) {
    // A fresh start: the 3-day failure clock begins again with the next failure.
    Object.assign(next, { disabled: false, disabledReason: null, disabledAt: null, failingSince: null });
  }
  await updateEndpoint(ctx.tx, next);
  return next;
};

export const removeWebhookEndpoint: Action<{ id: string }, { id: string }> = async ({ ctx, input }) => {
  requireWebhookAccess(ctx);
  if (!(await deleteEndpoint(ctx.tx, ctx.branchId, ctx.mode, input.id))) throw notFound('webhook endpoint');
  return { id: input.id };
};
