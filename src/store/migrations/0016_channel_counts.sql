-- Insights count rings by the channel that reached the customer (a ring's channel_used) in rows
-- keyed by channel instead of a column per channel, so a new channel needs no new column (decision
-- 0074). Same key as insight_hours plus the channel; `rings` is the rings of that hour, queue and
-- shard that reached the customer through it. The totals (rings, rings_called_out) stay in
-- insight_hours. The weekday is kept as in insight_hours, for the week × hour read.
CREATE TABLE insight_channel_hours (
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  day TEXT NOT NULL,
  hour INTEGER NOT NULL,
  queue TEXT NOT NULL,
  shard INTEGER NOT NULL,
  channel TEXT NOT NULL,
  weekday INTEGER NOT NULL,
  rings INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (branch_id, mode, day, hour, queue, shard, channel)
);
-- Maintenance folds the shards of past hours here too (PostgreSQL; SQLite never has any).
CREATE INDEX insight_channel_hours_shards ON insight_channel_hours (day) WHERE shard > 0;

-- The history the columns held, moved row for row.
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'push', weekday, rings_push FROM insight_hours WHERE rings_push > 0;
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'wallet', weekday, rings_wallet FROM insight_hours WHERE rings_wallet > 0;
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'page', weekday, rings_page FROM insight_hours WHERE rings_page > 0;
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'sms', weekday, rings_sms FROM insight_hours WHERE rings_sms > 0;
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'none', weekday, rings_none FROM insight_hours WHERE rings_none > 0;
INSERT INTO insight_channel_hours (branch_id, mode, day, hour, queue, shard, channel, weekday, rings)
  SELECT branch_id, mode, day, hour, queue, shard, 'unknown', weekday, rings_unknown FROM insight_hours WHERE rings_unknown > 0;

ALTER TABLE insight_hours DROP COLUMN rings_push;
ALTER TABLE insight_hours DROP COLUMN rings_wallet;
ALTER TABLE insight_hours DROP COLUMN rings_page;
ALTER TABLE insight_hours DROP COLUMN rings_sms;
ALTER TABLE insight_hours DROP COLUMN rings_none;
ALTER TABLE insight_hours DROP COLUMN rings_unknown;
