-- Two-way SMS and delivery receipts (decision 0026).

-- The delivery state of the ticket's latest text (queued, sent, delivered, undelivered, failed),
-- kept beside the ticket so that every read of it shows it without another query. Written only
-- by src/store/sms-messages.ts; NULL until a text is sent.
ALTER TABLE tickets ADD COLUMN sms_status TEXT;

-- A reply is matched to the open ticket texted at the sender's number. Numbers are erased when a
-- ticket closes, so this index holds open tickets with a phone only.
CREATE INDEX tickets_customer_phone ON tickets (customer_phone) WHERE customer_phone IS NOT NULL;

-- One row per ring that sent a text (a ring sends at most one): what the provider accepted and
-- what its status callbacks said since. No number and no text are kept here.
CREATE TABLE sms_messages (
  ring_id TEXT PRIMARY KEY,
  ticket_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  seq INTEGER NOT NULL,
  status TEXT NOT NULL,
  error_code TEXT,
  provider_sid TEXT,
  sent_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX sms_messages_ticket ON sms_messages (ticket_id, seq);

-- Numbers that answered STOP, per mode, as a keyed digest (HMAC-SHA-256 with a random key kept in
-- service_settings): membership can be tested, the number is not stored.
CREATE TABLE sms_opt_outs (
  mode TEXT NOT NULL,
  phone_digest TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (mode, phone_digest)
);

-- Inbound messages already acted on, by the provider's message id: a webhook delivered twice acts
-- once. Kept two days (swept by the inbound webhook itself).
CREATE TABLE sms_inbound (
  message_sid TEXT PRIMARY KEY,
  received_at BIGINT NOT NULL
);
CREATE INDEX sms_inbound_received ON sms_inbound (received_at);
