import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { VenueOrderId } from '../../../src/core/ids.js';
import type { Fill, Order } from '../../../src/core/types.js';
import { StrategyLedger } from '../../../src/engine/ledger.js';
import { MemoryJournal } from '../../../src/store/memory.js';
import { pendingOrder, placeIntent } from '../../contract/journal.contract.js';

function setup() {
  const j = new MemoryJournal();
  const intent = placeIntent('t', 'slt-1', { volume: d('1000'), price: d('100') });
  j.recordIntent(intent, pendingOrder(intent, 0));
  const order: Order = { ...pendingOrder(intent, 0), venueOrderId: '1' as VenueOrderId, status: 'open', updatedAt: 1 };
  j.updateOrder(order, 'acknowledged');
  const fill = (n: number, time: number): Fill => ({
    tradeId: String(n),
    market: 'spot',
    symbol: 'BTCUSDT',
    venueOrderId: '1' as VenueOrderId,
    side: 'BUY',
    price: d('100'),
    volume: d('0.01'),
    fee: d('0'),
    feeAsset: 'USDT',
    isMaker: true,
    time,
  });
  return { j, fill, ledger: new StrategyLedger(j, () => undefined) };
}

describe('StrategyLedger', () => {
  it('loaded while a commit is being told, it counts the told fills once, even when they are older than thousands of others', () => {
    const { j, fill, ledger } = setup();
    // 12,000 fills journaled and told before the ledger loads; then a commit (a catch-up of
    // old trades) journals 50 more, and the ledger loads before they are told.
    const told = Array.from({ length: 12_000 }, (_, i) => fill(i, 2_000_000 + i));
    const untold = Array.from({ length: 50 }, (_, i) => fill(100_000 + i, 1_000 + i));
    for (const f of [...told, ...untold]) expect(j.recordFill(f)).toBe(true);
    expect(ledger.position('t', 'spot', 'BTCUSDT').quantity).toBe('120.5');
    for (const f of untold) ledger.fill('t', f);
    expect(ledger.position('t', 'spot', 'BTCUSDT').quantity).toBe('120.5');
    // The next commit's fills count, once each.
    const next = fill(200_000, 3_000_000);
    j.recordFill(next);
    ledger.fill('t', next);
    ledger.fill('t', next);
    expect(ledger.position('t', 'spot', 'BTCUSDT').quantity).toBe('120.51');
    expect(ledger.fills('t').at(-1)).toEqual(next);
  });

  it('lists a strategy\'s orders oldest first by when they were first seen, a change included, as after a restart', () => {
    const { j, ledger } = setup();
    const second = placeIntent('t', 'slt-2', { volume: d('1'), price: d('100') });
    j.recordIntent(second, pendingOrder(second, 2));
    ledger.position('t', 'spot', 'BTCUSDT'); // loads
    const first = j.order('slt-1')!;
    const changed: Order = { ...first, status: 'canceled', updatedAt: 3 };
    j.updateOrder(changed, 'cancelled');
    ledger.order(changed);
    expect(ledger.orders('t').map((o) => [o.clientOrderId, o.status])).toEqual([
      ['slt-1', 'canceled'],
      ['slt-2', 'pending'],
    ]);
    const restarted = new StrategyLedger(j, () => undefined);
    expect(restarted.orders('t')).toEqual(ledger.orders('t'));
  });
});
