-- Ringing through push and SMS: the customers' push subscriptions, the per-ring send claims that
-- keep a ring from going out twice through one channel, and service-wide settings (the VAPID key
-- pair every node must share).

-- A browser's PushSubscription for one ticket. Erased when the ticket closes (retention): an
-- endpoint is a capability to reach someone's device.
CREATE TABLE push_subscriptions (
  id TEXT PRIMARY KEY,
  ticket_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (ticket_id, endpoint)
);

-- One row per (ring, channel, target), inserted BEFORE anything is sent: the in-line attempt and
-- the outbox job (possibly on another node) race for the same row, and only the inserter sends;
-- the other waits for its outcome. Targets: a push subscription id, 'phone' for SMS.
-- status: sending | delivered | undelivered. (ring_deliveries, 0003, records confirmations from
-- pages and boards; this table is for sends whose outcome the sender learns itself.)
CREATE TABLE ring_sends (
  ring_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  target TEXT NOT NULL,
  ticket_id TEXT NOT NULL,
  status TEXT NOT NULL,
  detail TEXT,
  claimed_at BIGINT NOT NULL,
  settled_at BIGINT,
  PRIMARY KEY (ring_id, channel, target)
);
CREATE INDEX ring_sends_ticket ON ring_sends (ticket_id);

CREATE TABLE service_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
