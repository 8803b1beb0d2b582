// One table per rule: accepted and rejected cases, each rejection with its exact reason text.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { OrderIntent } from '../../../src/core/types.js';
import { checkIntents, emptyRiskState, fingerprint, type RiskLimits, type RiskSnapshot, type RiskState } from '../../../src/risk/index.js';
import { cancel, LIMITS, market, place, resting, sell, snapshot } from './fixtures.js';

interface Row {
  name: string;
  intents: OrderIntent[];
  snap?: RiskSnapshot;
  limits?: Partial<RiskLimits>;
  state?: RiskState;
  now?: number;
  /** Per intent, in order: 'accepted' or the exact rejection reason. */
  expected: string[];
}

const ACCEPTED = 'accepted';

function verdicts(row: Row): string[] {
  const { accepted, rejected } = checkIntents(row.intents, row.snap ?? snapshot(), { ...LIMITS, ...row.limits }, row.state ?? emptyRiskState(), row.now ?? 0);
  return row.intents.map((i) => (accepted.includes(i) ? ACCEPTED : (rejected.find((r) => r.intent === i)?.reason ?? 'missing')));
}

function table(rule: string, rows: Row[]): void {
  describe(rule, () => {
    it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
      expect(verdicts(row)).toEqual(row.expected);
    });
  });
}

table('invalid', [
  { name: 'a well-formed limit buy passes', intents: [place('0.1', '20000')], expected: [ACCEPTED] },
  { name: 'zero volume', intents: [place('0', '20000')], expected: ['invalid: volume must be a decimal above 0 (got 0)'] },
  { name: 'negative volume', intents: [place('-1', '20000')], expected: ['invalid: volume must be a decimal above 0 (got -1)'] },
  { name: 'volume not a decimal', intents: [place('1e3', '20000')], expected: ['invalid: volume must be a decimal above 0 (got 1e3)'] },
  { name: 'limit without price', intents: [place('0.1', undefined)], expected: ['invalid: a LIMIT order needs a price'] },
  { name: 'limit at price 0', intents: [place('0.1', '0')], expected: ['invalid: price must be a decimal above 0 (got 0)'] },
  { name: 'market with a price', intents: [market('SELL', '0.1', { price: d('20000') })], expected: ['invalid: a MARKET order takes no price (got 20000)'] },
  {
    name: 'a futures market open (the notes: its volume is a value, not contracts)',
    intents: [market('BUY', '5', { market: 'futures', symbol: 'E-BTC-USDT', open: 'OPEN' }), market('SELL', '5', { market: 'futures', symbol: 'E-BTC-USDT' })],
    expected: Array(2).fill(
      'invalid: a futures MARKET order that opens a position is sized by value on this venue, not in contracts, and sluice does not send one: open with a LIMIT order at a marketable price (timeInForce IOC takes what it can at once); MARKET is for open: CLOSE',
    ),
  },
  { name: 'unknown symbol', intents: [place('0.1', '20000', { symbol: 'DOGEUSDT' })], expected: ['invalid: unknown symbol DOGEUSDT on spot (not in the market snapshot)'] },
  { name: 'symbol known on another market only', intents: [place('0.1', '20000', { market: 'futures' })], expected: ['invalid: unknown symbol BTCUSDT on futures (not in the market snapshot)'] },
]);

table('precision', [
  { name: 'a volume at the quantity precision passes', intents: [place('0.00123', '20000.5')], expected: [ACCEPTED] },
  { name: 'trailing zeros are not decimals the venue refuses', intents: [place('0.0012300000', '20000.50')], expected: [ACCEPTED] },
  {
    name: 'a volume with more decimals than the instrument allows (the issue\'s BUY LIMIT 0.0012345678)',
    intents: [place('0.0012345678', '20000')],
    expected: ['precision: volume 0.0012345678 has 10 decimals; BTCUSDT allows 5: round it to 5 decimals, e.g. 0.00123 (dec.truncate(x, 5))'],
  },
  { name: 'a price with more decimals than the instrument allows', intents: [sell('0.1', '20000.125')], expected: ['precision: price 20000.125 has 3 decimals; BTCUSDT allows 2: round it to 2 decimals, e.g. 20000.12 (dec.truncate(x, 2))'] },
  {
    name: "a spot market buy's volume is quote, at the price's precision",
    intents: [market('BUY', '100.123'), market('BUY', '100.12')],
    expected: ["precision: a market buy's volume is USDT to spend: 100.123 has 3 decimals; BTCUSDT allows 2: round it to 2 decimals, e.g. 100.12 (dec.truncate(x, 2))", ACCEPTED],
  },
  {
    name: 'futures volumes are whole contracts',
    intents: [place('1.5', '20000', { market: 'futures', symbol: 'E-BTC-USDT' }), place('2', '20000', { market: 'futures', symbol: 'E-BTC-USDT' })],
    expected: ['precision: volume 1.5 is not a whole number: futures volumes are contracts of E-BTC-USDT; round it to a whole number, e.g. 1 (dec.truncate(x, 0))', ACCEPTED],
  },
  { name: 'a malformed intent is invalid before it is imprecise', intents: [place('0.0012345678', undefined)], expected: ['invalid: a LIMIT order needs a price'] },
]);

