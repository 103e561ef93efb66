-- Staff page sessions (docs/decisions/0008-staff-page.md). The cookie holds a random token; only
-- its SHA-256 is kept, so a leaked table cannot be replayed as cookies. `password_stamp` is a
-- digest of the user's password hash at sign-in: any password change (staff page, CLI, demo)
-- makes it stale and so revokes every older session without a write to this table.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  branch_id TEXT NOT NULL REFERENCES branches(id),
  password_stamp TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX sessions_user ON sessions (user_id) WHERE revoked_at IS NULL;
CREATE INDEX sessions_expires ON sessions (expires_at);
