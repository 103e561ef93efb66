-- Lists whose cost does not grow with a branch's history (decision 0021). A queue and a status
-- are both leading columns, so "queue A, ready" reads only its own rows in id order, where the
-- (queue, id) index walked the queue's whole history testing each row. A queue without a status
-- is read as one range of this index per status, merged, so the old index is no longer needed
-- and a create writes as many index entries as before.
CREATE INDEX tickets_queue_status ON tickets (branch_id, mode, queue, status, id);
DROP INDEX tickets_queue;
