-- Apple Wallet passes (docs/wallet.md, decision 0071). A pass is issued each time a customer adds
-- the ticket to Wallet: its serial number is random (never the ticket id), its authentication token
-- is kept only as a SHA-256 hash. `updated_at` is the pass's version (whole seconds, in ms, rising
-- by at least a second per change: Last-Modified and the web service's tag); `ring_id` is the ring
-- the pass's current version announces. Passes are swept a month after they were issued (store/retention.ts);
-- their device registrations go when the ticket closes.
CREATE TABLE wallet_passes (
  serial_number TEXT PRIMARY KEY,
  ticket_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  auth_token_hash TEXT NOT NULL,
  ring_id TEXT,
  updated_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX wallet_passes_ticket ON wallet_passes (ticket_id, branch_id, mode);
CREATE INDEX wallet_passes_created ON wallet_passes (created_at);

-- A device that asked to be told about a pass (PassKit web service: register): the push token is
-- a way to reach someone's phone, erased when the ticket closes.
CREATE TABLE wallet_registrations (
  device_id TEXT NOT NULL,
  serial_number TEXT NOT NULL,
  push_token TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (device_id, serial_number)
);
CREATE INDEX wallet_registrations_ticket ON wallet_registrations (ticket_id, branch_id, mode);
CREATE INDEX wallet_registrations_serial ON wallet_registrations (serial_number);
CREATE INDEX wallet_registrations_created ON wallet_registrations (created_at);

-- Insights count rings by the channel that reached the customer: `wallet` is one now.
ALTER TABLE insight_hours ADD COLUMN rings_wallet INTEGER NOT NULL DEFAULT 0;
