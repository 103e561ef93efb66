-- Fair work between tenants (decision 0048): every job runs in a lane with its own slots ('ring':
-- rings, reminders, ladder steps, snooze ends; 'webhook': deliveries), and names whose work it is
-- (the account, and for a delivery its endpoint), so a claim can give no owner more than its share.
ALTER TABLE jobs ADD COLUMN lane TEXT NOT NULL DEFAULT 'ring';
ALTER TABLE jobs ADD COLUMN account_id TEXT;
ALTER TABLE jobs ADD COLUMN endpoint_id TEXT;
UPDATE jobs SET lane = 'webhook' WHERE kind = 'webhook' AND done_at IS NULL;
-- A claim walks one lane's due jobs in run_at order.
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (lane, run_at) WHERE done_at IS NULL;
