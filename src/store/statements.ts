// The journal's prepared statements and transactions, and the mapping between its rows and
// sluice's types. Decimals stay TEXT, venue ids TEXT, times INTEGER epoch ms.
import type Database from 'better-sqlite3';
import { amend } from '../core/amend.js';
import type { Decimal } from '../core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../core/ids.js';
import type { Fill, Market, Order, OrderIntent, OrderStatus, OrderType, Position, Side } from '../core/types.js';
import { ORDER_QUERIES } from './schema.js';

export interface OrderRow {
  client_order_id: string;
  intent: number;
  venue_order_id: string | null;
  strategy: string;
  market: string;
  symbol: string;
  side: string;
  type: string;
  volume: string;
  price: string | null;
  executed_volume: string;
  avg_price: string | null;
  status: string;
  updated_at: number;
  created_at: number | null;
  open: string | null;
  position_type: number | null;
  time_in_force: string | null;
}

export interface EventRow {
  client_order_id: string;
  at: number;
  status: string;
  reason: string | null;
}

export interface FillRow {
  market: string;
  symbol: string;
  trade_id: string;
  venue_order_id: string;
  side: string;
  price: string;
  volume: string;
  fee: string;
  fee_asset: string;
  is_maker: number;
  time: number;
}

export interface PositionRow {
  market: string;
  symbol: string;
  quantity: string;
  avg_entry_price: string;
  realized_pnl: string;
  fees: string;
}