table('kill_switch', [
  { name: 'halted rejects a place', limits: { killSwitch: { mode: 'halted' } }, intents: [place('0.1', '20000')], expected: ['kill_switch: trading is halted; no new orders until the kill switch is released'] },
  { name: 'halted still lets cancels through', limits: { killSwitch: { mode: 'halted' } }, intents: [cancel('slt-1')], expected: [ACCEPTED] },
  {
    name: 'reduce-only rejects a buy that grows a long',
    limits: { killSwitch: { mode: 'reduce_only' } },
    snap: snapshot({ positions: { 'spot:BTCUSDT': '0.5' } }),
    intents: [place('0.1', '20000')],
    expected: ['kill_switch: reduce-only: BUY 0.1 BTCUSDT with open buys 0 would take the position 0.5 to 0.6; only orders that shrink it are allowed'],
  },
  { name: 'reduce-only accepts a sell that shrinks a long', limits: { killSwitch: { mode: 'reduce_only' } }, snap: snapshot({ positions: { 'spot:BTCUSDT': '0.5' } }), intents: [sell('0.3', '20000')], expected: [ACCEPTED] },
  {
    name: 'reduce-only counts open sells: together they would flip the long',
    limits: { killSwitch: { mode: 'reduce_only' } },
    snap: snapshot({ positions: { 'spot:BTCUSDT': '0.5' }, openOrders: [resting('SELL', '0.3')] }),
    intents: [sell('0.3', '20000')],
    expected: ['kill_switch: reduce-only: SELL 0.3 BTCUSDT with open sells 0.3 would take the position 0.5 to -0.1; only orders that shrink it are allowed'],
  },
  {
    name: 'reduce-only counts earlier sells of the same call',
    limits: { killSwitch: { mode: 'reduce_only' } },
    snap: snapshot({ positions: { 'spot:BTCUSDT': '0.5' } }),
    intents: [sell('0.3', '20000'), sell('0.3', '20001')],
    expected: [ACCEPTED, 'kill_switch: reduce-only: SELL 0.3 BTCUSDT with open sells 0.3 would take the position 0.5 to -0.1; only orders that shrink it are allowed'],
  },
  { name: 'reduce-only: flat, nothing to reduce', limits: { killSwitch: { mode: 'reduce_only' } }, intents: [sell('0.1', '20000')], expected: ['kill_switch: reduce-only: SELL 0.1 BTCUSDT with open sells 0 would take the position 0 to -0.1; only orders that shrink it are allowed'] },
  { name: 'reduce-only: a buy closing a short exactly', limits: { killSwitch: { mode: 'reduce_only' } }, snap: snapshot({ positions: { 'spot:BTCUSDT': '-0.5' } }), intents: [place('0.5', '20000')], expected: [ACCEPTED] },
  {
    // A hedged contract (the notes' positionModel 2): a long of 10 and a short of 4, which the book nets to +6.
    name: 'reduce-only: futures CLOSE orders pass whatever the netted position says, OPEN orders do not',
    limits: { killSwitch: { mode: 'reduce_only' } },
    snap: snapshot({ positions: { 'futures:E-BTC-USDT': '6' } }),
    intents: [
      place('4', '20000', { market: 'futures', symbol: 'E-BTC-USDT', open: 'CLOSE' }),
      place('10', '20000', { market: 'futures', symbol: 'E-BTC-USDT', side: 'SELL', open: 'CLOSE' }),
      place('1', '20000', { market: 'futures', symbol: 'E-BTC-USDT', side: 'SELL', open: 'OPEN' }),
    ],
    expected: [ACCEPTED, ACCEPTED, 'kill_switch: reduce-only: a futures order must close a position (open: CLOSE); SELL 1 E-BTC-USDT would open one'],
  },
  {
    name: 'reduce-only sizes a spot market buy at the last price',
    limits: { killSwitch: { mode: 'reduce_only' } },
    snap: snapshot({ positions: { 'spot:BTCUSDT': '-0.1' } }),
    intents: [market('BUY', '4000')],
    expected: ['kill_switch: reduce-only: BUY 0.2 BTCUSDT with open buys 0 would take the position -0.1 to 0.1; only orders that shrink it are allowed'],
  },
]);

