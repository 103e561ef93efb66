// The configuration every part of readybell reads, as a type. src/config.ts is the one place that
// builds it from process.env (parsed and validated once, at start); nothing else reads the
// environment.

export type Config = {
  port: number;
  host: string;
  /** METRICS_PORT/METRICS_HOST: the Prometheus listener, apart from the public one; null (no METRICS_PORT): none. */
  metrics: { port: number; host: string } | null;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key and channel: several deployments (or test runs) may share one Redis. */
  redisPrefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: a Redis command unanswered this long fails, and the node stops asking Redis for a while. */
  redisCommandTimeoutMs: number;
  /** REDIS_RETRY_MS: while Redis is down, how often the node tries it again (and the longest wait between reconnects). */
  redisRetryMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  tls: { cert: Buffer; key: Buffer } | null;
  trustProxy: boolean | string[];
  rateLimits: {
    writes: { capacity: number; refillPerSecond: number };
    reads: { capacity: number; refillPerSecond: number };
  };
  idempotency: { waitMs: number; retentionHours: number };
  /** How long a verified API key is trusted without asking the store (0: never cached). */
  apiKeyCacheMs: number;
  /**
   * inlineDeadlineMs: how long ready waits for the channels. sendTimeoutMs: how long one push or
   * SMS request may take; a send claim unsettled after STALE_CLAIM_FACTOR times it belongs to an
   * attempt that died (channels/send-once.ts), so every node must use the same value.
   */
  ring: { inlineDeadlineMs: number; sendTimeoutMs: number };
  /** SSE_HEARTBEAT_MS: pings on customer-page and board streams; presence entries live 3 of these. */
  sseHeartbeatMs: number;
  push: PushConfig;
  sms: SmsConfig | null;
  /** WHATSAPP_FROM, WHATSAPP_READY_TEMPLATE with the SMS provider's account (decision 0091); null: no WhatsApp. */
  whatsapp: WhatsAppConfig | null;
  /** GOOGLE_WALLET_*: the Google Wallet issuer and its service account; null: no "Add to Google Wallet". */
  googleWallet: GoogleWalletConfig | null;
  /** The operator's Square application (SQUARE_*); null: the Square connector is not offered. */
  square: SquareConfig | null;
  /** SMTP_URL, MAIL_FROM: how email leaves (decision 0080); without SMTP_URL a mail's link is logged instead. */
  mail: MailConfig;
  /** SIGNUP and TRIAL_DAYS (decision 0081). */
  signup: SignupConfig;
  /** The operator's Shopify app (SHOPIFY_*); null: the Shopify connector is not offered. */
  shopify: ShopifyConfig | null;
  /** Apple Wallet passes (docs/wallet.md): null unless the operator configured a Pass Type ID. */
  appleWallet: AppleWalletConfig | null;
  /** Billing through Stripe (STRIPE_*, decision 0084); null: plans are set by the operator's CLI. */
  stripe: StripeConfig | null;
  /** BILLING_GRACE_DAYS: after a failed payment, how long the paid plan holds before the free plan (decision 0085). */
  billingGraceDays: number;
  webhookAllowPrivate: boolean;
  /** 32-byte key sealing webhook signing secrets at rest (AES-256-GCM); null stores them as generated. */
  webhookSecretsKey: Buffer | null;
  bodyLimitBytes: number;
  /** REQUEST_TIMEOUT_MS: a request (headers and body) not received in full by then is answered 408; live streams, once open, are not affected. */
  requestTimeoutMs: number;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  groupCommit: { maxBatch: number };
  /** Outbox runner: how long a claimed job is leased (a dead node's jobs return after it) and how often idle nodes poll. */
  jobs: { leaseMs: number; pollMs: number };
  /**
   * Load shedding (http/plugins/load-shedding.ts): past either limit a node answers new requests
   * 503 unavailable instead of queueing them. 0 turns a limit off. The figures are sampled every
   * sampleIntervalMs; eventLoopDelayMs is the mean event-loop delay over one such sample.
   */
  shedding: { eventLoopDelayMs: number; heapUsedBytes: number; sampleIntervalMs: number };
};

