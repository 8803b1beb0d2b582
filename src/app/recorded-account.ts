// A backtest's starting spot account: `sim.balances`, or with `sim.recordedBalances` what the
// tape's first account answer showed (tape/listings.ts), each asset's free and locked together
// (the orders that locked some are not on the backtest's book). Without it, a tape whose account
// held other amounts of the traded symbols' coins is said once: a strategy selling coins the live
// account held is refused in the backtest for want of them.
import type { Logger } from 'pino';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import type { Config } from '../config/index.js';
import type { SymbolSpec } from '../sim/index.js';
import type { RecordedListings } from '../tape/index.js';

export function startingBalances(
  sim: Config['sim'],
  recorded: RecordedListings,
  run: { tape: boolean; traded: readonly string[]; symbols: readonly SymbolSpec[]; log: Logger },
): Readonly<Record<string, Decimal>> {
  const held = new Map((recorded.balances?.items ?? []).map((b) => [b.asset, dec.add(b.free, b.locked)]));
  if (sim.recordedBalances) {
    const problem = !run.tape
      ? 'needs a tape (--tape): the simulator\'s own market recorded no account; set it to false, or backtest a tape'
      : !recorded.balances
        ? 'the tape recorded no readable spot account answer in its first 10 minutes; set it to false and give sim.balances'
        : undefined;
    if (problem) throw new ConfigError([{ path: 'sim.recordedBalances', message: problem }]);
    return Object.fromEntries(held);
  }
  if (recorded.balances) {
    const assets = new Set(run.symbols.filter((s) => run.traded.includes(s.symbol)).flatMap((s) => [s.baseAsset, s.quoteAsset]));
    const differ = [...assets].filter((a) => !dec.eq(held.get(a) ?? ZERO, sim.balances[a] ?? ZERO));
    if (differ.length > 0) {
      const of = (amount: (a: string) => Decimal | undefined) => Object.fromEntries(differ.map((a) => [a, amount(a) ?? ZERO]));
      run.log.warn(
        { recorded: of((a) => held.get(a)), simBalances: of((a) => sim.balances[a]) },
        'the tape\'s account held other amounts of the traded coins than sim.balances starts this backtest with; sim.recordedBalances: true starts from the recorded account',
      );
    }
  }
  return sim.balances;
}
