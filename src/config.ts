// The one place that reads process.env. Everything is parsed and validated once at start, so a
// typo in an operator's environment stops the process with a message instead of surfacing later.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Config, ShopifyConfig } from './core/config.ts';
import { loadChannelConfig } from './domain/channel-config.ts';
import { parseSecretsKey } from './domain/secret-box.ts';
import { parseGoogleWalletConfig } from './domain/google-wallet-config.ts';
import { loadSquareConfig } from './domain/square-config.ts';
import { loadAppleWalletConfig } from './domain/wallet-config.ts';
import { loadStripeConfig } from './domain/stripe-config.ts';
import { inlineOrFile } from './domain/inline-or-file.ts';
import { loadMailConfig } from './domain/mail-config.ts';
import { loadSignupConfig } from './domain/signup-config.ts';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

/**
 * Traces are off unless the standard OpenTelemetry variables ask for them: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER (otlp, console, zipkin; not `none`); OTEL_SDK_DISABLED=true wins. Read before anything
 * else is loaded (telemetry/preload.ts), so that the SDK is never loaded when they do not.
 */
export function tracingWanted(env: Env): boolean {
  const set = (name: string): string | undefined => (env[name]?.trim() ? env[name]!.trim() : undefined);
  if (set('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  const exporters = set('OTEL_TRACES_EXPORTER');
  // As the SDK reads it: a list led by `none` exports nothing.
  if (exporters !== undefined) return exporters.split(',')[0]!.trim().toLowerCase() !== 'none';
  return set('OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined;
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const num = (name: string, fallback: number, min: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) {
      problems.push(`${name} must be a number of at least ${min} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const port = int('PORT', 3000, 0, 65535);
  const host = get('HOST') ?? '127.0.0.1';
  const metricsPort = get('METRICS_PORT') === undefined ? null : int('METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port)
    problems.push(`METRICS_PORT must differ from PORT (both ${port}): metrics are never served on the public port`);

  let publicUrl = get('PUBLIC_URL') ?? `http://localhost:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    publicUrl = u.origin + u.pathname.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL must be an http(s) URL such as https://pickup.example.com (got "${publicUrl}")`);
  }

  const dataDir = path.resolve(get('DATA_DIR') ?? './data');

  const databaseUrl = get('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded store)');
  }
  const redisUrl = get('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }

  const rawLevel = (get('LOG_LEVEL') ?? 'info').toLowerCase();
  let logLevel: Config['logLevel'] = 'info';
  if ((LOG_LEVELS as readonly string[]).includes(rawLevel)) logLevel = rawLevel as Config['logLevel'];
  else problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${rawLevel}")`);

  let tls: Config['tls'] = null;
  const certFile = get('TLS_CERT_FILE');
  const keyFile = get('TLS_KEY_FILE');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together (or neither)');
  } else if (certFile !== undefined && keyFile !== undefined) {
    try {
      tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
    } catch (err) {
      problems.push(`cannot read TLS_CERT_FILE/TLS_KEY_FILE: ${(err as Error).message}`);
    }
  }

  // TRUST_PROXY: unset/false trusts nobody; true trusts every hop (only behind a proxy you run);
  // otherwise a comma list of addresses/CIDRs whose X-Forwarded-* headers are believed.
  const rawProxy = get('TRUST_PROXY');
  let trustProxy: Config['trustProxy'] = false;
  if (rawProxy !== undefined) {
    if (/^(true|false)$/i.test(rawProxy)) trustProxy = /^true$/i.test(rawProxy);
    else
      trustProxy = rawProxy
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  }

  const sync = (get('SQLITE_SYNCHRONOUS') ?? 'FULL').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL') problems.push('SQLITE_SYNCHRONOUS must be FULL or NORMAL');

  const config: Config = {
    port,
    host,
    metrics: metricsPort === null ? null : { port: metricsPort, host: get('METRICS_HOST') ?? '127.0.0.1' },
    publicUrl,
    dataDir,
    databaseUrl,
    redisUrl,
    redisPrefix: get('REDIS_KEY_PREFIX') ?? 'rb:',
    redisCommandTimeoutMs: int('REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60_000),
    redisRetryMs: int('REDIS_RETRY_MS', 1000, 50, 60_000),
    logLevel,
    tls,
    trustProxy,
    rateLimits: {
      writes: {
        capacity: int('RATE_LIMIT_WRITES_BURST', 120, 1, 10_000_000),
        refillPerSecond: num('RATE_LIMIT_WRITES_PER_SECOND', 1, 0.001),
      },
      reads: {
        capacity: int('RATE_LIMIT_READS_BURST', 600, 1, 10_000_000),
        refillPerSecond: num('RATE_LIMIT_READS_PER_SECOND', 10, 0.001),
      },
    },
    idempotency: { waitMs: int('IDEMPOTENCY_WAIT_MS', 5000, 0, 60_000), retentionHours: 24 },
    apiKeyCacheMs: int('API_KEY_CACHE_MS', 5000, 0, 300_000),
    ring: { inlineDeadlineMs: int('RING_DEADLINE_MS', 2000, 0, 30_000), sendTimeoutMs: int('RING_SEND_TIMEOUT_MS', 10_000, 100, 60_000) },
    sseHeartbeatMs: int('SSE_HEARTBEAT_MS', 15_000, 20, 120_000),
    ...loadChannelConfig(get, problems, publicUrl),
    googleWallet: parseGoogleWalletConfig(
      get('GOOGLE_WALLET_ISSUER_ID'),
      inlineOrFile(get, 'GOOGLE_WALLET_SERVICE_ACCOUNT', problems),
      get('GOOGLE_WALLET_API_URL'),
      problems,
    ),
    square: loadSquareConfig(get, problems, publicUrl),
    shopify: loadShopifyConfig(get, problems),
    appleWallet: loadAppleWalletConfig(get, problems),
    stripe: loadStripeConfig(get, problems),
    billingGraceDays: int('BILLING_GRACE_DAYS', 7, 0, 90),
    mail: loadMailConfig(get, problems),
    signup: loadSignupConfig(get, problems, databaseUrl !== null, get('SMTP_URL') ?? null),
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', databaseUrl === null),
    webhookSecretsKey: secretsKey(get('WEBHOOK_SECRETS_KEY'), problems),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 15_000, 50, 300_000),
    sqliteSynchronous: sync === 'NORMAL' ? 'NORMAL' : 'FULL',
    groupCommit: { maxBatch: int('GROUP_COMMIT_MAX_BATCH', 256, 1, 10_000) },
    jobs: { leaseMs: int('JOB_LEASE_MS', 30_000, 1000, 3_600_000), pollMs: int('JOB_POLL_MS', 250, 10, 60_000) },
    shedding: {
      eventLoopDelayMs: int('SHED_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
      heapUsedBytes: int('SHED_HEAP_USED_BYTES', 0, 0, Number.MAX_SAFE_INTEGER),
      sampleIntervalMs: int('SHED_SAMPLE_INTERVAL_MS', 1000, 10, 60_000),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The Shopify connector's app (docs/shopify-operator.md): both names or neither; the API origin an http(s) URL. */
function loadShopifyConfig(get: (name: string) => string | undefined, problems: string[]): ShopifyConfig | null {
  const apiKey = get('SHOPIFY_API_KEY');
  const apiSecret = get('SHOPIFY_API_SECRET');
  const apiUrl = get('SHOPIFY_API_URL') ?? null;
  if (apiKey === undefined || apiSecret === undefined) {
    if (apiKey !== undefined || apiSecret !== undefined || apiUrl !== null)
      problems.push(
        "SHOPIFY_API_KEY and SHOPIFY_API_SECRET go together (the Shopify app's client id and secret); SHOPIFY_API_URL needs both",
      );
    return null;
  }
  if (apiUrl !== null && !/^https?:\/\/[^\s/]+\/?$/.test(apiUrl))
    problems.push('SHOPIFY_API_URL must be an http(s) origin (scheme and host, no path), e.g. https://shopify-proxy.internal');
  return { apiKey, apiSecret, apiUrl: apiUrl?.replace(/\/+$/, '') ?? null };
}

function secretsKey(raw: string | undefined, problems: string[]): Buffer | null {
  if (raw === undefined) return null;
  const key = parseSecretsKey(raw);
  if (key === null)
    problems.push('WEBHOOK_SECRETS_KEY must be 32 random bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)');
  return key;
}
