-- Types are chosen from the subset both engines read the same way: TEXT, INTEGER, BIGINT
-- (millisecond UTC times), JSON kept as TEXT. Flags are INTEGER 0/1.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE branches (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  name TEXT NOT NULL,
  timezone TEXT NOT NULL,
  default_queue TEXT NOT NULL,
  settings TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX branches_account ON branches (account_id, id);

-- Queues are branch configuration shared by both modes; their tickets and counters are not.
CREATE TABLE queues (
  branch_id TEXT NOT NULL REFERENCES branches(id),
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (branch_id, name)
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  branch_id TEXT NOT NULL REFERENCES branches(id),
  mode TEXT NOT NULL,
  name TEXT,
  hash TEXT NOT NULL UNIQUE,
  last4 TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  last_used_at BIGINT
);
CREATE INDEX api_keys_branch ON api_keys (branch_id, id);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  removed_at BIGINT
);
CREATE INDEX users_account ON users (account_id, id);

-- Display numbers: one counter row per queue, mode and business day. The row lock taken by the
-- increment serialises creates of one queue only, never the whole branch or service.
CREATE TABLE queue_counters (
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  queue TEXT NOT NULL,
  day TEXT NOT NULL,
  last_number INTEGER NOT NULL,
  PRIMARY KEY (branch_id, mode, queue, day)
);

CREATE TABLE tickets (
  id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  queue TEXT NOT NULL,
  number INTEGER NOT NULL,
  display_number TEXT NOT NULL,
  status TEXT NOT NULL,
  token TEXT NOT NULL UNIQUE,
  external_ref TEXT,
  customer_phone TEXT,
  metadata TEXT,
  created_at BIGINT NOT NULL,
  ready_at BIGINT,
  collected_at BIGINT,
  cancelled_at BIGINT,
  expired_at BIGINT,
  closed_at BIGINT,
  cancel_reason TEXT,
  viewed_at BIGINT,
  notifications TEXT NOT NULL DEFAULT 'none',
  acknowledged_at BIGINT,
  snoozed_until BIGINT,
  rings INTEGER NOT NULL DEFAULT 0,
  last_ring_at BIGINT,
  expires_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX tickets_list ON tickets (branch_id, mode, id);
CREATE INDEX tickets_status ON tickets (branch_id, mode, status, id);
CREATE INDEX tickets_queue ON tickets (branch_id, mode, queue, id);
CREATE INDEX tickets_external_ref ON tickets (branch_id, mode, external_ref, id) WHERE external_ref IS NOT NULL;
-- The guarantee behind "never two open tickets with the same number".
CREATE UNIQUE INDEX tickets_open_number ON tickets (branch_id, mode, queue, number) WHERE closed_at IS NULL;
CREATE INDEX tickets_expiry ON tickets (expires_at) WHERE closed_at IS NULL;

CREATE TABLE rings (
  id TEXT PRIMARY KEY,
  ticket_id TEXT NOT NULL REFERENCES tickets(id),
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  seq INTEGER NOT NULL,
  reason TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  completed_at BIGINT,
  result TEXT,
  UNIQUE (ticket_id, seq)
);

-- The durable outbox. `key` makes every job idempotent (ring:<ticket>:<n>, deliver:<evt>:<we>).
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  payload TEXT NOT NULL,
  run_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  locked_until BIGINT,
  locked_by TEXT,
  done_at BIGINT,
  last_error TEXT,
  created_at BIGINT NOT NULL
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE done_at IS NULL;

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  type TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX events_list ON events (branch_id, mode, id);
CREATE INDEX events_type ON events (branch_id, mode, type, id);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE idempotency_keys (
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  locked_until BIGINT,
  response_status INTEGER,
  response_body TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (branch_id, mode, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
