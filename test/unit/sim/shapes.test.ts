// The strict profile's small parts: the raw-number JSON writer, the error-after-act draws (a
// stream of their own: older draws of a seed never move), and myTrades paging over the fill
// index (the same pages as sorting and filtering every fill).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { AFTER_ACT_ANSWERS, Faults, NO_FAULTS } from '../../../src/sim/faults.js';
import { decimalOut, JsonNumber, writeJson } from '../../../src/sim/json.js';
import type { UserTrade } from '../../../src/sim/types.js';
import { byId, TradeLog } from '../../../src/sim/trades.js';

describe('writeJson', () => {
  it('writes JsonNumbers as their literal text, everything else as JSON.stringify does', () => {
    const body = { orderId: JsonNumber.id('150695552109032492'), n: [JsonNumber.decimal('0.001'), JsonNumber.decimal('30000.12'), JsonNumber.decimal('-0.005'), JsonNumber.decimal('7')], s: 'x', u: undefined, z: null };
    expect(writeJson(body)).toBe('{"orderId":150695552109032492,"n":[0.00100000,30000.12000000,-0.00500000,7.00000000],"s":"x","z":null}');
    // More places than 8 are kept, never rounded.
    expect(JsonNumber.decimal('0.123456789').text).toBe('0.123456789');
    expect(decimalOut(false, '1.5')).toBe('1.5');
    expect(decimalOut(true, '1.5')).toEqual(new JsonNumber('1.50000000'));
    expect(() => new JsonNumber('1e5')).toThrow(RangeError);
    expect(() => new JsonNumber('01')).toThrow(RangeError);
  });

  it('equals JSON.stringify on plain JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(writeJson(v)).toBe(JSON.stringify(v));
      }),
    );
    expect(writeJson({ a: [undefined, () => 1], d: new Date(0) })).toBe(JSON.stringify({ a: [undefined, () => 1], d: new Date(0) }));
  });
});

describe('errorAfterActRate draws', () => {
  it('leaves every other draw of the seed where it was, whatever its rate', () => {
    const strip = (f: Faults) => Array.from({ length: 300 }, () => {
      const { afterAct: _ignored, ...rest } = f.draw();
      return rest;
    });
    const base = { ...NO_FAULTS, latencyMs: { min: 1, max: 50 }, resetRate: 0.2, error5xxRate: 0.2, lostResponseRate: 0.2, timeoutRate: 0.2 };
    const off = strip(new Faults(4, base));
    expect(strip(new Faults(4, { ...base, errorAfterActRate: 0.6 }))).toEqual(off);
    expect(strip(new Faults(4, { ...base, errorAfterActRate: 1 }))).toEqual(off);
  });

  it('hits at its rate and picks each of the three answers', () => {
    const f = new Faults(8, { ...NO_FAULTS, errorAfterActRate: 0.5 });
    const picks = Array.from({ length: 3000 }, () => f.draw().afterAct);
    const hits = picks.filter((p) => p !== undefined);
    expect(hits.length).toBeGreaterThan(1350);
    expect(hits.length).toBeLessThan(1650);
    for (let i = 0; i < AFTER_ACT_ANSWERS.length; i++) expect(hits.filter((p) => p === i).length).toBeGreaterThan(400);
    expect(new Faults(8, NO_FAULTS).draw().afterAct).toBeUndefined();
    expect(AFTER_ACT_ANSWERS.map((a) => [a.status, a.contentType, a.code])).toEqual([
      [500, 'application/json', -1000],
      [502, 'text/html', undefined],
      [200, 'application/json', -1001],
    ]);
  });
});

describe('TradeLog pages', () => {
  const trade = (id: bigint, visibleAt: number, orderId = '1'): UserTrade => ({
    id: String(id), market: 'spot', symbol: 'BTCUSDT', account: 'u', orderId, side: 'BUY', takerSide: 'BUY', price: d('1'), qty: d('1'), quote: d('1'),
    fee: d('0'), feeCoin: 'BTC', isMaker: false, bidId: '1', askId: '2', bidUser: 'u', askUser: 'x', isSelf: false, at: 0, visibleAt,
  });

  it('equal sorting and filtering every fill, with and without fromId, self-trades and late fills included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 }), late: fc.boolean() }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
        (steps, limit, from) => {
          const log = new TradeLog();
          let id = 999_999_999_999_999_990n;
          for (const s of steps) {
            id += BigInt(s.gap); // a gap of 0 is the second leg of a self-trade
            log.add(trade(id, s.late ? 10 : 0));
          }
          const fromId = from === undefined ? undefined : String(999_999_999_999_999_990n + BigInt(from));
          const visible = log.everything().filter((t) => t.visibleAt <= 5);
          const sorted = [...visible].sort((a, b) => byId(a.id, b.id));
          const expected = fromId === undefined ? sorted.slice(-limit) : sorted.filter((t) => byId(t.id, fromId) >= 0).slice(0, limit);
          expect(log.page('u', 'spot', 'BTCUSDT', 5, { limit, fromId })).toEqual(expected);
        },
      ),
    );
  });

  it('finds an order’s fills, visible or not', () => {
    const log = new TradeLog();
    log.add(trade(5n, 0, 'a'));
    log.add(trade(6n, 99, 'b'));
    log.add(trade(7n, 0, 'a'));
    expect(log.ofOrder('a').map((t) => t.id)).toEqual(['5', '7']);
    expect(log.ofOrder('b').map((t) => t.id)).toEqual(['6']);
    expect(log.ofOrder('c')).toEqual([]);
    expect(log.visible('u', 'spot', 'BTCUSDT', 0).map((t) => t.id)).toEqual(['5', '7']);
  });
});
