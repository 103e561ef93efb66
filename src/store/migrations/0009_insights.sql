-- Owner insights (decision 0025): what happened at a branch, counted by the transaction of each
-- change into the row of its branch, mode, local date and hour (the branch's time zone at that
-- moment, as display numbers count days) and queue. A read of a period adds up about 24 rows per
-- day and queue, however long the branch's history; `readybell insights rebuild` recomputes the
-- rows from the tickets.
--
-- Durations are histograms: prep_b<i> and pickup_b<i> count the preparations (created to ready)
-- and pickups (ready to collected) that fell in bucket i of BUCKET_BOUNDS_S
-- (src/domain/insight-figures.ts); with their sum and longest, a period's median, 90th percentile,
-- mean and longest come from the summed rows.
CREATE TABLE insight_hours (
  branch_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  day TEXT NOT NULL,
  hour INTEGER NOT NULL,
  queue TEXT NOT NULL,
  -- Which of the hour's rows: on PostgreSQL a change goes to one of 8 by its ticket, so that
  -- concurrent changes of one queue do not queue behind one row's lock until each COMMIT; on
  -- SQLite (one writer) always 0. Reads add the shards up with everything else.
  shard INTEGER NOT NULL,
  -- The day's ISO weekday (1 Monday … 7 Sunday), kept so that a week × hour read groups rows by it.
  weekday INTEGER NOT NULL,
  created INTEGER NOT NULL DEFAULT 0, ready INTEGER NOT NULL DEFAULT 0, collected INTEGER NOT NULL DEFAULT 0, cancelled INTEGER NOT NULL DEFAULT 0, expired INTEGER NOT NULL DEFAULT 0,
  -- rings completed, by the channel that reached the customer (a ring's channel_used), and those a board called out
  rings INTEGER NOT NULL DEFAULT 0, rings_push INTEGER NOT NULL DEFAULT 0, rings_page INTEGER NOT NULL DEFAULT 0, rings_sms INTEGER NOT NULL DEFAULT 0, rings_none INTEGER NOT NULL DEFAULT 0,
  rings_unknown INTEGER NOT NULL DEFAULT 0, rings_called_out INTEGER NOT NULL DEFAULT 0, acknowledged INTEGER NOT NULL DEFAULT 0, snoozed INTEGER NOT NULL DEFAULT 0,
  prep_sum_ms BIGINT NOT NULL DEFAULT 0, prep_max_ms BIGINT NOT NULL DEFAULT 0,
  prep_b0 INTEGER NOT NULL DEFAULT 0, prep_b1 INTEGER NOT NULL DEFAULT 0, prep_b2 INTEGER NOT NULL DEFAULT 0, prep_b3 INTEGER NOT NULL DEFAULT 0, prep_b4 INTEGER NOT NULL DEFAULT 0,
  prep_b5 INTEGER NOT NULL DEFAULT 0, prep_b6 INTEGER NOT NULL DEFAULT 0, prep_b7 INTEGER NOT NULL DEFAULT 0, prep_b8 INTEGER NOT NULL DEFAULT 0, prep_b9 INTEGER NOT NULL DEFAULT 0,
  prep_b10 INTEGER NOT NULL DEFAULT 0, prep_b11 INTEGER NOT NULL DEFAULT 0, prep_b12 INTEGER NOT NULL DEFAULT 0, prep_b13 INTEGER NOT NULL DEFAULT 0, prep_b14 INTEGER NOT NULL DEFAULT 0,
  prep_b15 INTEGER NOT NULL DEFAULT 0, prep_b16 INTEGER NOT NULL DEFAULT 0, prep_b17 INTEGER NOT NULL DEFAULT 0, prep_b18 INTEGER NOT NULL DEFAULT 0, prep_b19 INTEGER NOT NULL DEFAULT 0,
  prep_b20 INTEGER NOT NULL DEFAULT 0, prep_b21 INTEGER NOT NULL DEFAULT 0, prep_b22 INTEGER NOT NULL DEFAULT 0, prep_b23 INTEGER NOT NULL DEFAULT 0, prep_b24 INTEGER NOT NULL DEFAULT 0,
  pickup_count INTEGER NOT NULL DEFAULT 0, pickup_sum_ms BIGINT NOT NULL DEFAULT 0, pickup_max_ms BIGINT NOT NULL DEFAULT 0,
  pickup_b0 INTEGER NOT NULL DEFAULT 0, pickup_b1 INTEGER NOT NULL DEFAULT 0, pickup_b2 INTEGER NOT NULL DEFAULT 0, pickup_b3 INTEGER NOT NULL DEFAULT 0, pickup_b4 INTEGER NOT NULL DEFAULT 0,
  pickup_b5 INTEGER NOT NULL DEFAULT 0, pickup_b6 INTEGER NOT NULL DEFAULT 0, pickup_b7 INTEGER NOT NULL DEFAULT 0, pickup_b8 INTEGER NOT NULL DEFAULT 0, pickup_b9 INTEGER NOT NULL DEFAULT 0,
  pickup_b10 INTEGER NOT NULL DEFAULT 0, pickup_b11 INTEGER NOT NULL DEFAULT 0, pickup_b12 INTEGER NOT NULL DEFAULT 0, pickup_b13 INTEGER NOT NULL DEFAULT 0, pickup_b14 INTEGER NOT NULL DEFAULT 0,
  pickup_b15 INTEGER NOT NULL DEFAULT 0, pickup_b16 INTEGER NOT NULL DEFAULT 0, pickup_b17 INTEGER NOT NULL DEFAULT 0, pickup_b18 INTEGER NOT NULL DEFAULT 0, pickup_b19 INTEGER NOT NULL DEFAULT 0,
  pickup_b20 INTEGER NOT NULL DEFAULT 0, pickup_b21 INTEGER NOT NULL DEFAULT 0, pickup_b22 INTEGER NOT NULL DEFAULT 0, pickup_b23 INTEGER NOT NULL DEFAULT 0, pickup_b24 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (branch_id, mode, day, hour, queue, shard)
);
-- Where maintenance finds the shards of past hours to fold into one row each (PostgreSQL; SQLite
-- never has any).
CREATE INDEX insight_hours_shards ON insight_hours (day) WHERE shard > 0;
