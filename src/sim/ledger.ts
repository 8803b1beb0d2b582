// Spot balances: free and locked per account and asset, the fees the venue collected, and the
// net flow of the other participants (who have unlimited funds). Together they make the
// conservation law checkable: for every asset, accounts + others' flow + fees never changes.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import { OTHERS } from './others.js';

export interface Holding {
  free: Decimal;
  locked: Decimal;
}

export class Ledger {
  private readonly accounts = new Map<string, Map<string, Holding>>();
  readonly fees = new Map<string, Decimal>();
  readonly othersFlow = new Map<string, Decimal>();

  constructor(private readonly assets: readonly string[]) {}

  open(account: string, balances: Readonly<Record<string, Decimal>>): void {
    const m = new Map<string, Holding>();
    for (const a of this.assets) m.set(a, { free: balances[a] ?? ZERO, locked: ZERO });
    for (const [a, v] of Object.entries(balances)) if (!m.has(a)) m.set(a, { free: v, locked: ZERO });
    this.accounts.set(account, m);
  }

  has(account: string): boolean {
    return this.accounts.has(account);
  }

  holding(account: string, asset: string): Holding {
    const m = this.accounts.get(account);
    if (!m) throw new Error(`no account ${account}`);
    let h = m.get(asset);
    if (!h) m.set(asset, (h = { free: ZERO, locked: ZERO }));
    return h;
  }

  balances(account: string): Array<{ asset: string } & Holding> {
    return [...(this.accounts.get(account) ?? new Map<string, Holding>()).entries()].map(([asset, h]) => ({ asset, free: h.free, locked: h.locked }));
  }

  /** Moves `amount` from free to locked; false (and nothing changes) when free is short. */
  lock(account: string, asset: string, amount: Decimal): boolean {
    const h = this.holding(account, asset);
    if (dec.lt(h.free, amount)) return false;
    h.free = dec.sub(h.free, amount);
    h.locked = dec.add(h.locked, amount);
    return true;
  }

  unlock(account: string, asset: string, amount: Decimal): void {
    if (dec.isZero(amount)) return;
    const h = this.holding(account, asset);
    h.locked = dec.sub(h.locked, amount);
    h.free = dec.add(h.free, amount);
  }

  /** Pays `amount` out of locked funds (to the counterparty). */
  spendLocked(account: string, asset: string, amount: Decimal): void {
    if (account === OTHERS) return this.flow(asset, dec.neg(amount));
    const h = this.holding(account, asset);
    h.locked = dec.sub(h.locked, amount);
  }

  credit(account: string, asset: string, amount: Decimal): void {
    if (account === OTHERS) return this.flow(asset, amount);
    const h = this.holding(account, asset);
    h.free = dec.add(h.free, amount);
  }

  collectFee(asset: string, amount: Decimal): void {
    if (dec.isZero(amount)) return;
    this.fees.set(asset, dec.add(this.fees.get(asset) ?? ZERO, amount));
  }

  private flow(asset: string, amount: Decimal): void {
    this.othersFlow.set(asset, dec.add(this.othersFlow.get(asset) ?? ZERO, amount));
  }

  /** Sum over accounts of free + locked, plus others' flow and fees, per asset. */
  conservedTotals(): Map<string, Decimal> {
    const out = new Map<string, Decimal>();
    const add = (a: string, v: Decimal) => out.set(a, dec.add(out.get(a) ?? ZERO, v));
    for (const m of this.accounts.values()) for (const [a, h] of m) add(a, dec.add(h.free, h.locked));
    for (const [a, v] of this.othersFlow) add(a, v);
    for (const [a, v] of this.fees) add(a, v);
    return out;
  }
}
