-- Sign-up, email verification and password reset (decisions 0080, 0081).
-- When a user proved their address by following an emailed link. Users made by an operator or an
-- owner are taken as verified (they were vouched for); a shop that signs itself up is not, until
-- its owner follows the verification link, and live API keys wait for it.
ALTER TABLE users ADD COLUMN email_verified_at BIGINT;
UPDATE users SET email_verified_at = created_at;
-- A trial of the paid plan (TRIAL_DAYS) ends then; null: no trial.
ALTER TABLE accounts ADD COLUMN trial_ends_at BIGINT;
-- Single-use links sent by email: only the SHA-256 of the token is kept. `email` is the address it
-- was sent to: a verification proves that address, and is refused once the user's email changed.
CREATE TABLE email_links (
  id TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id),
  email TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX email_links_user ON email_links (user_id, purpose);
CREATE INDEX email_links_expiry ON email_links (expires_at);
