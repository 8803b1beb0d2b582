// The answer to a place, journaled (engine/answers.ts). The reconciler may learn of an order
// before that answer arrives (a venue echoing client ids in its open orders, then its fills): the
// answer, taken when the venue booked the order, never takes the order back.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../../src/core/ids.js';
import type { Order, OrderStatus, PlaceIntent } from '../../../src/core/types.js';
import { TemporaryError } from '../../../src/core/errors.js';
import { journalPlaced } from '../../../src/engine/answers.js';
import { pendingOrder } from '../../../src/engine/orders.js';
import { BalanceHolds } from '../../../src/risk/holds.js';
import { MemoryJournal } from '../../../src/store/memory.js';

const intent = { kind: 'place', intentId: 'i1', clientOrderId: 'slt-1' as ClientOrderId, strategyId: 't', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.002'), price: d('100') } as PlaceIntent;
const VID = '900000000000000001' as VenueOrderId;

function journalWith(over: Partial<Order>) {
  const journal = new MemoryJournal();
  const order = pendingOrder(intent, 1000);
  journal.recordIntent(intent, order);
  if (Object.keys(over).length > 0) journal.updateOrder({ ...order, updatedAt: 1500, ...over }, 'venue open orders');
  const parts = { journal, holds: new BalanceHolds(), stats: { sent: 0, cancelsSent: 0, accepted: 0, rejected: 0, unknown: 0, expired: 0, intentToWire: [] } };
  return { journal, parts };
}

const accepted = (status: OrderStatus, executedQty?: string) => ({ intent, outcome: { kind: 'accepted' as const, venueOrderId: VID, status, ...(executedQty ? { executedQty: d(executedQty) } : {}) } });
const lost = { intent, outcome: { kind: 'unknown' as const, error: new TemporaryError({ endpoint: 'spot.order' }, 'socket hang up (outcome unknown)', true) } };

describe('journalPlaced', () => {
  it('a pending order takes what its answer says', () => {
    const { journal, parts } = journalWith({});
    journalPlaced(parts, accepted('open'), 2000);
    expect(journal.order(intent.clientOrderId)).toMatchObject({ status: 'open', venueOrderId: VID, executedVolume: '0' });
    const other = journalWith({});
    journalPlaced(other.parts, lost, 2000);
    expect(other.journal.order(intent.clientOrderId)?.status).toBe('unknown');
  });

  it.each([
    ['partially_filled', 'open', 'partially_filled'],
    ['filled', 'open', 'filled'],
    ['pending_cancel', 'open', 'pending_cancel'],
    ['canceled', 'open', 'canceled'],
    ['filled', 'canceled', 'filled'],
    ['open', 'filled', 'filled'],
  ] as const)('found %s by the reconciler first, an answer saying %s leaves it %s', (known, said, expected) => {
    const { journal, parts } = journalWith({ status: known, venueOrderId: VID, executedVolume: known === 'filled' || known === 'partially_filled' ? d('0.001') : d('0') });
    journalPlaced(parts, accepted(said), 2000);
    const o = journal.order(intent.clientOrderId)!;
    expect(o.status).toBe(expected);
    expect(o.venueOrderId).toBe(VID);
    expect(o.executedVolume).toBe(known === 'filled' || known === 'partially_filled' ? '0.001' : '0');
  });

  it('a lost answer keeps its balance hold until the venue can no longer book the request; an answer, until the next read', () => {
    const holds = new BalanceHolds(() => 5200);
    const balances = [{ asset: 'USDT', free: d('1000'), locked: d('0') }];
    for (const r of [lost, accepted('open')]) {
      const { parts } = journalWith({});
      holds.add([{ clientOrderId: intent.clientOrderId, asset: 'USDT', amount: d('0.2') }]);
      journalPlaced({ ...parts, holds }, r, 2000);
      expect(holds.free(balances, 2001).get('USDT')).toBe(r === lost ? '999.8' : '1000');
      holds.release(intent.clientOrderId);
    }
  });

  it('a refusal for an order the reconciler already found on the venue leaves it as found (an incoherent venue; said in its history)', () => {
    const { journal, parts } = journalWith({ status: 'partially_filled', venueOrderId: VID, executedVolume: d('0.001') });
    parts.holds.add([{ clientOrderId: intent.clientOrderId, asset: 'USDT', amount: d('0.2') }]);
    journalPlaced(parts, { intent, outcome: { kind: 'rejected', error: new TemporaryError({ endpoint: 'spot.order' }, 'venue code -2017: balance not enough', false) } }, 2000);
    expect(journal.order(intent.clientOrderId)).toMatchObject({ status: 'partially_filled', venueOrderId: VID, executedVolume: '0.001' });
    // Its hold lasts as an answered order's does (a read sent before the answer may not show it), and it is no refusal.
    expect(parts.holds.free([{ asset: 'USDT', free: d('1000'), locked: d('0') }], 1999).get('USDT')).toBe('999.8');
    expect(parts.stats.rejected).toBe(0);
    expect(journal.history(intent.clientOrderId).at(-1)?.reason).toMatch(/^answered refused \(spot\.order: venue code -2017: balance not enough\), but the venue lists it: kept$/);
    const fresh = journalWith({});
    journalPlaced(fresh.parts, { intent, outcome: { kind: 'rejected', error: new TemporaryError({ endpoint: 'spot.order' }, 'venue code -2017: balance not enough', false) } }, 2000);
    expect(fresh.journal.order(intent.clientOrderId)?.status).toBe('rejected');
  });

  it('an answer lost after the reconciler found the order open leaves it open (it is on the venue)', () => {
    const { journal, parts } = journalWith({ status: 'open', venueOrderId: VID });
    journalPlaced(parts, lost, 2000);
    expect(journal.order(intent.clientOrderId)?.status).toBe('open');
    expect(parts.stats.unknown).toBe(1);
  });
});