const fp = fingerprint(place('0.1', '20000'));
table('duplicate', [
  { name: 'the same place twice in one call', intents: [place('0.1', '20000'), place('0.1', '20000')], expected: [ACCEPTED, 'duplicate: t had the same BUY LIMIT 0.1 BTCUSDT at 20000 accepted 0 ms ago, within the 1000 ms window'] },
  { name: 'accepted by an earlier call inside the window', state: { ...emptyRiskState(), recent: { [fp]: 0 } }, now: 999, intents: [place('0.1', '20000')], expected: ['duplicate: t had the same BUY LIMIT 0.1 BTCUSDT at 20000 accepted 999 ms ago, within the 1000 ms window'] },
  { name: 'the window has passed', state: { ...emptyRiskState(), recent: { [fp]: 0 } }, now: 1000, intents: [place('0.1', '20000')], expected: [ACCEPTED] },
  { name: 'same order by another strategy', intents: [place('0.1', '20000'), place('0.1', '20000', { strategyId: 'u' })], expected: [ACCEPTED, ACCEPTED] },
  { name: 'same decimal written differently is the same order', intents: [place('0.1', '20000'), place('0.10', '20000.0')], expected: [ACCEPTED, 'duplicate: t had the same BUY LIMIT 0.10 BTCUSDT at 20000.0 accepted 0 ms ago, within the 1000 ms window'] },
  { name: 'a window of 0 turns suppression off', limits: { duplicateWindowMs: 0 }, intents: [place('0.1', '20000'), place('0.1', '20000')], expected: [ACCEPTED, ACCEPTED] },
  { name: 'a rejected intent does not count as seen', snap: snapshot({ balances: { USDT: '1000' } }), intents: [place('0.1', '20000'), place('0.01', '20000'), place('0.1', '20000')], expected: ['balance: BUY 0.1 BTCUSDT needs 2004 USDT (with the 0.2% fee allowance), 1000 USDT free', ACCEPTED, 'balance: BUY 0.1 BTCUSDT needs 2004 USDT (with the 0.2% fee allowance), 799.6 USDT free after 200.4 held for earlier intents in this call'] },
  { name: 'a second cancel of one order in one call', intents: [cancel('slt-x'), cancel('slt-x')], expected: [ACCEPTED, 'duplicate: cancel of slt-x already requested in this call'] },
]);

table('order_rate', [
  { name: 'at the cap from earlier calls', state: { ...emptyRiskState(), placedAt: [0, 100, 200, 300] }, now: 500, intents: [place('0.01', '20000')], expected: ['order_rate: 4 orders accepted in the last second, at the 4 per second cap'] },
  { name: 'the oldest has left the 1 s window', state: { ...emptyRiskState(), placedAt: [0, 100, 200, 300] }, now: 1000, intents: [place('0.01', '20000')], expected: [ACCEPTED] },
  {
    name: 'within one call',
    limits: { maxOpenOrders: 100 },
    intents: ['20001', '20002', '20003', '20004', '20005'].map((p) => place('0.01', p)),
    expected: [ACCEPTED, ACCEPTED, ACCEPTED, ACCEPTED, 'order_rate: 4 orders accepted in the last second, at the 4 per second cap'],
  },
  { name: 'cancels do not count', state: { ...emptyRiskState(), placedAt: [0, 1, 2, 3] }, intents: [cancel('slt-a')], expected: [ACCEPTED] },
]);

