// Grid market maker: quotes `levels` bids below and asks above the mid price, spaced by
// `spacingPct`, and re-quotes when the mid moves more than `requotePct`. Inventory limits
// stop it quoting the side that would push the position past `maxInventory`. On spot it sells
// only what it holds; on futures (volumes in contracts) it goes short as far as long, closing
// what the net position holds before it opens the other way. sluice nets a hedge-mode account's
// long and short legs (README), so there an opening order that rested from before a fill can
// still open a leg beside one that stands: run the futures grid on a one-way (net) account.
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
     * Level k's order on a side. Futures: it closes what the position holds against that side
     * (`against`: the long for asks, the short for bids) and the levels before it left, at most
     * orderVolume (a remainder closes alone, so no level opens while a leg stands), and opens
     * orderVolume beyond that. Spot: orderVolume.
     */
    function leg(against: Decimal, k: number): { volume: Decimal; open?: 'OPEN' | 'CLOSE' } {
      const volume = p.orderVolume;
      if (!futures) return { volume };
      const left = dec.sub(against, dec.mul(volume, d(String(k - 1))));
      return dec.isPositive(left) ? { volume: dec.min(left, volume), open: 'CLOSE' } : { volume, open: 'OPEN' };
    }

    function requote(symbol: string): void {
      const m = mid(symbol);
      const info = ctx.instrument(symbol);
      if (!m || !info) return;
      const last = quotedAt.get(symbol);
      // Moved less than requotePct percent: |m - last| * 100 < requotePct * last, exact (a ratio would be rounded).
      const stayed = last !== undefined && dec.lt(dec.mul(dec.abs(dec.sub(m, last)), d('100')), dec.mul(p.requotePct, last));
      const open = ctx.openOrders(symbol);
      if (stayed && open.length > 0) return;
      ctx.cancelAll(symbol);
      // Futures: a close order's contracts stay frozen until its cancel lands (the venue refuses
      // another close meanwhile: 10015), so the new quotes wait for the old ones to be gone; not
      // for an order whose answer was lost (it settles in up to reconcile.unknownTimeoutMs, and
      // a close it froze only gets a new close refused, never sent twice).
      if (futures && open.some((o) => o.status !== 'unknown')) return;
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
        if (dec.lte(dec.add(position, filledBids), max)) ctx.place({ symbol, side: 'BUY', type: 'LIMIT', price: bid, ...leg(dec.neg(position), k) });
        // Spot sells only coins it holds; futures asks close a long, then open a short.
        if (dec.gte(dec.sub(position, filledBids), dec.neg(max)) && (futures || dec.gte(ctx.balance(info.baseAsset).free, filledBids))) {
          ctx.place({ symbol, side: 'SELL', type: 'LIMIT', price: ask, ...leg(position, k) });
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