export type PushConfig = {
  /** From VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY; null: generated once and kept in the store. */
  vapid: { publicKey: string; privateKey: string } | null;
  /** VAPID_SUBJECT (mailto: or https:), how a push service contacts the operator. */
  subject: string;
  /** PUSH_ALLOW_INSECURE_ENDPOINTS: accept http and private-address endpoints (tests, local push services). */
  allowInsecureEndpoints: boolean;
  /** PUSH_TTL_SECONDS: how long a push service keeps an undelivered ring. */
  ttlSeconds: number;
};

/**
 * APPLE_PASS_TYPE_ID, APPLE_TEAM_ID, the Pass Type ID certificate and its key (PEM, APPLE_PASS_CERT /
 * APPLE_PASS_KEY or their _FILE forms, the key optionally encrypted with APPLE_PASS_KEY_PASSPHRASE),
 * Apple's WWDR intermediate (APPLE_WWDR_CERT[_FILE]) and APNS_URL (tests point it at a fake, with APNS_CA_FILE).
 */
export type AppleWalletConfig = {
  passTypeId: string;
  teamId: string;
  cert: string;
  key: string;
  keyPassphrase: string | undefined;
  wwdr: string;
  apnsUrl: string;
  /** APNS_CA_FILE: a private CA that signs APNS_URL's certificate (a local fake, a relay); undefined trusts the system's. */
  apnsCa: string | undefined;
};

/** `smtpUrl`: null sends nothing (the link is written to the log). `from`: MAIL_FROM, needed with SMTP_URL. */
export type MailConfig = { smtpUrl: string | null; from: string | null };

/**
 * `mode`: who may sign up (open: anyone; first-owner: the first account of an instance, once; off:
 * nobody). `defaulted`: SIGNUP was not set (serve --demo then opens it). `trialDays`: a new account
 * gets the pro plan for this many days; 0: the free plan.
 */
export type SignupConfig = { mode: 'open' | 'first-owner' | 'off'; defaulted: boolean; trialDays: number };

export type SmsConfig = { providerUrl: string; accountSid: string; authToken: string; from: string };

/** The SMS provider's account, `from` as `whatsapp:+E164`, and the Content SID of the approved ready template. */
export type WhatsAppConfig = SmsConfig & { readyTemplate: string };

/**
 * A Google Wallet issuer (docs/google-wallet.md): its id, the service account that signs save links
 * and calls the Wallet REST API (`apiUrl`, walletobjects.googleapis.com unless a test points it
 * at a fake), and the OAuth token endpoint from the account's key file.
 */
export type GoogleWalletConfig = {
  issuerId: string;
  serviceAccount: { clientEmail: string; privateKey: string; tokenUri: string };
  apiUrl: string;
};

/**
 * The Square application an operator registered (docs/square-operator.md). `webhookUrl` is the
 * notification URL exactly as subscribed at Square: it is half of what Square signs. `baseUrl`
 * replaces Square's own host (tests point it at a local fake).
 */
export type SquareConfig = {
  applicationId: string;
  applicationSecret: string;
  environment: 'sandbox' | 'production';
  webhookSignatureKey: string;
  webhookUrl: string;
  baseUrl: string | null;
};

export type PaidPlan = 'pro' | 'business';
export type BillingPeriod = 'monthly' | 'yearly';

/**
 * The operator's Stripe account (docs/deployment.md): the secret key, the webhook endpoint's
 * signing secret, one price per plan and period (STRIPE_PRICE_<PLAN>_<PERIOD>), an optional metered
 * price for SMS (STRIPE_PRICE_SMS) and the meter's event name, and `api` (STRIPE_API_URL) replacing
 * Stripe's own origin (a proxy, or a test's local fake).
 */
export type StripeConfig = {
  secretKey: string;
  webhookSecret: string;
  prices: Array<{ plan: PaidPlan; period: BillingPeriod; priceId: string }>;
  smsPrice: string | null;
  api: { protocol: 'http' | 'https'; host: string; port: number } | null;
  meterEvent: string;
};

/**
 * The Shopify app an operator registered (docs/shopify-operator.md): its client id and secret (the
 * secret also signs Shopify's webhooks). `apiUrl` replaces `https://<shop>.myshopify.com` for the
 * OAuth and Admin API calls (a proxy, or a local fake in tests).
 */
export type ShopifyConfig = { apiKey: string; apiSecret: string; apiUrl: string | null };