const threeOpen = [resting('SELL', '0.01', { symbol: 'ETHBTC' }), resting('SELL', '0.01', { symbol: 'ETHBTC' }), resting('BUY', '0.01')];
table('max_open_orders', [
  { name: 'the strategy is at its limit', snap: snapshot({ openOrders: threeOpen }), intents: [place('0.01', '20000')], expected: ['max_open_orders: t has 3 open orders, at the 3 limit'] },
  { name: 'another strategy is not', snap: snapshot({ openOrders: threeOpen }), intents: [place('0.01', '20000', { strategyId: 'u' })], expected: [ACCEPTED] },
  { name: 'places accepted in the same call count', snap: snapshot({ openOrders: threeOpen.slice(0, 2) }), intents: [place('0.01', '20000'), place('0.01', '20001')], expected: [ACCEPTED, 'max_open_orders: t has 3 open orders, at the 3 limit'] },
  { name: "an order whose cancel the venue's book shows done holds no place", snap: snapshot({ openOrders: [...threeOpen.slice(0, 2), resting('BUY', '0.01', { offBook: true })] }), intents: [place('0.01', '20000'), place('0.01', '20001')], expected: [ACCEPTED, 'max_open_orders: t has 3 open orders, at the 3 limit'] },
]);

table('price_band', [
  { name: 'no last price yet', snap: snapshot({ lastPrices: {} }), intents: [place('0.1', '20000')], expected: ['price_band: no last price for BTCUSDT yet'] },
  { name: 'no last price: a market order cannot be sized', snap: snapshot({ lastPrices: {} }), intents: [market('SELL', '0.1')], expected: ['price_band: no last price for BTCUSDT yet'] },
  { name: 'a last price of 0 is no price', snap: snapshot({ lastPrices: { 'spot:BTCUSDT': '0' } }), intents: [place('0.1', '20000')], expected: ['price_band: no last price for BTCUSDT yet'] },
  { name: '10% above', intents: [place('0.1', '22000')], expected: ['price_band: price 22000 is 10% from the last price 20000, beyond 5%'] },
  { name: 'below, with the percent rounded for the reason', intents: [place('0.1', '18666.6')], expected: ['price_band: price 18666.6 is 6.67% from the last price 20000, beyond 5%'] },
  { name: 'exactly at the band edge', intents: [place('0.1', '21000'), sell('0.1', '19000')], expected: [ACCEPTED, ACCEPTED] },
  { name: 'a cent past the edge', intents: [place('0.1', '21000.01'), sell('0.1', '18999.99')], expected: ['price_band: price 21000.01 is 5% from the last price 20000, beyond 5%', 'price_band: price 18999.99 is 5% from the last price 20000, beyond 5%'] },
  { name: 'market orders have no band', intents: [market('SELL', '0.1')], expected: [ACCEPTED] },
]);

