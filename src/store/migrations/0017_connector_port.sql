-- The connector port (decision 0076). Where a ticket came from is a column only the server writes:
-- a connector's system actor sets it when the connector's job creates the ticket; a request
-- cannot, whatever its metadata says. Tickets made through the API or the staff page have none.
-- Older Square tickets are found by their metadata once, here, so the connector's lookups and its
-- hooks read the column alone.
ALTER TABLE tickets ADD COLUMN source TEXT;
UPDATE tickets SET source = 'square'
  WHERE external_ref IS NOT NULL AND metadata LIKE '%"source":"square"%'
    AND branch_id IN (SELECT branch_id FROM square_connections);
-- The shared OAuth flow's states, one row per authorize round of any connector: the state is kept
-- only as its SHA-256, beside the SHA-256 of the staff session that asked for it, for ten minutes,
-- and spent by the first callback that names it.
CREATE TABLE connector_oauth_states (
  state_hash TEXT PRIMARY KEY,
  connector TEXT NOT NULL,
  branch_id TEXT NOT NULL REFERENCES branches(id),
  session_hash TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX connector_oauth_states_expiry ON connector_oauth_states (expires_at);
