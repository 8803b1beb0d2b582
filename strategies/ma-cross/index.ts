// Moving-average crossover on closed klines: buys `buyQuote` worth when the fast average
// crosses above the slow one, sells its own whole position (what its fills left held, less a
// base-coin fee) when it crosses below: never coins the account held before, nor another
// strategy's in the same symbol.
import { d, dec, decimalParam, defineStrategy, z, type Decimal, type Kline } from 'sluice/strategy';

export default defineStrategy({
  apiVersion: 2,
  name: 'ma-cross',
  params: z
    .object({
      interval: z.enum(['1min', '5min', '15min', '30min', '60min', '1day']).default('1min'),
      fast: z.number().int().min(2).default(5),
      slow: z.number().int().min(3).default(20),
      buyQuote: decimalParam('100'),
    })
    .strict()
    .refine((p) => p.fast < p.slow, { message: 'fast must be shorter than slow', path: ['fast'] }),
  subscribe: (p) => [{ kind: 'klines', interval: p.interval, limit: p.slow + 1 }],
  create(ctx) {
    const p = ctx.params;
    const lastSignal = new Map<string, 'above' | 'below'>();

    function average(closes: readonly Decimal[]): Decimal {
      return dec.div(dec.sum(closes), d(String(closes.length)));
    }

    return {
      onMarketData(event) {
        if (event.kind !== 'klines') return;
        const closes = [...event.klines].sort((a: Kline, b: Kline) => a.openTime - b.openTime).map((k) => k.close);
        if (closes.length < p.slow) return;
        const fast = average(closes.slice(-p.fast));
        const slow = average(closes.slice(-p.slow));
        const now = dec.gt(fast, slow) ? 'above' : 'below';
        const before = lastSignal.get(event.symbol);
        const position = ctx.ownPosition(event.symbol);
        // A buy the venue says executed but whose fills are not booked yet: its base-coin fee is
        // not yet off netQuantity, so the sell waits for the next candle (the cross is kept).
        if (now === 'below' && before === 'above' && !dec.isZero(position.unbookedQuantity)) return;
        lastSignal.set(event.symbol, now);
        if (before === undefined || before === now || ctx.openOrders(event.symbol).length > 0) return;
        const info = ctx.instrument(event.symbol);
        if (!info) return;
        if (now === 'above') {
          ctx.place({ symbol: event.symbol, side: 'BUY', type: 'MARKET', volume: p.buyQuote });
        } else {
          // netQuantity, not quantity: on spot a buy's fee is taken in the base coin, so the
          // account holds less than the buys' volume and a sell of `quantity` is refused.
          const held = dec.truncate(position.netQuantity, info.quantityPrecision);
          if (dec.isPositive(held)) ctx.place({ symbol: event.symbol, side: 'SELL', type: 'MARKET', volume: held });
        }
      },
    };
  },
});