table('minimum', [
  {
    name: 'below each of the instrument\'s minimums (the notes: -1136 at the venue)',
    snap: snapshot({ instruments: { 'spot:BTCUSDT': { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 5, limitVolumeMin: d('0.001'), limitPriceMin: d('10'), marketBuyMin: d('5'), marketSellMin: d('0.0005') } } }),
    intents: [place('0.0005', '20000'), place('0.001', '5'), market('BUY', '4.99'), market('SELL', '0.0004'), place('0.001', '20000', { side: 'SELL' }), market('BUY', '5'), market('SELL', '0.0005')],
    expected: [
      "minimum: volume 0.0005 is below BTCUSDT's minimum 0.001 (limitVolumeMin); raise it to at least 0.001",
      "minimum: price 5 is below BTCUSDT's minimum 10 (limitPriceMin); raise it to at least 10",
      "minimum: a market buy's USDT to spend 4.99 is below BTCUSDT's minimum 5 (marketBuyMin); raise it to at least 5",
      "minimum: volume 0.0004 is below BTCUSDT's minimum 0.0005 (marketSellMin); raise it to at least 0.0005",
      ACCEPTED,
      ACCEPTED,
      ACCEPTED,
    ],
  },
  {
    name: 'futures: minOrderVolume, in contracts',
    snap: snapshot({ instruments: { 'futures:E-BTC-USDT': { symbol: 'E-BTC-USDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 1, quantityPrecision: 0, limitVolumeMin: d('10'), limitPriceMin: d('0'), multiplier: d('0.001') } } }),
    intents: [place('9', '20000', { market: 'futures', symbol: 'E-BTC-USDT' }), place('10', '20000', { market: 'futures', symbol: 'E-BTC-USDT' })],
    expected: ["minimum: volume 9 is below E-BTC-USDT's minimum 10 (minOrderVolume, in contracts); raise it to at least 10", ACCEPTED],
  },
  { name: 'a listing without minimums (the older subset) checks none', snap: snapshot({ instruments: { 'spot:BTCUSDT': { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', pricePrecision: 2, quantityPrecision: 8 } } }), intents: [place('0.00000001', '20000')], expected: [ACCEPTED] },
]);

table('max_notional_per_order', [
  { name: 'limit above (the example from the spec)', snap: snapshot({ lastPrices: { 'spot:BTCUSDT': '40000' } }), intents: [place('0.5', '40000')], expected: ['max_notional_per_order: 0.5 BTCUSDT at 40000 is 20000 USDT, above the 10000 limit'] },
  { name: 'limit exactly at the limit', intents: [place('0.5', '20000')], expected: [ACCEPTED] },
  { name: 'market sell at the last price', intents: [market('SELL', '0.6')], expected: ['max_notional_per_order: 0.6 BTCUSDT at the last price 20000 is 12000 USDT, above the 10000 limit'] },
  { name: 'spot market buy: the volume is the quote amount', intents: [market('BUY', '12000')], expected: ['max_notional_per_order: market buy of BTCUSDT for 12000 USDT is above the 10000 limit'] },
  { name: 'spot market buy within the limit', intents: [market('BUY', '10000')], expected: [ACCEPTED] },
  { name: 'futures market close is contracts, each of the multiplier', intents: [market('BUY', '600', { market: 'futures', symbol: 'E-BTC-USDT', open: 'CLOSE' })], expected: ['max_notional_per_order: 600 E-BTC-USDT at the last price 20000 is 12000 USDT, above the 10000 limit'] },
]);

const minuteAgo = (value: string, at = 10_000, asset = 'USDT'): RiskState => ({ ...emptyRiskState(), notional: [{ at, asset, value: d(value) }], notionalTotal: { [asset]: d(value) } });
table('max_notional_per_minute', [
  { name: 'an earlier call used most of it', state: minuteAgo('20000'), now: 60_000, intents: [place('0.3', '20000')], expected: ['max_notional_per_minute: 20000 USDT accepted in the last 60 s + 6000 would be 26000, above the 25000 limit'] },
  { name: 'it has left the window 60 s later', state: minuteAgo('20000'), now: 70_000, intents: [place('0.3', '20000')], expected: [ACCEPTED] },
  { name: 'up to exactly the limit', state: minuteAgo('19000'), now: 60_000, intents: [place('0.3', '20000')], expected: [ACCEPTED] },
  {
    name: 'within one call, across strategies',
    intents: [place('0.5', '20000'), place('0.5', '19999', { strategyId: 'u' }), place('0.26', '20000', { strategyId: 'v' })],
    expected: [ACCEPTED, ACCEPTED, 'max_notional_per_minute: 19999.5 USDT accepted in the last 60 s + 5200 would be 25199.5, above the 25000 limit'],
  },
  { name: 'each quote asset has its own sum', state: minuteAgo('25000'), now: 1, intents: [place('1', '0.05', { symbol: 'ETHBTC' })], expected: [ACCEPTED] },
]);

table('max_position', [
  { name: 'a buy beyond the long cap', snap: snapshot({ positions: { 'spot:BTCUSDT': '0.8' } }), intents: [place('0.3', '20000')], expected: ['max_position: position 0.8 + open buys 0 + this 0.3 = 1.1 BTCUSDT, above the 1 limit'] },
  {
    name: "a market buy's quantity (its quote amount over the last price) shown to the quantity's precision",
    snap: snapshot({ positions: { 'spot:BTCUSDT': '0.8' }, lastPrices: { 'spot:BTCUSDT': '30000' } }),
    intents: [market('BUY', '7000')],
    expected: ['max_position: position 0.8 + open buys 0 + this 0.23333 = 1.03333 BTCUSDT, above the 1 limit'],
  },
  { name: 'open buys count', snap: snapshot({ positions: { 'spot:BTCUSDT': '0.4' }, openOrders: [resting('BUY', '0.5')] }), intents: [place('0.2', '20000')], expected: ['max_position: position 0.4 + open buys 0.5 + this 0.2 = 1.1 BTCUSDT, above the 1 limit'] },
  { name: "an order off the venue's book still counts: its last fills may show", snap: snapshot({ positions: { 'spot:BTCUSDT': '0.4' }, openOrders: [resting('BUY', '0.5', { offBook: true })] }), intents: [place('0.2', '20000')], expected: ['max_position: position 0.4 + open buys 0.5 + this 0.2 = 1.1 BTCUSDT, above the 1 limit'] },
  { name: 'open sells do not offset a buy', snap: snapshot({ positions: { 'spot:BTCUSDT': '0.8' }, openOrders: [resting('SELL', '0.5')] }), intents: [place('0.3', '20000')], expected: ['max_position: position 0.8 + open buys 0 + this 0.3 = 1.1 BTCUSDT, above the 1 limit'] },
  { name: 'up to the cap exactly', snap: snapshot({ positions: { 'spot:BTCUSDT': '0.7' } }), intents: [place('0.3', '20000')], expected: [ACCEPTED] },
  { name: 'a sell beyond the short cap', snap: snapshot({ positions: { 'spot:BTCUSDT': '-0.8' } }), intents: [sell('0.3', '20000')], expected: ['max_position: position -0.8 - open sells 0 - this 0.3 = -1.1 BTCUSDT, below the -1 limit'] },
  { name: 'a buy that shrinks an oversized short passes', snap: snapshot({ positions: { 'spot:BTCUSDT': '-3' } }), intents: [place('0.5', '20000')], expected: [ACCEPTED] },
  { name: 'a spot market buy, sized at the last price', snap: snapshot({ positions: { 'spot:BTCUSDT': '0.9' } }), intents: [market('BUY', '4000')], expected: ['max_position: position 0.9 + open buys 0 + this 0.2 = 1.1 BTCUSDT, above the 1 limit'] },
  { name: 'earlier buys in the same call count', intents: [place('0.5', '20000'), place('0.5', '19999'), place('0.01', '20002')], expected: [ACCEPTED, ACCEPTED, 'max_position: position 0 + open buys 1 + this 0.01 = 1.01 BTCUSDT, above the 1 limit'] },
  { name: 'a symbol without a cap', intents: [place('5', '0.05', { symbol: 'ETHBTC' })], expected: [ACCEPTED] },
]);

table('balance', [
  { name: 'a buy needs its quote plus the fee allowance', snap: snapshot({ balances: { USDT: '1000' } }), intents: [place('0.1', '20000')], expected: ['balance: BUY 0.1 BTCUSDT needs 2004 USDT (with the 0.2% fee allowance), 1000 USDT free'] },
  { name: 'exactly enough', snap: snapshot({ balances: { USDT: '2004' } }), intents: [place('0.1', '20000')], expected: [ACCEPTED] },
  { name: 'a custom fee allowance', limits: { feeAllowance: d('0') }, snap: snapshot({ balances: { USDT: '2000' } }), intents: [place('0.1', '20000')], expected: [ACCEPTED] },
  {
    name: 'earlier buys in the same call hold their share',
    snap: snapshot({ balances: { USDT: '3000' } }),
    intents: [place('0.1', '20000'), place('0.1', '20001')],
    expected: [ACCEPTED, 'balance: BUY 0.1 BTCUSDT needs 2004.1002 USDT (with the 0.2% fee allowance), 996 USDT free after 2004 held for earlier intents in this call'],
  },
  { name: 'a sell needs its base', snap: snapshot({ balances: { BTC: '0.05' } }), intents: [sell('0.1', '20000')], expected: ['balance: SELL 0.1 BTCUSDT needs 0.1 BTC, 0.05 BTC free'] },
  { name: 'an asset never seen has nothing free', snap: snapshot({ balances: {} }), intents: [sell('0.1', '20000')], expected: ['balance: SELL 0.1 BTCUSDT needs 0.1 BTC, 0 BTC free'] },
  { name: 'a spot market buy needs its quote amount plus the allowance', snap: snapshot({ balances: { USDT: '1000' } }), intents: [market('BUY', '1000')], expected: ['balance: BUY 1000 BTCUSDT needs 1002 USDT (with the 0.2% fee allowance), 1000 USDT free'] },
  { name: 'futures is not checked here (margin is the venue’s)', snap: snapshot({ balances: {} }), intents: [place('100', '20000', { market: 'futures', symbol: 'E-BTC-USDT' })], expected: [ACCEPTED] },
]);

describe('rule order', () => {
  it('the first failing rule names the rejection', () => {
    // Halted and malformed: malformed wins; halted and over every limit: the kill switch wins.
    const row = (intents: OrderIntent[], limits: Partial<RiskLimits>) => verdicts({ name: '', intents, limits, snap: snapshot({ balances: {} }), expected: [] });
    expect(row([place('0', '20000')], { killSwitch: { mode: 'halted' } })).toEqual(['invalid: volume must be a decimal above 0 (got 0)']);
    expect(row([place('100', '99999')], { killSwitch: { mode: 'halted' } })).toEqual(['kill_switch: trading is halted; no new orders until the kill switch is released']);
    expect(row([place('100', '99999')], {})).toEqual(['price_band: price 99999 is 400% from the last price 20000, beyond 5%']);
  });
});
