-- The Square connector (decision 0073): one connection per branch to one Square merchant and one of
-- its locations. Tokens are sealed like webhook secrets (domain/secret-box.ts, with the branch id as
-- associated data) and erased on disconnect. The OAuth state is kept as a hash, with a hash of the
-- staff session that asked for it, for ten minutes.
CREATE TABLE square_connections (
  branch_id TEXT PRIMARY KEY REFERENCES branches(id),
  environment TEXT NOT NULL,
  merchant_id TEXT,
  merchant_name TEXT,
  location_id TEXT,
  location_name TEXT,
  queue TEXT,
  mark_prepared INTEGER NOT NULL DEFAULT 0,
  access_token TEXT,
  refresh_token TEXT,
  token_expires_at BIGINT,
  connected_at BIGINT,
  refresh_failed_at BIGINT,
  last_error TEXT,
  oauth_state_hash TEXT,
  oauth_session_hash TEXT,
  oauth_state_expires_at BIGINT,
  updated_at BIGINT NOT NULL
);
-- A notification names its merchant; the merchant's connected branches are found by it.
CREATE INDEX square_connections_merchant ON square_connections (merchant_id);
CREATE INDEX square_connections_state ON square_connections (oauth_state_hash);
-- The refresher reads the connections whose tokens run out soonest.
CREATE INDEX square_connections_expiry ON square_connections (token_expires_at);