export function prepareStatements(db: Database.Database) {
  return {
    nextSequence: db.prepare<[string, number], { n: number }>(
      `INSERT INTO sequences (strategy, next) VALUES (?, ? + 1)
       ON CONFLICT (strategy) DO UPDATE SET next = next + 1
       RETURNING next - 1 AS n`,
    ),
    insertIntent: db.prepare(
      `INSERT INTO intents (intent_id, kind, strategy, client_order_id, body, journaled_at)
       VALUES (@intentId, @kind, @strategy, @clientOrderId, @body, @journaledAt)`,
    ),
    insertOrder: db.prepare(
      `INSERT INTO orders (client_order_id, intent, venue_order_id, strategy, market, symbol, side, type,
                           volume, price, executed_volume, avg_price, status, updated_at, created_at, open, position_type, time_in_force)
       VALUES (@clientOrderId, @intent, @venueOrderId, @strategy, @market, @symbol, @side, @type,
               @volume, @price, @executedVolume, @avgPrice, @status, @updatedAt, @createdAt, @open, @positionType, @timeInForce)`,
    ),
    updateOrder: db.prepare(
      `UPDATE orders SET venue_order_id = @venueOrderId, strategy = @strategy, market = @market, symbol = @symbol,
                         side = @side, type = @type, volume = @volume, price = @price,
                         executed_volume = @executedVolume, avg_price = @avgPrice, status = @status,
                         updated_at = @updatedAt, created_at = @createdAt, open = @open, position_type = @positionType,
                         time_in_force = @timeInForce
       WHERE client_order_id = @clientOrderId`,
    ),
    insertEvent: db.prepare(
      `INSERT INTO order_events (client_order_id, at, status, reason, venue_order_id, executed_volume)
       VALUES (@clientOrderId, @at, @status, @reason, @venueOrderId, @executedVolume)`,
    ),
    order: db.prepare<[string], OrderRow>(`SELECT * FROM orders WHERE client_order_id = ?`),
    ordersAll: db.prepare<[], OrderRow>(ORDER_QUERIES.all),
    ordersOpen: db.prepare<[], OrderRow>(ORDER_QUERIES.open),
    ordersStrategy: db.prepare<[string], OrderRow>(ORDER_QUERIES.strategy),
    ordersOpenStrategy: db.prepare<[string], OrderRow>(ORDER_QUERIES.openStrategy),
    ordersByVenueId: db.prepare<[string], OrderRow>(ORDER_QUERIES.byVenueId),
    latestOrders: db.prepare<[string, number], OrderRow>(`SELECT * FROM (SELECT * FROM orders WHERE strategy = ? ORDER BY intent DESC LIMIT ?) ORDER BY intent`),
    history: db.prepare<[string], EventRow>(`SELECT client_order_id, at, status, reason FROM order_events WHERE client_order_id = ? ORDER BY id`),
    intent: db.prepare<[string], { body: string }>(`SELECT body FROM intents WHERE client_order_id = ? ORDER BY id`),
    insertFill: db.prepare(
      `INSERT OR IGNORE INTO fills (market, symbol, trade_id, venue_order_id, side, price, volume, fee, fee_asset, is_maker, time, recorded_at)
       VALUES (@market, @symbol, @tradeId, @venueOrderId, @side, @price, @volume, @fee, @feeAsset, @isMaker, @time, @recordedAt)`,
    ),
    // The strategy of the latest order the venue knows by the fill's order id, as ordersByVenueId lists them.
    fills: db.prepare<[number], FillRow & { id: number; strategy: string | null }>(
      `SELECT f.*, (SELECT o.strategy FROM orders o WHERE o.venue_order_id = f.venue_order_id AND o.market = f.market AND o.symbol = f.symbol ORDER BY o.intent DESC LIMIT 1) AS strategy
       FROM fills f WHERE f.id > ? ORDER BY f.id`,
    ),
    // A strategy's latest fills, newest first, attributed as `fills` attributes them: the scan walks
    // back from the latest fill and stops at the limit.
    latestFillsOf: db.prepare<[string, number], FillRow>(
      `SELECT * FROM (SELECT f.*, (SELECT o.strategy FROM orders o WHERE o.venue_order_id = f.venue_order_id AND o.market = f.market AND o.symbol = f.symbol ORDER BY o.intent DESC LIMIT 1) AS strategy
       FROM fills f ORDER BY f.id DESC) WHERE strategy = ? LIMIT ?`,
    ),
    lastFillId: db.prepare<[], { id: number | null }>(`SELECT max(id) AS id FROM fills`),
    latestFills: db.prepare<[number], FillRow>(`SELECT * FROM (SELECT * FROM fills ORDER BY id DESC LIMIT ?) ORDER BY id`),
    fillVolumes: db.prepare<[string, string, string], { volume: string }>(`SELECT volume FROM fills WHERE venue_order_id = ? AND market = ? AND symbol = ?`),
    positions: db.prepare<[], PositionRow>(`SELECT * FROM positions ORDER BY ordinal`),
    clearPositions: db.prepare(`DELETE FROM positions`),
    insertPosition: db.prepare(
      `INSERT INTO positions (ordinal, market, symbol, quantity, avg_entry_price, realized_pnl, fees, saved_at)
       VALUES (@ordinal, @market, @symbol, @quantity, @avgEntryPrice, @realizedPnl, @fees, @savedAt)`,
    ),
    cursor: db.prepare<[string], { value: string }>(`SELECT value FROM cursors WHERE key = ?`),
    setCursor: db.prepare(
      `INSERT INTO cursors (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    ),
    banUntil: db.prepare<[], { until_ms: number }>(`SELECT until_ms FROM bans WHERE id = 1`),
    setBanUntil: db.prepare(
      `INSERT INTO bans (id, until_ms, updated_at) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms), updated_at = excluded.updated_at`,
    ),
  };
}
export type Statements = ReturnType<typeof prepareStatements>;

/** The writes of several statements; SqliteJournal runs each all or nothing. */
export function prepareWrites(stmt: Statements) {
  return {
    recordIntent: (intent: OrderIntent, order: Order, at: number) => {
      if (stmt.order.get(order.clientOrderId)) throw new Error(`client order id ${order.clientOrderId} was journaled before`);
      const { lastInsertRowid } = stmt.insertIntent.run({
        intentId: intent.intentId,
        kind: intent.kind,
        strategy: intent.strategyId,
        clientOrderId: intent.clientOrderId,
        body: JSON.stringify(intent),
        journaledAt: at,
      });
      stmt.insertOrder.run(amend(orderParams(order), { intent: lastInsertRowid }));
      stmt.insertEvent.run(eventParams(order, 'intent'));
    },
    updateOrder: (order: Order, reason: string | undefined) => {
      if (stmt.updateOrder.run(orderParams(order)).changes === 0) throw new Error(`unknown order ${order.clientOrderId}`);
      stmt.insertEvent.run(eventParams(order, reason));
    },
    savePositions: (positions: readonly Position[], at: number) => {
      stmt.clearPositions.run();
      positions.forEach((p, ordinal) =>
        stmt.insertPosition.run({
          ordinal,
          market: p.market,
          symbol: p.symbol,
          quantity: p.quantity,
          avgEntryPrice: p.avgEntryPrice,
          realizedPnl: p.realizedPnl,
          fees: p.fees,
          savedAt: at,
        }),
      );
    },
  };
}
export type Writes = ReturnType<typeof prepareWrites>;

export function checkTime(ms: number, field: string): void {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`${field} must be an integer number of epoch milliseconds (got ${ms})`);
}

export function orderParams(o: Order) {
  return {
    clientOrderId: o.clientOrderId,
    venueOrderId: o.venueOrderId ?? null,
    strategy: o.strategyId,
    market: o.market,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    volume: o.volume,
    price: o.price ?? null,
    executedVolume: o.executedVolume,
    avgPrice: o.avgPrice ?? null,
    status: o.status,
    updatedAt: o.updatedAt,
    createdAt: o.createdAt,
    open: o.open ?? null,
    positionType: o.positionType ?? null,
    timeInForce: o.timeInForce ?? null,
  };
}

export function eventParams(o: Order, reason: string | undefined) {
  return {
    clientOrderId: o.clientOrderId,
    at: o.updatedAt,
    status: o.status,
    reason: reason ?? null,
    venueOrderId: o.venueOrderId ?? null,
    executedVolume: o.executedVolume,
  };
}

/** The order as reading it back from the journal gives it: what the open-order cache holds. */
export function asStored(o: Order): Order {
  const p = orderParams(o);
  return toOrder({
    client_order_id: p.clientOrderId,
    intent: 0,
    venue_order_id: p.venueOrderId,
    strategy: p.strategy,
    market: p.market,
    symbol: p.symbol,
    side: p.side,
    type: p.type,
    volume: p.volume,
    price: p.price,
    executed_volume: p.executedVolume,
    avg_price: p.avgPrice,
    status: p.status,
    updated_at: p.updatedAt,
    created_at: p.createdAt,
    open: p.open,
    position_type: p.positionType,
    time_in_force: p.timeInForce,
  });
}

export function toOrder(r: OrderRow): Order {
  const o: Order = {
    clientOrderId: r.client_order_id as ClientOrderId,
    strategyId: r.strategy,
    market: r.market as Market,
    symbol: r.symbol,
    side: r.side as Side,
    type: r.type as OrderType,
    volume: r.volume as Decimal,
    executedVolume: r.executed_volume as Decimal,
    status: r.status as OrderStatus,
    // Orders journaled before schema 2 whose intent row is gone cannot exist; updated_at is a safe floor.
    createdAt: r.created_at ?? r.updated_at,
    updatedAt: r.updated_at,
  };
  if (r.open === 'OPEN' || r.open === 'CLOSE') o.open = r.open;
  if (r.position_type === 1 || r.position_type === 2) o.positionType = r.position_type;
  if (r.time_in_force === 'IOC' || r.time_in_force === 'FOK' || r.time_in_force === 'POST_ONLY') o.timeInForce = r.time_in_force;
  if (r.venue_order_id !== null) o.venueOrderId = r.venue_order_id as VenueOrderId;
  if (r.price !== null) o.price = r.price as Decimal;
  if (r.avg_price !== null) o.avgPrice = r.avg_price as Decimal;
  return o;
}

export function toFill(r: FillRow): Fill {
  return {
    tradeId: r.trade_id,
    market: r.market as Market,
    symbol: r.symbol,
    venueOrderId: r.venue_order_id as VenueOrderId,
    side: r.side as Side,
    price: r.price as Decimal,
    volume: r.volume as Decimal,
    fee: r.fee as Decimal,
    feeAsset: r.fee_asset,
    isMaker: r.is_maker === 1,
    time: r.time,
  };
}

export function toPosition(r: PositionRow): Position {
  return {
    market: r.market as Market,
    symbol: r.symbol,
    quantity: r.quantity as Decimal,
    avgEntryPrice: r.avg_entry_price as Decimal,
    realizedPnl: r.realized_pnl as Decimal,
    fees: r.fees as Decimal,
  };
}
