// The wire shapes of endpoints and deliveries, typed by their schemas (webhook-schemas.ts). In the
// contract, below the verbs, so that a verb (send-test-webhook) and the routes present them alike.
import { iso } from './present.ts';
import type { DeliveryObject, EndpointObject } from './webhook-schemas.ts';
import type { WebhookAttempt, WebhookDelivery } from '../store/webhook-deliveries.ts';
import type { WebhookEndpoint } from '../store/webhook-endpoints.ts';

/** `secret` is given only right after creation or rotation. */
export function presentEndpoint(e: WebhookEndpoint, now: number, secret?: string): EndpointObject {
  const overlap = e.previousSecret !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now;
  return {
    object: 'webhook_endpoint' as const,
    id: e.id,
    url: e.url,
    enabled_events: e.enabledEvents,
    description: e.description,
    disabled: e.disabled,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    previous_secret_expires_at: overlap ? iso(e.previousSecretExpiresAt) : null,
    livemode: e.mode === 'live',
    branch: e.branchId,
    created_at: iso(e.createdAt)!,
    updated_at: iso(e.updatedAt)!,
    ...(secret === undefined ? {} : { secret }),
  };
}

export function presentDelivery(d: WebhookDelivery, attempts: readonly WebhookAttempt[]): DeliveryObject {
  return {
    object: 'webhook_delivery' as const,
    id: d.id,
    endpoint: d.endpointId,
    event: d.eventId,
    event_type: d.eventType,
    status: d.status,
    livemode: d.mode === 'live',
    attempt_count: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_response_status: d.lastStatusCode,
    last_error: d.lastError,
    created_at: iso(d.createdAt)!,
    attempts: attempts.map((a) => ({
      attempted_at: iso(a.attemptedAt)!,
      response_status: a.statusCode,
      duration_ms: a.durationMs,
      response_body: a.responseBody,
      error: a.error,
      manual: a.manual,
    })),
  };
}
