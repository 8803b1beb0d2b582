// The protective exits' decision (engine/exits.ts): from quantity, booked entry, trailing best,
// last price and the settings, whether to exit and why, and the best to keep. Every threshold is
// reached at equality; the best moves only in the position's favour.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { d, dec, type Decimal } from '../../../src/core/decimal.js';
import { hasExits, judgeExit, type Best, type ExitSettings } from '../../../src/engine/exits.js';

const all: ExitSettings = { stopLossPct: d('2'), takeProfitPct: d('5'), trailingStopPct: d('1.5'), cooldownMs: 0 };
const judge = (quantity: string, entry: string, price: string, best?: Best, settings: ExitSettings = all) => judgeExit({ quantity: d(quantity), entry: d(entry), price: d(price), best, settings });
const long = (price: string): Best => ({ side: 'long', price: d(price) });
const short = (price: string): Best => ({ side: 'short', price: d(price) });

describe('judgeExit: long', () => {
  it.each([
    // price, best before, exit, trigger, best after
    ['98', undefined, 'stop_loss', '98', '100'],
    ['98.51', undefined, undefined, undefined, '100'],
    ['97', long('101'), 'stop_loss', '98', '101'],
    ['105', undefined, 'take_profit', '105', '105'],
    ['104.99', undefined, undefined, undefined, '104.99'],
    // best 104: the trailing stop is at 104 x 0.985 = 102.44
    ['102.44', long('104'), 'trailing_stop', '102.44', '104'],
    ['102.45', long('104'), undefined, undefined, '104'],
    // at the entry, the trailing stop sits 1.5% under it: above the 2% stop-loss
    ['98.5', undefined, 'trailing_stop', '98.5', '100'],
  ] as const)('at %s with best %o: %s', (price, best, reason, trigger, after) => {
    const j = judge('0.5', '100', price, best);
    expect(j.exit?.reason).toBe(reason);
    if (trigger) expect(dec.eq(j.exit!.trigger, d(trigger))).toBe(true);
    expect(j.best).toEqual(long(after));
  });

  it('stop-loss names the exit when the trailing stop fires too; take-profit before a trailing stop', () => {
    expect(judge('1', '100', '90', long('120')).exit?.reason).toBe('stop_loss');
    expect(judge('1', '100', '110', long('120')).exit?.reason).toBe('take_profit');
  });

  it('just above the stop-loss, with no trailing stop: nothing', () => {
    expect(judge('1', '100', '98.01', undefined, { stopLossPct: d('2'), cooldownMs: 0 }).exit).toBeUndefined();
    expect(judge('-1', '100', '101.99', undefined, { stopLossPct: d('2'), cooldownMs: 0 }).exit).toBeUndefined();
    expect(judge('-1', '100', '102', undefined, { stopLossPct: d('2'), cooldownMs: 0 }).exit).toEqual({ reason: 'stop_loss', trigger: '102' });
  });

  it('each exit off when its setting is absent', () => {
    const none: ExitSettings = { cooldownMs: 0 };
    expect(judge('1', '100', '1', undefined, none).exit).toBeUndefined();
    expect(judge('1', '100', '1000', undefined, none).exit).toBeUndefined();
    expect(judge('1', '100', '97', long('200'), { trailingStopPct: d('1'), cooldownMs: 0 }).exit).toEqual({ reason: 'trailing_stop', trigger: '198' });
    expect(judge('1', '100', '97', undefined, { takeProfitPct: d('1'), cooldownMs: 0 }).exit).toBeUndefined();
  });
});

describe('judgeExit: short (futures), mirrored', () => {
  it.each([
    ['102', undefined, 'stop_loss', '102', '100'],
    ['101.49', undefined, undefined, undefined, '100'],
    ['101.5', undefined, 'trailing_stop', '101.5', '100'],
    ['95', undefined, 'take_profit', '95', '95'],
    ['95.01', undefined, undefined, undefined, '95.01'],
    // best 96: the trailing stop is at 96 x 1.015 = 97.44
    ['97.44', short('96'), 'trailing_stop', '97.44', '96'],
    ['97.43', short('96'), undefined, undefined, '96'],
  ] as const)('at %s with best %o: %s', (price, best, reason, trigger, after) => {
    const j = judge('-3', '100', price, best);
    expect(j.exit?.reason).toBe(reason);
    if (trigger) expect(dec.eq(j.exit!.trigger, d(trigger))).toBe(true);
    expect(j.best).toEqual(short(after));
  });
});

describe('judgeExit: flat, no entry, a flip', () => {
  it('flat: nothing, and the best is dropped', () => {
    expect(judge('0', '100', '1', long('200'))).toEqual({ best: undefined });
  });
  it('no booked entry yet (only unbooked executions): nothing judged, the best kept as it was', () => {
    expect(judge('0.5', '0', '1', long('200'))).toEqual({ best: long('200') });
    expect(judge('0.5', '0', '1')).toEqual({ best: undefined });
  });
  it("a best tracked for the other side starts again from the entry", () => {
    expect(judge('-1', '100', '99', long('150'), { trailingStopPct: d('1'), cooldownMs: 0 })).toEqual({ best: short('99') });
  });
  it('decimals stay exact strings (no float): 0.1 + 0.2 style prices', () => {
    const j = judge('0.3', '0.3', '0.294', undefined, { stopLossPct: d('2'), cooldownMs: 0 });
    expect(j.exit).toEqual({ reason: 'stop_loss', trigger: '0.294' });
    expect(judge('0.3', '0.3', '0.29400000001', undefined, { stopLossPct: d('2'), cooldownMs: 0 }).exit).toBeUndefined();
  });
  it('hasExits: cooldownMs alone guards nothing', () => {
    expect(hasExits(undefined)).toBe(false);
    expect(hasExits({ cooldownMs: 5 })).toBe(false);
    expect(hasExits({ stopLossPct: d('1'), cooldownMs: 0 })).toBe(true);
  });
});

describe('judgeExit: properties', () => {
  const cents = fc.integer({ min: 1, max: 10_000_000 }).map((n) => dec.div(d(String(n)), d('100')));
  it('the best only moves in the position\'s favour, and an exit fires exactly when a threshold is reached', () => {
    fc.assert(
      fc.property(cents, cents, cents, fc.boolean(), (entry, price, prior, isLong) => {
        const side = isLong ? 'long' : 'short';
        const best: Best = { side, price: prior };
        const j = judgeExit({ quantity: d(isLong ? '1' : '-1'), entry, price, best, settings: all });
        const after = j.best!.price;
        if (isLong) expect(dec.gte(after, prior) && dec.gte(after, price)).toBe(true);
        else expect(dec.lte(after, prior) && dec.lte(after, price)).toBe(true);
        const pct = (p: Decimal, x: string) => dec.mul(p, dec.add(d('1'), dec.div(d(x), d('100'))));
        const sl = isLong ? dec.lte(price, pct(entry, '-2')) : dec.gte(price, pct(entry, '2'));
        const tp = isLong ? dec.gte(price, pct(entry, '5')) : dec.lte(price, pct(entry, '-5'));
        const ts = isLong ? dec.lte(price, pct(after, '-1.5')) : dec.gte(price, pct(after, '1.5'));
        expect(j.exit?.reason).toBe(sl ? 'stop_loss' : tp ? 'take_profit' : ts ? 'trailing_stop' : undefined);
      }),
    );
  });
});
