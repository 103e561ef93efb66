-- Billing through Stripe (decisions 0084, 0085). One row per account that has a Stripe customer:
-- what was last read back from Stripe about its subscription (never an event's own copy), and the
-- grace a failed payment opened. The account's plan itself stays in accounts.plan, which every
-- request already reads; this row says why it is what it is.
CREATE TABLE billing_accounts (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  customer_id TEXT NOT NULL UNIQUE,
  subscription_id TEXT,
  status TEXT,
  paid_plan TEXT,
  period TEXT,
  trial_end BIGINT,
  current_period_end BIGINT,
  cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
  payment_failed_at BIGINT,
  grace_until BIGINT,
  updated_at BIGINT NOT NULL
);
-- Each Stripe event id once: written in the transaction that acts on the event.
CREATE TABLE stripe_events (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  received_at BIGINT NOT NULL
);
CREATE INDEX stripe_events_received ON stripe_events (received_at);
-- One row per SMS a live ticket's ring sent (the ring id names it): the Billing screen counts them,
-- and each is reported to Stripe once as a meter event by a job keyed by the same ring id.
CREATE TABLE sms_usage (
  ring_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  sent_at BIGINT NOT NULL
);
CREATE INDEX sms_usage_account ON sms_usage (account_id, sent_at);
