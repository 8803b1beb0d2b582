// ctx.isFlat(symbol): the strategy's own position is below what one order can close, by the rule
// protective exits use (core/closing.ts).
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { StrategyPosition } from '../../../src/core/types.js';
import { defineStrategy, z, type StrategyContext } from '../../../src/strategy/api.js';
import { harness } from '../../../src/strategy/testing.js';
import { EBTC } from '../../fixtures/engine-parts.js';

function probe() {
  const held: { ctx?: StrategyContext<Record<string, never>> } = {};
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'probe',
    params: z.object({}),
    create(ctx) {
      held.ctx = ctx;
      return {};
    },
  });
  return { definition, held };
}

const own = (symbol: string, market: 'spot' | 'futures', quantity: string, netQuantity = quantity): StrategyPosition => ({ market, symbol, quantity: d(quantity), netQuantity: d(netQuantity), avgEntryPrice: d('100'), realizedPnl: d('0'), fees: d('0'), otherFees: {}, unbookedQuantity: d('0') });

describe('ctx.isFlat', () => {
  it('spot: flat with nothing held and with dust below the lot (a buy fee taken in the base coin); not with one lot', () => {
    const p = probe();
    const { view } = harness(p.definition);
    const ctx = p.held.ctx!;
    expect(ctx.isFlat('BTCUSDT')).toBe(true);
    // Bought one lot (0.00001), paid 0.0000002 BTC of fee: 0.0000098 left, below one step.
    view.ownPositions.set('BTCUSDT', own('BTCUSDT', 'spot', '0.00001', '0.0000098'));
    expect(ctx.isFlat('BTCUSDT')).toBe(true);
    expect(ctx.isFlat('btcusdt')).toBe(true);
    view.ownPositions.set('BTCUSDT', own('BTCUSDT', 'spot', '0.00001'));
    expect(ctx.isFlat('BTCUSDT')).toBe(false);
    // The minimum, not just the step: marketSellMin above what is held.
    view.instruments.set('BTCUSDT', { ...view.instruments.get('BTCUSDT')!, marketSellMin: d('0.001') });
    view.ownPositions.set('BTCUSDT', own('BTCUSDT', 'spot', '0.0009'));
    expect(ctx.isFlat('BTCUSDT')).toBe(true);
    view.ownPositions.set('BTCUSDT', own('BTCUSDT', 'spot', '0.001'));
    expect(ctx.isFlat('BTCUSDT')).toBe(false);
  });

  it("judges the strategy's own position, not the account's", () => {
    const p = probe();
    const { view } = harness(p.definition);
    view.positions.set('BTCUSDT', d('0.5'));
    expect(p.held.ctx!.isFlat('BTCUSDT')).toBe(true);
  });

  it('futures: whole contracts, long or short; none is flat', () => {
    const p = probe();
    const { view } = harness(p.definition, {}, { market: 'futures', symbols: ['E-BTC-USDT'] });
    view.instruments.set('E-BTC-USDT', EBTC);
    const ctx = p.held.ctx!;
    expect(ctx.isFlat('E-BTC-USDT')).toBe(true);
    view.ownPositions.set('E-BTC-USDT', own('E-BTC-USDT', 'futures', '1'));
    expect(ctx.isFlat('E-BTC-USDT')).toBe(false);
    view.ownPositions.set('E-BTC-USDT', own('E-BTC-USDT', 'futures', '-3'));
    expect(ctx.isFlat('E-BTC-USDT')).toBe(false);
  });

  it('names a symbol it does not trade', () => {
    const p = probe();
    harness(p.definition);
    expect(() => p.held.ctx!.isFlat('ETHUSDT')).toThrow('isFlat: ETHUSDT is not an instrument this strategy trades');
  });
});
