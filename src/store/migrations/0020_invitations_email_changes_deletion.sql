-- Invitations, email changes and account deletion (decisions 0082, 0083). A link's token is kept
-- only as its SHA-256, like a session's: a leaked table holds no usable link.
CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  -- The staff page's language of the owner who sent it: the mail's language.
  language TEXT NOT NULL,
  invited_by TEXT,
  created_at BIGINT NOT NULL,
  sent_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  accepted_at BIGINT,
  revoked_at BIGINT,
  user_id TEXT
);
CREATE INDEX invitations_account ON invitations (account_id, id);

-- A user's request to change their email: the new address confirms it by following its link.
CREATE TABLE email_changes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  account_id TEXT NOT NULL REFERENCES accounts(id),
  new_email TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  confirmed_at BIGINT
);
CREATE INDEX email_changes_user ON email_changes (user_id);

-- Set when an owner deletes the account: its keys and sessions stop at once, and the account is
-- erased 30 days later unless an owner restores it (cleared again).
ALTER TABLE accounts ADD COLUMN deletion_requested_at BIGINT;
CREATE INDEX accounts_deletion ON accounts (deletion_requested_at);
