// TWAP executor: works `total` (base quantity) into the market in `slices` equal child
// orders, one per tick, each a marketable LIMIT at the last price plus `slippagePct` so a
// thin book can never fill it at any price. With `repeat: true` it is a DCA: it starts over.
//
// Restart-safe: what is already done is counted from the strategy's own orders as the journal
// keeps them (ctx.orders(), plugin API 2), never from memory, so a daemon restarted mid-way
// (systemd Restart=on-failure) goes on with the rest instead of buying `total` again. An order
// that has ended counts what it executed; one that has not (open, partly filled, sent with no
// answer yet, its answer lost) counts its whole volume, since it may still fill. A slice that
// ended without filling (refused, cancelled) is sent again, so what executes comes to `total`;
// after refusals in a row it waits before the next try (1 s, doubling each time, at most 5 min
// after the last refusal), so a slice that can never go (a risk limit, a balance) is not sent
// again every tick.
// The count is checkpointed with onSave (the journal keeps the latest 1000 orders only). It
// counts every BUY (or SELL) LIMIT this strategy id ever placed in the symbol: to work a new
// total after one has finished, give the config entry a new id.
import { d, dec, decimalParam, defineStrategy, z, type Decimal, type Order } from 'sluice/strategy';

/** Statuses after which an order changes no more. */
const FINAL: ReadonlySet<Order['status']> = new Set(['filled', 'canceled', 'rejected']);

/** Waits after refusals in a row: 1 s after the first, doubling, at most 5 minutes. */
const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 300_000;

/** Until when to hold off after the latest slices were refused in a row (0: none was). */
function refusedUntil(mine: readonly Order[]): number {
  let inRow = 0;
  while (inRow < mine.length && mine[mine.length - 1 - inRow]!.status === 'rejected') inRow++;
  if (inRow === 0) return 0;
  return mine[mine.length - 1]!.updatedAt + Math.min(FIRST_WAIT_MS * 2 ** Math.min(inRow - 1, 20), LONGEST_WAIT_MS);
}

/** Per symbol: `done` is what the orders up to and including `through` (all ended) committed. */
interface Checkpoint {
  through: string;
  done: Decimal;
}

export default defineStrategy({
  apiVersion: 2,
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
    const checkpoints = new Map<string, Checkpoint>();

    const slicesIn = (symbol: string) => ctx.orders(symbol).filter((o) => o.side === p.side && o.type === 'LIMIT');
    /** Symbols whose wait after refusals has been logged, until a slice goes again. */
    const waiting = new Set<string>();

    /** The volume this strategy's slices in `symbol` have executed or may still execute. */
    function committed(mine: readonly Order[], symbol: string): Decimal {
      const cp = checkpoints.get(symbol);
      let start = 0;
      let base = d('0');
      if (cp) {
        // The checkpoint's last order has left the journal's latest 1000: count every order
        // listed on top of it (never less than was done, so never more is sent).
        const at = mine.findIndex((o) => o.clientOrderId === cp.through);
        start = at + 1;
        base = cp.done;
      }
      let total = base;
      let settled = true;
      for (const o of mine.slice(start)) {
        const ended = FINAL.has(o.status);
        total = dec.add(total, ended ? o.executedVolume : o.volume);
        settled = settled && ended;
        // Orders that have ended, oldest first, move the checkpoint on.
        if (settled) checkpoints.set(symbol, { through: o.clientOrderId, done: total });
      }
      return total;
    }

    return {
      onLoad(state) {
        const saved = (state as { checkpoints?: Record<string, { through?: unknown; done?: unknown }> } | null)?.checkpoints;
        for (const [symbol, cp] of Object.entries(saved ?? {})) {
          if (typeof cp.through !== 'string' || typeof cp.done !== 'string' || !/^\d+(\.\d+)?$/.test(cp.done)) {
            ctx.log.warn('saved state unreadable: counting from the journal alone', { symbol });
            continue;
          }
          checkpoints.set(symbol, { through: cp.through, done: d(cp.done) });
        }
      },
      onTick() {
        for (const symbol of ctx.symbols) {
          const info = ctx.instrument(symbol);
          const last = ctx.lastPrice(symbol);
          if (!info || !last) continue;
          const slice = dec.truncate(dec.div(p.total, d(String(p.slices))), info.quantityPrecision);
          if (dec.isZero(slice)) {
            ctx.log.warn('slice rounds to zero: raise total or lower slices', { symbol });
            continue;
          }
          const mine = slicesIn(symbol);
          const until = refusedUntil(mine);
          if (ctx.now() < until) {
            if (!waiting.has(symbol)) ctx.log.warn('slices refused in a row: waiting before the next try', { symbol, nextTryAt: new Date(until).toISOString() });
            waiting.add(symbol);
            continue;
          }
          waiting.delete(symbol);
          const done = committed(mine, symbol);
          // A DCA starts over each time `total` is reached: what counts is the part past the last whole total.
          const left = dec.sub(p.total, p.repeat ? dec.sub(done, dec.mul(dec.truncate(dec.div(done, p.total), 0), p.total)) : done);
          if (!dec.isPositive(left)) continue;
          // The last slice is what is left (less when a slice ended part-filled).
          const volume = dec.truncate(dec.min(slice, left), info.quantityPrecision);
          if (!dec.isPositive(volume) || (info.limitVolumeMin !== undefined && dec.lt(volume, info.limitVolumeMin))) continue;
          const factor = dec.div(p.slippagePct, d('100'));
          const price = dec.truncate(
            dec.mul(last, p.side === 'BUY' ? dec.add(d('1'), factor) : dec.sub(d('1'), factor)),
            info.pricePrecision,
          );
          ctx.place({ symbol, side: p.side, type: 'LIMIT', price, volume });
        }
      },
      onSave() {
        const out: Record<string, { through: string; done: string }> = {};
        for (const [symbol, cp] of checkpoints) out[symbol] = { through: cp.through, done: cp.done };
        return { checkpoints: out };
      },
    };
  },
});
