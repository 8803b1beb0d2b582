// Balance that accepted spot places hold until the venue's balances show it: queued, in flight,
// or answered after the last account read. Risk counts it as spent, so a burst of places cannot
// promise the same coins twice between two account reads.
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Balance } from '../core/types.js';
import type { BalanceHold } from './types.js';

export class BalanceHolds {
  private readonly holds = new Map<string, { asset: string; amount: Decimal; answeredAt?: number }>();

  /** @param bookableMs how long after a lost answer the venue may still book its request (core/venue.ts bookableForMs). */
  constructor(private readonly bookableMs: () => number = () => 0) {}

  /** What accepted places hold (risk's verdict says). */
  add(holds: readonly BalanceHold[]): void {
    for (const h of holds) this.holds.set(h.clientOrderId, { asset: h.asset, amount: h.amount });
  }

  /** The venue answered (placed): an account read sent after `at` shows it. */
  answered(clientOrderId: string, at: number): void {
    const h = this.holds.get(clientOrderId);
    if (h) h.answeredAt = at;
  }

  /**
   * The answer was lost at `at` (outcome unknown): the venue may still book the request until
   * recvWindow after it was signed, so only a read sent after that shows it either way.
   */
  lost(clientOrderId: string, at: number): void {
    this.answered(clientOrderId, at + this.bookableMs());
  }

  /** Refused, or never sent: it holds nothing. */
  release(clientOrderId: string): void {
    this.holds.delete(clientOrderId);
  }

  /**
   * Free balances as the last account read (sent at `askedAt`) gave them, less what holds it
   * may not show yet. Holds that read already shows are forgotten.
   */
  free(balances: Iterable<Balance>, askedAt: number): Map<string, Decimal> {
    const free = new Map([...balances].map((b) => [b.asset, b.free]));
    // Summed per asset in one pass: a busy daemon holds for a thousand orders in flight.
    const held = new Map<string, Decimal[]>();
    for (const [id, h] of this.holds) {
      if (h.answeredAt !== undefined && h.answeredAt < askedAt) this.holds.delete(id);
      else {
        let amounts = held.get(h.asset);
        if (!amounts) held.set(h.asset, (amounts = []));
        amounts.push(h.amount);
      }
    }
    for (const [asset, amounts] of held) free.set(asset, dec.sub(free.get(asset) ?? ZERO, dec.sum(amounts)));
    return free;
  }
}
