-- Webhook endpoints, one delivery per (event, endpoint), and the log of every attempt.
-- Decision: docs/decisions/0005-webhook-delivery.md.

-- Secrets are kept so that they can sign (an HMAC needs the key itself): as generated, or sealed
-- with WEBHOOK_SECRETS_KEY (`enc:v1:…`). During a rotation the previous secret keeps signing
-- until previous_secret_expires_at.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL REFERENCES branches(id),
  mode TEXT NOT NULL,
  url TEXT NOT NULL,
  enabled_events TEXT NOT NULL,
  description TEXT,
  disabled INTEGER NOT NULL DEFAULT 0,
  disabled_reason TEXT,
  disabled_at BIGINT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at BIGINT,
  -- First failed attempt since the last success: the 3-day "failing everything" rule reads it.
  failing_since BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- "endpoints of a branch and mode": the fan-out reads it inside every event's transaction.
CREATE INDEX webhook_endpoints_branch ON webhook_endpoints (branch_id, mode, id);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- Automatic attempts only: the retry schedule's position (manual retries do not advance it).
  auto_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  last_attempt_at BIGINT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
-- "deliveries of an endpoint, newest first" (ids sort by creation time).
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_endpoint_status ON webhook_deliveries (endpoint_id, status, id);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
  delivery_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  attempted_at BIGINT NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  -- The first 1 KB of the receiver's answer, for the delivery log.
  response_body TEXT,
  error TEXT,
  manual INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (delivery_id, seq)
);
