-- Display boards, announcements and the per-channel delivery record of rings.

-- A board is opened by its link /board/<token>. The token is a capability like a ticket's link
-- (it shows numbers, never personal data) and, like it, must be shown again in the staff page,
-- so it is stored as is. Deleting keeps the row (deleted_at) so an old link can say "removed".
CREATE TABLE displays (
  id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL REFERENCES branches(id),
  mode TEXT NOT NULL,
  name TEXT NOT NULL,
  queues TEXT NOT NULL,
  voice INTEGER NOT NULL,
  token TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX displays_branch ON displays (branch_id, mode, id);

CREATE TABLE announcements (
  id TEXT PRIMARY KEY,
  branch_id TEXT NOT NULL REFERENCES branches(id),
  mode TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX announcements_active ON announcements (branch_id, mode, expires_at) WHERE deleted_at IS NULL;

-- "Delivered at most once per (ring, channel)": a channel records here what reached its target
-- (an acknowledged page, a board that spoke, a push service's acceptance) and checks it before
-- sending, so the in-line attempt and the outbox job that finishes a ring never deliver twice.
CREATE TABLE ring_deliveries (
  ring_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  target TEXT NOT NULL,
  delivered_at BIGINT NOT NULL,
  PRIMARY KEY (ring_id, channel, target)
);
CREATE INDEX ring_deliveries_time ON ring_deliveries (delivered_at);
