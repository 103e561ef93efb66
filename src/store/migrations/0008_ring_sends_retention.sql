-- Retention of send claims (src/store/retention.ts): the hourly sweep deletes those claimed over a
-- week ago through this index instead of reading the whole table. Most go sooner, with their
-- ticket's close; the sweep catches claims made after it.
CREATE INDEX ring_sends_claimed ON ring_sends (claimed_at);
