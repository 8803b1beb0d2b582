// Market making with a signal (plugin API 2): quotes a bid and an ask around the order book's
// mid, shifted toward the trend a fast and a slow EMA of closed 1-minute candles agree on, with
// an inventory limit on its own position. Quotes are refreshed on a timer (and at once after a
// fill): a quote off its target by more than `requoteTicks` is replaced. It waits for
// `slow` closed candles (the klines warm-up) before it starts, live and in backtests.
import { EMA } from 'sluice/indicators';
import { d, dec, decimalParam, defineStrategy, z, type Decimal, type Order, type Side } from 'sluice/strategy';

export default defineStrategy({
  apiVersion: 2,
  name: 'signal-mm',
  params: z
    .object({
      spreadPct: decimalParam('0.05'), // distance between bid and ask, % of the mid
      skewPct: decimalParam('0.02'), // how far the quotes move toward the trend, % of the mid
      volume: decimalParam('0.001'),
      maxInventory: decimalParam('0.005'), // the most this strategy holds long or short (its own fills)
      fast: z.number().int().min(2).default(5),
      slow: z.number().int().min(3).default(20),
      refreshMs: z.number().int().min(100).default(1000),
      requoteTicks: z.number().int().min(0).default(2),
    })
    .strict()
    .refine((p) => p.fast < p.slow, { message: 'fast must be below slow', path: ['fast'] }),
  subscribe: (p) => [
    { kind: 'depth', limit: 5 },
    { kind: 'klines', interval: '1min', history: p.slow },
  ],
  create(ctx) {
    const p = ctx.params;
    const signals = new Map<string, { fast: EMA; slow: EMA }>();
    /** Quotes this strategy asked to cancel (or replaced): they read open until the venue answers. */
    const leaving = new Set<string>();
    let fills = 0;
    const cancel = (id: Order['clientOrderId']) => {
      leaving.add(id);
      ctx.cancel(id);
    };

    /** +1 up, -1 down, 0 until both averages have enough candles or when they agree on nothing. */
    const trend = (symbol: string): number => {
      const s = signals.get(symbol);
      if (!s || !s.fast.isStable || !s.slow.isStable) return 0;
      return Math.sign((s.fast.getResult() ?? 0) - (s.slow.getResult() ?? 0));
    };

    const quote = (symbol: string, side: Side, target: Decimal, mine: readonly Order[]) => {
      const precision = ctx.instrument(symbol)?.pricePrecision ?? 2;
      const tick = precision === 0 ? d('1') : d(`0.${'0'.repeat(precision - 1)}1`);
      const resting = mine.filter((o) => o.side === side && o.status !== 'pending_cancel' && !leaving.has(o.clientOrderId));
      const [keep, ...extra] = resting;
      for (const o of extra) cancel(o.clientOrderId);
      if (!keep) return ctx.place({ symbol, side, type: 'LIMIT', price: target, volume: p.volume });
      // Replace a quote that drifted more than requoteTicks from its target; keep the rest.
      if (dec.gt(dec.abs(dec.sub(keep.price!, target)), dec.mul(tick, d(String(p.requoteTicks))))) {
        leaving.add(keep.clientOrderId);
        return ctx.replace(keep.clientOrderId, { price: target });
      }
      return keep.clientOrderId;
    };

    const refresh = () => {
      for (const symbol of ctx.symbols) {
        const mid = ctx.mid(symbol);
        if (!mid) continue;
        const center = dec.mul(mid, dec.add(d('1'), dec.div(dec.mul(p.skewPct, d(String(trend(symbol)))), d('100'))));
        const half = dec.div(dec.mul(center, p.spreadPct), d('200'));
        const held = ctx.ownPosition(symbol).quantity;
        const mine = ctx.openOrders(symbol);
        const canBuy = dec.lte(dec.add(held, p.volume), p.maxInventory);
        const canSell = dec.gte(dec.sub(held, p.volume), dec.neg(p.maxInventory));
        if (canBuy) quote(symbol, 'BUY', ctx.roundPrice(symbol, dec.sub(center, half), 'BUY'), mine);
        else for (const o of mine.filter((o) => o.side === 'BUY' && !leaving.has(o.clientOrderId))) cancel(o.clientOrderId);
        if (canSell) quote(symbol, 'SELL', ctx.roundPrice(symbol, dec.add(center, half), 'SELL'), mine);
        else for (const o of mine.filter((o) => o.side === 'SELL' && !leaving.has(o.clientOrderId))) cancel(o.clientOrderId);
      }
    };

    const every = () => {
      refresh();
      ctx.setTimer(p.refreshMs, every);
    };

    return {
      onLoad(state) {
        fills = (state as { fills?: number }).fills ?? 0;
      },
      onStart() {
        for (const symbol of ctx.symbols) {
          signals.set(symbol, { fast: ctx.indicator(symbol, '1min', new EMA(p.fast)), slow: ctx.indicator(symbol, '1min', new EMA(p.slow)) });
        }
        every();
      },
      onOrderEvent(e) {
        if (e.kind === 'rejected') leaving.delete(e.clientOrderId);
        else if (e.kind === 'canceled' || e.kind === 'filled') leaving.delete(e.order.clientOrderId);
        if (e.kind === 'filled' || e.kind === 'partially_filled') {
          fills++;
          refresh();
        }
        if (e.kind === 'rejected') ctx.log.warn('quote rejected', { reason: e.reason });
      },
      onStop() {
        ctx.cancelAll();
      },
      onSave: () => ({ fills }),
    };
  },
});
