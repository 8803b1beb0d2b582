// BalanceHolds: what accepted spot places hold until an account read shows it.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { Balance } from '../../../src/core/types.js';
import { BalanceHolds } from '../../../src/risk/index.js';

const balances: Balance[] = [
  { asset: 'USDT', free: d('1000'), locked: d('50') },
  { asset: 'BTC', free: d('0.5'), locked: d('0') },
];
const freeOf = (holds: BalanceHolds, askedAt: number) => Object.fromEntries(holds.free(balances, askedAt));

describe('BalanceHolds', () => {
  it('without holds, free is the read free balance (locked is already out of it)', () => {
    expect(freeOf(new BalanceHolds(), 0)).toEqual({ USDT: '1000', BTC: '0.5' });
  });

  it('an unanswered hold (queued or in flight) counts against every read, however late', () => {
    const holds = new BalanceHolds();
    holds.add([
      { clientOrderId: 'a', asset: 'USDT', amount: d('200.4') },
      { clientOrderId: 'b', asset: 'USDT', amount: d('100.2') },
      { clientOrderId: 'c', asset: 'BTC', amount: d('0.1') },
    ]);
    expect(freeOf(holds, 0)).toEqual({ USDT: '699.4', BTC: '0.4' });
    expect(freeOf(holds, 1_000_000)).toEqual({ USDT: '699.4', BTC: '0.4' });
  });

  it('a hold of an asset the read does not show goes below zero', () => {
    const holds = new BalanceHolds();
    holds.add([{ clientOrderId: 'a', asset: 'ETH', amount: d('2') }]);
    expect(freeOf(holds, 0)).toEqual({ USDT: '1000', BTC: '0.5', ETH: '-2' });
  });

  it('an answered hold counts until a read sent after the answer, which shows it; then it is forgotten', () => {
    const holds = new BalanceHolds();
    holds.add([{ clientOrderId: 'a', asset: 'USDT', amount: d('200') }]);
    holds.answered('a', 100);
    // Reads sent before, or at the same moment as, the answer may not show the order.
    expect(freeOf(holds, 99).USDT).toBe('800');
    expect(freeOf(holds, 100).USDT).toBe('800');
    expect(freeOf(holds, 101).USDT).toBe('1000');
    // Forgotten: an older read seen afterwards no longer counts it.
    expect(freeOf(holds, 50).USDT).toBe('1000');
  });

  it('a hold whose answer was lost counts until a read sent after the venue could last book its request (recvWindow plus the clocks\' error)', () => {
    const holds = new BalanceHolds(() => 5200);
    holds.add([{ clientOrderId: 'a', asset: 'USDT', amount: d('200') }]);
    holds.lost('a', 100);
    // A read sent after the answer was lost, while the venue may still book it: it may not show the order yet.
    expect(freeOf(holds, 101).USDT).toBe('800');
    expect(freeOf(holds, 5300).USDT).toBe('800');
    expect(freeOf(holds, 5301).USDT).toBe('1000');
  });

  it('release drops a hold at once (refused, or never sent); unknown ids are ignored', () => {
    const holds = new BalanceHolds();
    holds.add([
      { clientOrderId: 'a', asset: 'USDT', amount: d('200') },
      { clientOrderId: 'b', asset: 'USDT', amount: d('300') },
    ]);
    holds.release('a');
    holds.release('nobody');
    holds.answered('nobody', 5);
    expect(freeOf(holds, 0).USDT).toBe('700');
    holds.release('b');
    expect(freeOf(holds, 0).USDT).toBe('1000');
  });

  it('adding a hold again for the same order replaces it, unanswered', () => {
    const holds = new BalanceHolds();
    holds.add([{ clientOrderId: 'a', asset: 'USDT', amount: d('200') }]);
    holds.answered('a', 10);
    holds.add([{ clientOrderId: 'a', asset: 'BTC', amount: d('0.2') }]);
    expect(freeOf(holds, 20)).toEqual({ USDT: '1000', BTC: '0.3' });
  });

  it('keeps exact decimals: no float rounding in the sums', () => {
    const holds = new BalanceHolds();
    holds.add([
      { clientOrderId: 'a', asset: 'BTC', amount: d('0.1') },
      { clientOrderId: 'b', asset: 'BTC', amount: d('0.2') },
    ]);
    expect(holds.free([{ asset: 'BTC', free: d('0.3'), locked: d('0') }], 0).get('BTC')).toBe('0');
  });
});
