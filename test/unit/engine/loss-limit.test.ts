// The daily loss limit's measure and day logic (engine/loss-limit.ts) on a manual clock, with the
// journal's key/value store as a Map: the day's reference at its first measurement, a breach at
// -daily blocks (open orders cancelled, adding orders refused with the limit and when it lifts,
// reducing ones go), a restart the same day keeps the block, the next UTC day lifts it.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, type Decimal } from '../../../src/core/decimal.js';
import type { AlertKind, Order, OrderIntent, PlaceIntent, StrategyPosition } from '../../../src/core/types.js';
import type { Journal } from '../../../src/core/ports.js';
import { increases, LossLimits, lossLimits, strategyPnl, type LossLimitDeps } from '../../../src/engine/loss-limit.js';
import type { LoadedStrategy } from '../../../src/strategy/index.js';

const pos = (symbol: string, quantity: string, avg: string, realized: string, fees: string, unbooked = '0'): StrategyPosition => ({
  market: 'spot',
  symbol,
  quantity: d(quantity),
  avgEntryPrice: d(avg),
  realizedPnl: d(realized),
  fees: d(fees),
  otherFees: {},
  netQuantity: d(quantity),
  unbookedQuantity: d(unbooked),
});

describe('strategyPnl', () => {
  it('sums realised less fees plus the open quantity at the last price, futures times the contract size; undefined while unbooked or unpriced', () => {
    const prices: Record<string, Decimal> = { BTCUSDT: d('110'), ETHUSDT: d('9') };
    const p = [pos('BTCUSDT', '2', '100', '5', '0.5'), pos('ETHUSDT', '-3', '10', '-1', '0.25')];
    // BTC: 5 - 0.5 + (110-100)*2 = 24.5; ETH: -1 - 0.25 + (9-10)*-3 = 1.75; BTC with a contract of 0.001: 4.5 + 0.02
    expect(strategyPnl(p, (s) => prices[s], () => undefined)).toBe('26.25');
    expect(strategyPnl(p, (s) => prices[s], (s) => (s === 'BTCUSDT' ? d('0.001') : undefined))).toBe('6.27');
    expect(strategyPnl([pos('BTCUSDT', '2', '100', '5', '0.5', '1')], (s) => prices[s], () => undefined)).toBeUndefined();
    expect(strategyPnl([pos('BTCUSDT', '2', '100', '5', '0.5')], () => undefined, () => undefined)).toBeUndefined();
    // Flat: no price needed.
    expect(strategyPnl([pos('BTCUSDT', '0', '0', '-7', '1')], () => undefined, () => undefined)).toBe('-8');
    // A fee paid in the base coin costs its amount at the last price (24.5 - 0.01 * 110); flat with such a fee, a price is needed.
    const baseFee = { ...pos('BTCUSDT', '2', '100', '5', '0.5'), otherFees: { BTC: d('0.01'), BNB: d('3') } };
    const baseOf = (s: string) => s.replace('USDT', '');
    expect(strategyPnl([baseFee], (s) => prices[s], () => undefined, baseOf)).toBe('23.4');
    expect(strategyPnl([{ ...baseFee, quantity: d('0') }], () => undefined, () => undefined, baseOf)).toBeUndefined();
    expect(strategyPnl([{ ...baseFee, quantity: d('0') }], (s) => prices[s], () => undefined, baseOf)).toBe('3.4');
  });
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);

function rig(store: Map<string, string>, clock: ManualClock) {
  const state = { position: pos('BTCUSDT', '1', '100', '0', '0'), price: d('100') as Decimal | undefined };
  const open: Order[] = [{ clientOrderId: 'trend-7', strategyId: 'trend', market: 'spot', symbol: 'BTCUSDT', status: 'new' } as unknown as Order];
  const submitted: OrderIntent[] = [];
  const alerts: { kind: AlertKind; message: string }[] = [];
  const logs: string[] = [];
  const log = { debug() {}, info: (_f: object, m: string) => logs.push(m), warn: (_f: object, m: string) => logs.push(m), error() {} };
  const deps: LossLimitDeps = {
    clock,
    log,
    journal: { cursor: (k: string) => store.get(k), setCursor: (k: string, v: string) => void store.set(k, v), orders: () => open } as unknown as LossLimitDeps['journal'],
    strategies: [{ id: 'trend', market: 'spot', symbols: ['BTCUSDT'], lossLimit: { daily: d('50') } }, { id: 'other', market: 'spot', symbols: ['BTCUSDT'] }],
    position: () => state.position,
    lastPrice: () => state.price,
    instrument: () => undefined,
    submit: async (_id, intents) => void submitted.push(...intents),
    alert: (kind, message) => void alerts.push({ kind, message }),
  };
  return { limits: new LossLimits(deps), state, submitted, alerts, logs };
}

const buy = (volume: string): OrderIntent => ({ kind: 'place', intentId: 'x', clientOrderId: 'trend-9', strategyId: 'trend', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d(volume), price: d('90') }) as OrderIntent;
const sell = (volume: string): OrderIntent => ({ kind: 'place', intentId: 'y', clientOrderId: 'trend-10', strategyId: 'trend', market: 'spot', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', volume: d(volume), price: d('90') }) as OrderIntent;

describe('LossLimits', () => {
  it('takes the reference at the first measurement of the UTC day, blocks at -daily, keeps it over a restart, lifts at the next UTC day', async () => {
    const store = new Map<string, string>();
    const clock = new ManualClock(T0);
    const r = rig(store, clock);
    // Already 30 down before the day's first measurement: not counted (the reference is -30).
    r.state.price = d('70');
    await r.limits.check();
    expect(JSON.parse(store.get('losslimit:trend')!)).toEqual({ day: '2026-11-28', reference: '-30' });
    // Unbooked: not judged even though the price fell far.
    r.state.position = pos('BTCUSDT', '1', '100', '0', '0', '0.5');
    r.state.price = d('10');
    await r.limits.check();
    expect(r.limits.blockedUntil('trend')).toBeUndefined();
    // A further 49.9 down: day PnL -49.9, not past -50.
    r.state.position = pos('BTCUSDT', '1', '100', '0', '0.1');
    r.state.price = d('20.2');
    await r.limits.check();
    expect(r.limits.blockedUntil('trend')).toBeUndefined();
    expect(r.limits.refusal(buy('1'))).toBeUndefined();
    // Exactly -50: breach.
    r.state.price = d('20.1');
    await r.limits.check();
    const midnight = Date.UTC(2026, 10, 29);
    expect(r.limits.blockedUntil('trend')).toBe(midnight);
    expect(r.alerts).toEqual([{ kind: 'loss_limit', message: 'trend: lost -50 today (UTC 2026-11-28), past its daily loss limit of 50: its open orders are cancelled and orders that add to its position are refused until 2026-11-29T00:00:00.000Z' }]);
    expect(r.submitted).toEqual([{ kind: 'cancel', intentId: 'trend-7:losslimit', strategyId: 'trend', market: 'spot', symbol: 'BTCUSDT', clientOrderId: 'trend-7' }]);
    expect(r.limits.hits).toEqual([{ strategy: 'trend', day: '2026-11-28', pnl: '-50' }]);
    expect(r.limits.refusal(buy('0.1'))).toBe(
      'lossLimit: trend lost -50 today, past its daily loss limit of 50; orders that add to its position are refused until 2026-11-29T00:00:00.000Z (only reducing ones go)',
    );
    expect(r.limits.refusal(sell('1'))).toBeUndefined();
    expect(r.limits.refusal(sell('1.5'))).toMatch(/^lossLimit: /);
    // Places let through before it in the same handler call count as working: 0.6 then 0.6 pass the 1 held.
    const sell6 = sell('0.6') as PlaceIntent;
    expect(r.limits.refusal(sell('0.4'), [sell6])).toBeUndefined();
    expect(r.limits.refusal(sell('0.6'), [sell6])).toMatch(/^lossLimit: /);
    expect(r.limits.refusal(sell('0.6'), [{ ...sell6, side: 'BUY' }, { ...sell6, strategyId: 'other' }, { ...sell6, symbol: 'ETHUSDT' }])).toBeUndefined();
    expect(r.limits.refusal({ ...(buy('1') as object), strategyId: 'other' } as OrderIntent)).toBeUndefined();
    expect(r.limits.refusal({ kind: 'cancel', intentId: 'c', strategyId: 'trend', market: 'spot', symbol: 'BTCUSDT', clientOrderId: 'trend-7' } as OrderIntent)).toBeUndefined();
    // Once per breach: another check neither alerts nor cancels again.
    await r.limits.check();
    expect(r.alerts).toHaveLength(1);
    expect(r.submitted).toHaveLength(1);

    // Restart the same day: a new LossLimits on the same journal is still blocked.
    await clock.advance(3_600_000);
    const again = rig(store, clock);
    again.state.position = r.state.position;
    again.state.price = d('20.1');
    expect(again.limits.refusal(buy('0.1'))).toMatch(/until 2026-11-29T00:00:00.000Z/);
    await again.limits.check();
    expect(again.alerts).toEqual([]);

    // The next UTC day: lifted (a log line), a new reference, buys go.
    await clock.advanceTo(midnight);
    await again.limits.check();
    expect(again.logs).toContain('loss limit lifted: a new UTC day; the strategy may open positions again');
    expect(again.limits.blockedUntil('trend')).toBeUndefined();
    expect(again.limits.refusal(buy('1'))).toBeUndefined();
    expect(JSON.parse(store.get('losslimit:trend')!)).toEqual({ day: '2026-11-29', reference: '-80' });
    expect(clock.now() - T0).toBe(DAY - 9 * 3_600_000);
  });
});

describe('lossLimits, as the engine builds it', () => {
  it('judges on a fresh price only: a price the venue stopped giving (older than 3 polls) neither sets the reference nor breaches', async () => {
    const store = new Map<string, string>();
    const clock = new ManualClock(T0);
    const price = { value: d('100'), at: T0 };
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const journal = { cursor: (k: string) => store.get(k), setCursor: (k: string, v: string) => void store.set(k, v), orders: () => [] } as unknown as Journal;
    const limits = lossLimits(
      { clock, log, journal, strategies: [{ entry: { id: 'trend', market: 'spot', symbols: ['BTCUSDT'], lossLimit: { daily: d('50') } } } as unknown as LoadedStrategy], marketData: { lastPriceAt: () => price.at }, settings: { marketDataEveryMs: 1000 } },
      { ownPosition: () => pos('BTCUSDT', '1', '100', '0', '0'), lastPrice: () => price.value, instrument: () => undefined },
      { hosts: [], handle: async () => undefined },
    )!;
    await clock.advance(3001);
    await limits.check();
    expect(store.get('losslimit:trend')).toBeUndefined();
    price.at = clock.now();
    await limits.check();
    expect(JSON.parse(store.get('losslimit:trend')!)).toEqual({ day: '2026-11-28', reference: '0' });
    // The last read price falls far, but it is 4 s old: not judged.
    price.value = d('10');
    await clock.advance(3001);
    await limits.check();
    expect(limits.blockedUntil('trend')).toBeUndefined();
    // Read again: the breach stands.
    price.at = clock.now();
    await limits.check();
    expect(limits.blockedUntil('trend')).toBe(Date.UTC(2026, 10, 29));
  });
});

describe('increases: what a blocked strategy may still place', () => {
  const place = (over: object): Extract<OrderIntent, { kind: 'place' }> => Object.assign({ kind: 'place', intentId: 'i', clientOrderId: 'c', strategyId: 's', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('1') }, over) as never;
  it('spot: a SELL of at most what it holds, a LIMIT BUY of at most its short reduce; a MARKET BUY (a quote amount) and anything past the position add', () => {
    expect(increases(place({ side: 'SELL', volume: d('1') }), d('1'))).toBe(false);
    expect(increases(place({ side: 'SELL', volume: d('1.1') }), d('1'))).toBe(true);
    expect(increases(place({ side: 'SELL', volume: d('1') }), d('0'))).toBe(true);
    expect(increases(place({ side: 'BUY', volume: d('0.5') }), d('1'))).toBe(true);
    expect(increases(place({ side: 'BUY', volume: d('0.5') }), d('-0.5'))).toBe(false);
    expect(increases(place({ side: 'BUY', volume: d('0.6') }), d('-0.5'))).toBe(true);
    expect(increases(place({ side: 'BUY', type: 'MARKET', volume: d('0.1') }), d('-0.5'))).toBe(true);
    // With orders of the same side still working: together they may not pass the position.
    expect(increases(place({ side: 'SELL', volume: d('0.5') }), d('1'), d('0.5'))).toBe(false);
    expect(increases(place({ side: 'SELL', volume: d('0.5') }), d('1'), d('0.6'))).toBe(true);
    expect(increases(place({ side: 'BUY', volume: d('0.2') }), d('-0.5'), d('0.4'))).toBe(true);
  });
  it('futures: a CLOSE reduces, an OPEN (or none said) adds, whatever the side', () => {
    expect(increases(place({ market: 'futures', side: 'SELL', open: 'CLOSE' }), d('3'))).toBe(false);
    expect(increases(place({ market: 'futures', side: 'BUY', open: 'CLOSE' }), d('-3'))).toBe(false);
    expect(increases(place({ market: 'futures', side: 'SELL', open: 'OPEN' }), d('3'))).toBe(true);
    expect(increases(place({ market: 'futures', side: 'BUY' }), d('0'))).toBe(true);
  });
});
