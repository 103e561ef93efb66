-- When the ticket's Google Wallet object was inserted at Google (decision 0072, issue 36 item 6):
-- the save link inserts it once, and later taps only sign a new link. NULL: not yet (test mode,
-- or Google did not answer in time: the next tap tries again).
ALTER TABLE google_wallet_objects ADD COLUMN inserted_at BIGINT;
