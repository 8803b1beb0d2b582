// The journal's tables: migrations in order, the version this code writes, and the order
// queries (exported so a test can check each one's plan uses an index).

const FINAL = `('filled', 'canceled', 'rejected')`;

/**
 * Schema migrations, in order. Migration i (1-based) takes the file from user_version i-1 to i.
 * Never edit a shipped migration: append a new one. Each runs in one transaction with its
 * version bump, so a crash mid-migration leaves the previous version intact.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: everything.
  `
  CREATE TABLE intents (
    id              INTEGER PRIMARY KEY,
    intent_id       TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    strategy        TEXT    NOT NULL,
    client_order_id TEXT    NOT NULL,
    body            TEXT    NOT NULL,   -- the intent as JSON, as handed to recordIntent
    journaled_at    INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX intents_client_order_id ON intents (client_order_id);

  CREATE TABLE orders (
    client_order_id TEXT    PRIMARY KEY,
    intent          INTEGER NOT NULL UNIQUE REFERENCES intents (id),  -- also the listing order
    venue_order_id  TEXT,
    strategy        TEXT    NOT NULL,
    market          TEXT    NOT NULL,
    symbol          TEXT    NOT NULL,
    side            TEXT    NOT NULL,
    type            TEXT    NOT NULL,
    volume          TEXT    NOT NULL,
    price           TEXT,
    executed_volume TEXT    NOT NULL,
    avg_price       TEXT,
    status          TEXT    NOT NULL,
    updated_at      INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX orders_venue_order_id ON orders (venue_order_id, intent) WHERE venue_order_id IS NOT NULL;
  CREATE INDEX orders_strategy ON orders (strategy, intent);
  CREATE INDEX orders_open ON orders (intent) WHERE status NOT IN ${FINAL};
  CREATE INDEX orders_open_strategy ON orders (strategy, intent) WHERE status NOT IN ${FINAL};

  CREATE TABLE order_events (
    id              INTEGER PRIMARY KEY,
    client_order_id TEXT    NOT NULL REFERENCES orders (client_order_id),
    at              INTEGER NOT NULL,
    status          TEXT    NOT NULL,
    reason          TEXT,
    -- Not part of OrderEvent, kept for forensics: what the order looked like at that moment.
    venue_order_id  TEXT,
    executed_volume TEXT    NOT NULL
  ) STRICT;
  CREATE INDEX order_events_order ON order_events (client_order_id, id);

  CREATE TABLE fills (
    id              INTEGER PRIMARY KEY,
    market          TEXT    NOT NULL,
    symbol          TEXT    NOT NULL,
    trade_id        TEXT    NOT NULL,
    venue_order_id  TEXT    NOT NULL,
    side            TEXT    NOT NULL,
    price           TEXT    NOT NULL,
    volume          TEXT    NOT NULL,
    fee             TEXT    NOT NULL,
    fee_asset       TEXT    NOT NULL,
    is_maker        INTEGER NOT NULL CHECK (is_maker IN (0, 1)),
    time            INTEGER NOT NULL,
    recorded_at     INTEGER NOT NULL,
    UNIQUE (market, symbol, trade_id)
  ) STRICT;
  CREATE INDEX fills_venue_order_id ON fills (venue_order_id);

  CREATE TABLE positions (
    ordinal           INTEGER PRIMARY KEY,  -- keeps the book's order
    market            TEXT    NOT NULL,
    symbol            TEXT    NOT NULL,
    quantity          TEXT    NOT NULL,
    avg_entry_price   TEXT    NOT NULL,
    realized_pnl      TEXT    NOT NULL,
    fees              TEXT    NOT NULL,
    saved_at          INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE sequences (
    strategy TEXT    PRIMARY KEY,
    next     INTEGER NOT NULL        -- the next number to hand out
  ) STRICT;

  CREATE TABLE cursors (
    key        TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE bans (
    id         INTEGER PRIMARY KEY CHECK (id = 1),   -- one row: the venue bans the key, not a symbol
    until_ms   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  `,
  // 2: a fill is one side of a trade (a self-trade is one trade id with two sides, both ours);
  // orders keep when their intent was journaled and, for futures, how they were sent.
  `
  CREATE TABLE fills_by_side (
    id              INTEGER PRIMARY KEY,
    market          TEXT    NOT NULL,
    symbol          TEXT    NOT NULL,
    trade_id        TEXT    NOT NULL,
    venue_order_id  TEXT    NOT NULL,
    side            TEXT    NOT NULL,
    price           TEXT    NOT NULL,
    volume          TEXT    NOT NULL,
    fee             TEXT    NOT NULL,
    fee_asset       TEXT    NOT NULL,
    is_maker        INTEGER NOT NULL CHECK (is_maker IN (0, 1)),
    time            INTEGER NOT NULL,
    recorded_at     INTEGER NOT NULL,
    UNIQUE (market, symbol, trade_id, side)
  ) STRICT;
  INSERT INTO fills_by_side SELECT * FROM fills;
  DROP TABLE fills;
  ALTER TABLE fills_by_side RENAME TO fills;
  CREATE INDEX fills_venue_order_id ON fills (venue_order_id);

  ALTER TABLE orders ADD COLUMN created_at INTEGER;
  UPDATE orders SET created_at = (SELECT journaled_at FROM intents WHERE intents.id = orders.intent);
  ALTER TABLE orders ADD COLUMN open TEXT;
  ALTER TABLE orders ADD COLUMN position_type INTEGER;
  `,
  // 3: orders keep the time in force they were sent with (a replacement keeps it), from their
  // intents for the orders journaled before; and retention (store/prune.ts): final orders by
  // when they last changed, so a prune finds the old ones without reading every order. Also the
  // line an older sluice must not cross: it would rebuild each strategy's own book from every
  // fill, and a pruned journal no longer holds them all.
  `
  ALTER TABLE orders ADD COLUMN time_in_force TEXT;
  UPDATE orders SET time_in_force = (SELECT json_extract(body, '$.timeInForce') FROM intents WHERE intents.id = orders.intent);
  CREATE INDEX orders_final_updated ON orders (updated_at) WHERE status IN ${FINAL};
  `,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The SQL behind orders(filter), exported so a test can check each one's query plan uses an index. */
export const ORDER_QUERIES = {
  /** Final orders last updated before a time (store/prune.ts's candidates). */
  finalBefore: `SELECT * FROM orders WHERE status IN ${FINAL} AND updated_at < ?`,
  all: `SELECT * FROM orders ORDER BY intent`,
  open: `SELECT * FROM orders WHERE status NOT IN ${FINAL} ORDER BY intent`,
  strategy: `SELECT * FROM orders WHERE strategy = ? ORDER BY intent`,
  openStrategy: `SELECT * FROM orders WHERE strategy = ? AND status NOT IN ${FINAL} ORDER BY intent`,
  byVenueId: `SELECT * FROM orders WHERE venue_order_id = ? ORDER BY intent`,
} as const;
