// The `webhook` job: one attempt at one delivery. The attempt's log row, the delivery's new state,
// the endpoint's health and the job's next run are written in ONE transaction after the request,
// so a crash leaves either nothing (the job's lease runs out and another worker tries again: at
// least once) or everything. Nothing is written between claim and request, which keeps the
// store's writer free while receivers answer.
import { readFileSync } from 'node:fs';
import type { Services } from '../core/ctx.ts';
import type { JobHandler, TaskResult } from '../core/job-registry.ts';
import type { Tx } from '../core/db.ts';
import type { ClaimedJob } from '../core/jobs.ts';
import { finishJob, retryJob } from '../store/outbox.ts';
import { recordAttempt, setDeliveryState, type DeliveryStatus, type WebhookDelivery } from '../store/webhook-deliveries.ts';
import { loadDeliveryWork } from '../store/webhook-work.ts';
import { disableEndpoint, noteEndpointFailure, noteEndpointSuccess, type WebhookEndpoint } from '../store/webhook-endpoints.ts';
import { signedHeaders } from './signature.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import { CONNECT_TIMEOUT_MS, type PostOutcome, type OutboundHttpClient } from './http-client.ts';
import { privateTargetsAllowed } from './url-policy.ts';
import { FAILING_ENDPOINT_DISABLE_MS, parseRetryAfter, retryDelayMs } from './retry-schedule.ts';
import type { DeliveryJobPayload } from './fan-out.ts';
import { observeWebhookAttempt } from '../metrics.ts';
import { inSpan, markSpanFailed, traceHeaders } from '../telemetry/tracing.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
export const USER_AGENT = `readybell-webhooks/${VERSION}`;

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
export function signingSecrets(endpoint: WebhookEndpoint, now: number, box: SecretBox): string[] {
  const out = [box.open(endpoint.secret, endpoint.id)];
  if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now) {
    out.push(box.open(endpoint.previousSecret, endpoint.id));
  }
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function webhookDeliveryTask(client: OutboundHttpClient, box: SecretBox): JobHandler<DeliveryJobPayload> {
  return async (services, payload, job) => {
    const manual = payload.manual === true;
    const { db, clock } = services;
    const work = await loadDeliveryWork(db, payload.delivery_id);
    if (work === undefined) return; // its endpoint was deleted
    const { delivery, endpoint, eventBody: body } = work;
    if (!manual) {
      if (delivery.status !== 'pending') return; // a manual retry succeeded meanwhile, or the endpoint was disabled
      if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > clock.now()) return { retryAt: delivery.nextAttemptAt };
    }
    if (endpoint === undefined) return;
    if (endpoint.disabled) {
      if (!manual) await db.write((tx) => setDeliveryState(tx, delivery.id, 'failed', null, 'endpoint disabled', clock.now()));
      return;
    }
    const now = clock.now();
    const notSent = (error: string): PostOutcome => ({ statusCode: null, retryAfter: null, body: null, durationMs: 0, error });
    // `ours`: the attempt failed before reaching the receiver, for a reason that is not the
    // receiver's doing, so its health (the 3-day rule) is left alone. `final`: without its event
    // there is nothing to send, now or later, so the schedule is not walked.
    let outcome: PostOutcome;
    let ours = false;
    const final = body === undefined;
    let signed: Record<string, string> | null = null;
    if (body !== undefined) {
      try {
        signed = signedHeaders(signingSecrets(endpoint, now, box), delivery.eventId, Math.floor(now / 1000), body);
      } catch (err) {
        // Never the secret itself in the log: only that it could not be opened.
        services.log.error({ endpoint: endpoint.id, err: (err as Error).message }, 'cannot open webhook signing secret');
      }
    }
    if (body === undefined) {
      outcome = notSent('the event no longer exists (events are kept 30 days)');
      ours = true;
    } else if (signed === null) {
      outcome = notSent('the signing secret cannot be read (WEBHOOK_SECRETS_KEY)');
      ours = true;
    } else {
      const post = (): Promise<PostOutcome> =>
        client.post(
          endpoint.url,
          {
            'Content-Type': 'application/json',
            'User-Agent': USER_AGENT,
            ...signed,
            'Service-Event-Id': delivery.eventId,
            'Service-Event-Type': delivery.eventType,
            // W3C traceparent of this delivery's span, so the receiver can continue the trace.
            ...traceHeaders(),
          },
          body,
          {
            allowPrivate: privateTargetsAllowed(services.config, endpoint.mode),
            timeoutMs: DELIVERY_TIMEOUT_MS,
            connectTimeoutMs: CONNECT_TIMEOUT_MS,
          },
        );
      outcome = await inSpan('webhook.deliver', () => deliverySpan(delivery, endpoint), post, { kind: 'client', outcome: attemptSpan });
    }
    observeWebhookAttempt(services.metrics, outcome, ours, delivery.eventId, clock.now());
    return db.write((tx) => settle(services, tx, { delivery, endpoint, job, manual, attemptedAt: now, outcome, final, ours }));
  };
}

