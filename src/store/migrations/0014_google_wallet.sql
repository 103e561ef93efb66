-- Google Wallet passes (docs/google-wallet.md, decision 0072): one generic pass object per ticket,
-- recorded when the customer first asks for the save link, so that rings and closes know the
-- ticket has a pass. object_id is `<issuer id>.<random>` (never the ticket's id or token). The
-- notified_* columns hold the times of the object's last three notifying messages, oldest first:
-- Google allows three per pass in 24 hours, and a conditional update on this one row keeps the
-- count exact when two rings race. The row goes when the ticket closes (after the pass shows it).
CREATE TABLE google_wallet_objects (
  ticket_id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  object_id TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  notified_1 BIGINT,
  notified_2 BIGINT,
  notified_3 BIGINT
);
-- Retention (src/store/retention.ts) sweeps objects a week old through this index.
CREATE INDEX google_wallet_objects_created ON google_wallet_objects (created_at);
