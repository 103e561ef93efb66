// This node's Prometheus figures, as the code that counts them sees them. src/metrics.ts builds
// them (one registry per app instance), serves /metrics and holds the one-line helpers the hot
// paths call.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type Metrics = {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'route'>;
  rings: Counter<'channel_used' | 'reason'>;
  ringChannelAttempts: Counter<'channel' | 'outcome'>;
  ringDelivery: Histogram<'channel'>;
  jobsDue: Gauge<'kind'>;
  jobsOldestDueAge: Gauge<'kind'>;
  webhookAttempts: Counter<'outcome'>;
  webhookAttemptDuration: Histogram;
  webhookDeliveryLag: Histogram;
  sseConnections: Gauge<'kind'>;
  groupCommitBatch: Histogram<'store'>;
  idempotencyReplays: Counter<'route'>;
  rateLimitRefusals: Counter<'policy'>;
  rateLimitFailures: Counter;
  smsReplies: Counter<'answer' | 'outcome'>;
  /** POS orders a connector received and made no ticket of, by connector and reason (no_pickup, …). */
  connectorOrdersIgnored: Counter<'connector' | 'reason'>;
  /** 0 while this node serves without its Redis (decision 0053); 1 otherwise, also without REDIS_URL. */
  redisUp: Gauge;
  /** Reads the job backlog into jobsDue and jobsOldestDueAge at scrape time (watchJobBacklog). */
  refreshBacklog: () => Promise<void>;
  /** Rings whose first confirmed delivery on a channel this node has already observed. */
  delivered: Map<string, true>;
};
