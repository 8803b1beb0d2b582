// Grid market maker: quotes `levels` bids below and asks above the mid price, spaced by
// `spacingPct`, and re-quotes when the mid moves more than `requotePct`. Inventory limits
// stop it quoting the side that would push the position past `maxInventory`. On spot it sells
// only what it holds; on futures (volumes in contracts) it goes short as far as long.
import { d, dec, decimalParam, defineStrategy, z, type Decimal } from 'sluice/strategy';

export default defineStrategy({
  apiVersion: 1,
  name: 'grid',
  params: z
    .object({
      levels: z.number().int().min(1).max(10).default(3),
      spacingPct: decimalParam('0.1'),
      orderVolume: decimalParam('0.001'),
      maxInventory: decimalParam('0.01'),
      requotePct: decimalParam('0.05'),
    })
    .strict(),
  subscribe: () => [{ kind: 'ticker' }],
  create(ctx) {
    const p = ctx.params;
    const quotedAt = new Map<string, Decimal>();

    function mid(symbol: string): Decimal | undefined {
      return ctx.lastPrice(symbol);
    }

    const futures = ctx.market === 'futures';

    /**
     * Futures: level k of a side closes what the position holds against it (`against`: the long
     * for asks, the short for bids) while the levels before it leave a whole order to close, and
     * opens beyond that. Spot orders carry neither.
     */
    function futuresLeg(against: Decimal, k: number): { open?: 'OPEN' | 'CLOSE' } {
      if (!futures) return {};
      return dec.gte(against, dec.mul(p.orderVolume, d(String(k)))) ? { open: 'CLOSE' } : { open: 'OPEN' };
    }

    function requote(symbol: string): void {
      const m = mid(symbol);
      const info = ctx.instrument(symbol);
      if (!m || !info) return;
      const last = quotedAt.get(symbol);
      // Moved less than requotePct percent: |m - last| * 100 < requotePct * last, exact (a ratio would be rounded).
      const stayed = last !== undefined && dec.lt(dec.mul(dec.abs(dec.sub(m, last)), d('100')), dec.mul(p.requotePct, last));
      const resting = ctx.openOrders(symbol).length > 0;
      if (stayed && resting) return;
      ctx.cancelAll(symbol);
      // Futures: a close order's contracts stay frozen until its cancel lands (the venue refuses
      // another close meanwhile: 10015), so the new quotes wait for the old ones to be gone.
      if (futures && resting) return;
      quotedAt.set(symbol, m);
      const position = ctx.position(symbol).quantity;
      const volume = p.orderVolume;
      const max = p.maxInventory;
      for (let k = 1; k <= p.levels; k++) {
        const offset = dec.div(dec.mul(p.spacingPct, d(String(k))), d('100'));
        // Bids round down and asks up, so rounding never narrows the spacing.
        const bid = dec.truncate(dec.mul(m, dec.sub(d('1'), offset)), info.pricePrecision);
        const ask = dec.roundUp(dec.mul(m, dec.add(d('1'), offset)), info.pricePrecision);
        const filledBids = dec.mul(volume, d(String(k)));
        // Each side stops where a full fill of every level would breach the inventory limit.
        if (dec.lte(dec.add(position, filledBids), max)) ctx.place({ symbol, side: 'BUY', type: 'LIMIT', price: bid, volume, ...futuresLeg(dec.neg(position), k) });
        // Spot sells only coins it holds; futures asks close a long, then open a short.
        if (dec.gte(dec.sub(position, filledBids), dec.neg(max)) && (futures || dec.gte(ctx.balance(info.baseAsset).free, filledBids))) {
          ctx.place({ symbol, side: 'SELL', type: 'LIMIT', price: ask, volume, ...futuresLeg(position, k) });
        }
      }
    }

    return {
      onTick() {
        for (const symbol of ctx.symbols) requote(symbol);
      },
      onFill(fill) {
        ctx.log.info('grid fill', { symbol: fill.symbol, side: fill.side, price: fill.price, volume: fill.volume });
        // A fill changes inventory: quote again from the current mid on the next tick.
        quotedAt.delete(fill.symbol);
      },
      onStop() {
        ctx.cancelAll();
      },
    };
  },
});
