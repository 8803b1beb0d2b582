// TWAP executor: works `total` (base quantity) into the market in `slices` equal child
// orders, one per tick, each a marketable LIMIT at the last price plus `slippagePct` so a
// thin book can never fill it at any price. With `repeat: true` it is a DCA: it starts over.
import { d, dec, decimalParam, defineStrategy, z } from 'sluice/strategy';

export default defineStrategy({
  apiVersion: 1,
  name: 'twap',
  params: z
    .object({
      side: z.enum(['BUY', 'SELL']).default('BUY'),
      total: decimalParam('0.01'),
      slices: z.number().int().min(1).max(10_000).default(10),
      slippagePct: decimalParam('0.2'),
      repeat: z.boolean().default(false),
    })
    .strict(),
  subscribe: () => [{ kind: 'ticker' }],
  create(ctx) {
    const p = ctx.params;
    const sent = new Map<string, number>();

    return {
      onTick() {
        for (const symbol of ctx.symbols) {
          const info = ctx.instrument(symbol);
          const last = ctx.lastPrice(symbol);
          if (!info || !last) continue;
          let done = sent.get(symbol) ?? 0;
          if (done >= p.slices) {
            if (!p.repeat) continue;
            done = 0;
          }
          const slice = dec.truncate(dec.div(p.total, d(String(p.slices))), info.quantityPrecision);
          if (dec.isZero(slice)) {
            ctx.log.warn('slice rounds to zero: raise total or lower slices', { symbol });
            continue;
          }
          const factor = dec.div(p.slippagePct, d('100'));
          const price = dec.truncate(
            dec.mul(last, p.side === 'BUY' ? dec.add(d('1'), factor) : dec.sub(d('1'), factor)),
            info.pricePrecision,
          );
          ctx.place({ symbol, side: p.side, type: 'LIMIT', price, volume: slice });
          sent.set(symbol, done + 1);
        }
      },
    };
  },
});