function deliverySpan(delivery: WebhookDelivery, endpoint: WebhookEndpoint): Record<string, string | number> {
  // The receiver's host, never its full URL: a path or query may hold the receiver's own secret.
  let host = '';
  try {
    host = new URL(endpoint.url).host;
  } catch {
    // reported by the attempt itself
  }
  return {
    'http.request.method': 'POST',
    'server.address': host,
    'readybell.event.type': delivery.eventType,
    'readybell.webhook.endpoint': endpoint.id,
  };
}

function attemptSpan(o: PostOutcome): Record<string, string | number> {
  const ok = o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;
  if (!ok) markSpanFailed(o.error ?? `HTTP ${o.statusCode}`);
  return o.statusCode === null ? { 'readybell.webhook.error': o.error ?? 'error' } : { 'http.response.status_code': o.statusCode };
}

type Attempt = {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  job: ClaimedJob;
  manual: boolean;
  attemptedAt: number;
  outcome: PostOutcome;
  final: boolean;
  ours: boolean;
};

async function settle(services: Services, tx: Tx, a: Attempt): Promise<TaskResult> {
  const { delivery, endpoint, job, manual, outcome } = a;
  const now = services.clock.now();
  const code = outcome.statusCode;
  const ok = code !== null && code >= 200 && code < 300;
  // null: a failed manual attempt leaves the delivery's state and automatic schedule alone.
  let next: { status: DeliveryStatus; at: number | null } | null = null;
  let disableReason: string | null = null;
  if (ok) {
    next = { status: 'succeeded', at: null };
    // Read before the request: a failure recorded meanwhile is cleared by the next success.
    if (endpoint.failingSince !== null) await noteEndpointSuccess(tx, endpoint.id);
  } else {
    if (a.final) {
      next = { status: 'failed', at: null };
    } else if (!manual) {
      const delay = retryDelayMs(delivery.autoAttempts + 1, parseRetryAfter(outcome.retryAfter ?? undefined, now));
      next = delay === null ? { status: 'failed', at: null } : { status: 'pending', at: now + delay };
    }
    const failingSince = a.ours ? now : await noteEndpointFailure(tx, endpoint.id, now);
    if (code === 410) disableReason = `The receiver answered 410 Gone on ${iso(now)}.`;
    else if (now - failingSince >= FAILING_ENDPOINT_DISABLE_MS)
      disableReason = `Every delivery attempt failed for 3 days (since ${iso(failingSince)}).`;
    if (disableReason !== null && next !== null) next = { status: 'failed', at: null };
  }
  await recordAttempt(tx, delivery.id, {
    attemptedAt: a.attemptedAt,
    statusCode: code,
    durationMs: outcome.durationMs,
    responseBody: outcome.body,
    error: outcome.error,
    manual,
    next,
  });
  if (disableReason !== null) {
    // Also fails the endpoint's other pending deliveries (and this one, after a manual attempt).
    await disableEndpoint(tx, endpoint.id, disableReason, now);
    services.log.warn({ endpoint: endpoint.id, branch: endpoint.branchId, reason: disableReason }, 'webhook endpoint disabled');
  }
  if (!manual && next !== null && next.status === 'pending' && next.at !== null)
    await retryJob(tx, job.id, next.at, outcome.error ?? `HTTP ${code}`);
  else await finishJob(tx, job.id, now);
  return { settled: true };
}
