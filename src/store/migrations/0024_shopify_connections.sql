-- The Shopify connector (decision 0090): one connection per branch to one shop and one of its
-- locations. The shop is kept from the authorize on (the owner names it; the code is exchanged at
-- that shop only); the offline access token is sealed like webhook secrets and erased on
-- disconnect. A development store makes test-mode tickets (livemode 0), any other shop live ones.
CREATE TABLE shopify_connections (
  branch_id TEXT PRIMARY KEY REFERENCES branches(id),
  shop TEXT NOT NULL,
  -- The shop of the authorize under way: its code is exchanged there (a connected branch keeps
  -- `shop` and its token until then).
  asked_shop TEXT,
  shop_name TEXT,
  livemode INTEGER NOT NULL DEFAULT 0,
  location_id TEXT,
  location_name TEXT,
  queue TEXT,
  mark_prepared INTEGER NOT NULL DEFAULT 1,
  access_token TEXT,
  connected_at BIGINT,
  last_error TEXT,
  updated_at BIGINT NOT NULL
);
-- A webhook names its shop; the shop's connected branches are found by it.
CREATE INDEX shopify_connections_shop ON shopify_connections (shop);
