// Rotating an endpoint's signing secret. The old secret keeps signing beside the new one for the
// chosen overlap (default 24 h), so a receiver can switch at its own pace: during the overlap each
// delivery carries one v1= per valid secret. Only one previous secret is kept: rotating again
// within an overlap ends the older one at once.
import type { Action } from '../core/ctx.ts';
import { notFound } from '../domain/errors.ts';
import { generateWebhookSecret } from '../webhooks/signature.ts';
import { SecretBox } from '../domain/secret-box.ts';
import { getEndpointForUpdate, updateEndpoint, type WebhookEndpoint } from '../store/webhook-endpoints.ts';
import { requireWebhookAccess } from './webhook-endpoints.ts';

export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

export const rotateWebhookSecret: Action<{ id: string; expires_in?: number }, { endpoint: WebhookEndpoint; secret: string }> = async ({
  ctx,
  input,
}) => {
  requireWebhookAccess(ctx);
  const current = await getEndpointForUpdate(ctx.tx, ctx.branchId, ctx.mode, input.id);
  if (current === undefined) throw notFound('webhook endpoint');
  const now = ctx.services.clock.now();
  const overlapMs = (input.expires_in ?? DEFAULT_ROTATION_OVERLAP_SECONDS) * 1000;
  const secret = generateWebhookSecret();
  const endpoint: WebhookEndpoint = {
    ...current,
    secret: new SecretBox(ctx.services.config.webhookSecretsKey).seal(secret, current.id),
    // Copied as stored: sealed values are bound to the endpoint id, not to the column.
    previousSecret: overlapMs > 0 ? current.secret : null,
    previousSecretExpiresAt: overlapMs > 0 ? now + overlapMs : null,
    updatedAt: now,
  };
  await updateEndpoint(ctx.tx, endpoint);
  return { endpoint, secret };
};
