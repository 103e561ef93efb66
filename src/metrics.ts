// Prometheus metrics: the registry and the small recording functions every layer calls (served at
// /metrics by http/metrics-server.ts, on a listener of their own). One registry per app instance
// (tests run several in one process). Labels use route patterns, never raw URLs, so customer
// tokens never become labels and cardinality stays bounded. The hot paths call the small functions below, one
// line each; every figure is documented in docs/deployment.md ("Metrics").
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics } from './core/metrics.ts';
import { idTime } from './domain/ids.ts';

export type LiveStreamKind = 'page' | 'board' | 'stream';
export type WebhookOutcome = 'success' | 'http_error' | 'timeout' | 'network_error' | 'not_sent';
/** What a job backlog query answers: due jobs of one kind and the run_at of the oldest. */
export type JobBacklog = { kind: string; due: number; oldestRunAt: number };

/** Enough to remember every ring of the last minutes on a busy node; older ones are forgotten. */
const DELIVERED_MEMORY = 4096;

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Node's standard names (process_*, nodejs_*), so that community Node.js dashboards work as is.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const m: Metrics = {
    registry,
    httpRequests: new Counter({
      name: 'readybell_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'readybell_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    rings: new Counter({
      name: 'readybell_rings_total',
      help: 'Completed rings by strongest channel reached',
      labelNames: ['channel_used', 'reason'],
      registers,
    }),
    ringChannelAttempts: new Counter({
      name: 'readybell_ring_channel_attempts_total',
      help: 'Channels tried by completed rings, by outcome (delivered, not_delivered, unknown)',
      labelNames: ['channel', 'outcome'],
      registers,
    }),
    ringDelivery: new Histogram({
      name: 'readybell_ring_delivery_seconds',
      help: 'Time from the start of a ring (the ready) to its first confirmed delivery on a channel',
      labelNames: ['channel'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    jobsDue: new Gauge({
      name: 'readybell_jobs_due',
      help: 'Background jobs due and not finished, by kind (the whole store, read at scrape time)',
      labelNames: ['kind'],
      registers,
      collect: () => m.refreshBacklog(),
    }),
    jobsOldestDueAge: new Gauge({
      name: 'readybell_jobs_oldest_due_age_seconds',
      help: 'How long the oldest due, unfinished job of each kind has been due',
      labelNames: ['kind'],
      registers,
      collect: () => m.refreshBacklog(),
    }),
    webhookAttempts: new Counter({
      name: 'readybell_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'readybell_webhook_attempt_duration_seconds',
      help: 'How long receivers took to answer a webhook delivery attempt',
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    webhookDeliveryLag: new Histogram({
      name: 'readybell_webhook_delivery_lag_seconds',
      help: 'Time from an event to its successful webhook delivery (retries included)',
      buckets: [0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 21600, 86400],
      registers,
    }),
    sseConnections: new Gauge({
      name: 'readybell_sse_connections',
      help: 'Open server-sent-event streams on this node, by kind (page, board, stream)',
      labelNames: ['kind'],
      registers,
    }),
    groupCommitBatch: new Histogram({
      name: 'readybell_group_commit_batch_size',
      help: 'Writes sharing one commit (embedded store) or one create statement (PostgreSQL)',
      labelNames: ['store'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers,
    }),
    idempotencyReplays: new Counter({
      name: 'readybell_idempotency_replays_total',
      help: 'Writes answered with the stored answer of an earlier request with the same Idempotency-Key',
      labelNames: ['route'],
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'readybell_rate_limit_refusals_total',
      help: 'Requests refused by a rate limit (429), by policy',
      labelNames: ['policy'],
      registers,
    }),
    rateLimitFailures: new Counter({
      name: 'readybell_rate_limit_failures_total',
      help: "Rate-limit decisions made by this node's own buckets because Redis was unreachable",
      registers,
    }),
    redisUp: new Gauge({
      name: 'readybell_redis_up',
      help: 'Whether this node serves degraded without its Redis (0), or not (1; also without REDIS_URL)',
      registers,
    }),
    smsReplies: new Counter({
      name: 'readybell_sms_replies_total',
      help: "Texts back to customers' SMS replies, by answer (help, no_order, confirmation) and outcome (sent, capped, loop)",
      labelNames: ['answer', 'outcome'],
      registers,
    }),
    connectorOrdersIgnored: new Counter({
      name: 'readybell_connector_orders_ignored_total',
      help: 'Orders a POS connector received and made no ticket of, by connector and reason (no_pickup: no pickup fulfillment)',
      labelNames: ['connector', 'reason'],
      registers,
    }),
    refreshBacklog: async () => {},
    delivered: new Map(),
  };
  return m;
}

/** A completed ring: its strongest channel, and how each channel it tried fared. Once per ring. */
export function countRing(
  m: Metrics | undefined,
  reason: string,
  result: { channel_used: string; channels: ReadonlyArray<{ channel: string; delivered: boolean | null }> },
): void {
  if (m === undefined) return;
  m.rings.inc({ channel_used: result.channel_used, reason });
  for (const a of result.channels)
    m.ringChannelAttempts.inc({
      channel: a.channel,
      outcome: a.delivered === null ? 'unknown' : a.delivered ? 'delivered' : 'not_delivered',
    });
}

/**
 * A confirmed delivery, where it is recorded (a page's or board's confirmation, the push
 * service's or SMS provider's acceptance): the time since the ring began, which its id carries.
 * Only the first for the ring and channel counts (a second phone, a second board speaking).
 */
export function observeRingDelivery(m: Metrics | undefined, channel: string, ringId: string, now: number): void {
  if (m === undefined) return;
  const key = `${ringId}\u0000${channel}`;
  if (m.delivered.has(key)) return;
  m.delivered.set(key, true);
  if (m.delivered.size > DELIVERED_MEMORY) m.delivered.delete(m.delivered.keys().next().value!);
  m.ringDelivery.observe({ channel }, Math.max(0, now - idTime(ringId)) / 1000);
}

/** One webhook delivery attempt: its outcome, the receiver's time, and for a success the lag since the event. */
export function observeWebhookAttempt(
  m: Metrics | undefined,
  o: { statusCode: number | null; durationMs: number; error: string | null },
  notSent: boolean,
  eventId: string,
  now: number,
): void {
  if (m === undefined) return;
  const ok = o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;
  const outcome: WebhookOutcome = notSent
    ? 'not_sent'
    : ok
      ? 'success'
      : o.statusCode !== null
        ? 'http_error'
        : /timed out/.test(o.error ?? '')
          ? 'timeout'
          : 'network_error';
  m.webhookAttempts.inc({ outcome });
  if (notSent) return;
  m.webhookAttemptDuration.observe(o.durationMs / 1000);
  if (ok) m.webhookDeliveryLag.observe(Math.max(0, now - idTime(eventId)) / 1000);
}

/** Counts an open live stream; the function it returns counts it closed (call it once). */
export function openLiveStream(m: Metrics | undefined, kind: LiveStreamKind): () => void {
  if (m === undefined) return () => {};
  m.sseConnections.inc({ kind });
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    m.sseConnections.dec({ kind });
  };
}

/** One text back to a customer's SMS: sent (billed), or suppressed by a per-number cap or the loop guard. */
export function countSmsReply(m: Metrics | undefined, answer: string, outcome: 'sent' | 'capped' | 'loop'): void {
  m?.smsReplies.inc({ answer, outcome });
}

export function countRefusal(m: Metrics | undefined, policy: string): void {
  m?.rateLimitRefusals.inc({ policy });
}

/**
 * The job backlog, read once per scrape (one query on the jobs_due index), never per job. Every
 * known kind is reported, at 0 when none is due, so an alert on it never sees a missing series.
 */
export function watchJobBacklog(m: Metrics, kinds: readonly string[], read: () => Promise<JobBacklog[]>, now: () => number): void {
  const refresh = async (): Promise<void> => {
    m.jobsDue.reset();
    m.jobsOldestDueAge.reset();
    let rows: JobBacklog[];
    try {
      rows = await read();
    } catch {
      return; // the store is unreachable (/readyz says so): no figure rather than a wrong one
    }
    const at = now();
    for (const kind of kinds) {
      m.jobsDue.set({ kind }, 0);
      m.jobsOldestDueAge.set({ kind }, 0);
    }
    for (const r of rows) {
      m.jobsDue.set({ kind: r.kind }, r.due);
      m.jobsOldestDueAge.set({ kind: r.kind }, Math.max(0, at - r.oldestRunAt) / 1000);
    }
  };
  // Both gauges ask at every scrape: one read answers the pair.
  let pending: Promise<void> | null = null;
  m.refreshBacklog = () => (pending ??= refresh().finally(() => setImmediate(() => (pending = null))));
}
