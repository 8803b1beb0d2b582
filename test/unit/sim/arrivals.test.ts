// The venue's request log in columns reads back as the array of objects it replaced: the same
// requests, fields and trimming, and the same object for a request however often it is read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivalLog } from '../../../src/sim/arrivals.js';
import type { Arrival } from '../../../src/sim/types.js';

const arrival = fc.record({
  at: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
  key: fc.option(fc.constantFrom('k1', 'k2', 'sim0123'), { nil: undefined }),
  remote: fc.constantFrom('in-process', '127.0.0.1', 'backtest-7'),
  endpoint: fc.constantFrom('spot.order', 'spot.account', 'GET /nowhere'),
});
/** What the venue writes into a request's record while answering it. */
const answer = fc.record({
  status: fc.constantFrom(0, 200, 400, 418, 429, 503),
  code: fc.option(fc.constantFrom(-1021, -1003, -2013, 0), { nil: undefined }),
  fault: fc.option(fc.constantFrom('reset', 'error5xx', 'lost-response', 'timeout', 'error-after-act') as fc.Arbitrary<NonNullable<Arrival['fault']>>, { nil: undefined }),
});
const step = fc.record({ arrival, answer, read: fc.boolean() });

describe('ArrivalLog', () => {
  it('reads back as a plain array of the records, trimmed the same way, whenever it is read', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.constantFrom(4, 8, 1000), (steps, kept) => {
        const log = new ArrivalLog(kept);
        const plain: Arrival[] = [];
        for (const s of steps) {
          const a: Arrival = { ...s.arrival, status: 0 };
          log.add(a);
          plain.push(a);
          if (plain.length > kept) plain.splice(0, kept / 2);
          // The venue answers after logging the arrival.
          a.status = s.answer.status;
          if (s.answer.fault !== undefined) a.fault = s.answer.fault;
          if (s.answer.code !== undefined) a.code = s.answer.code;
          if (s.read) expect(log.list()).toStrictEqual(plain);
          expect(log.size).toBe(plain.length);
        }
        expect(log.list()).toStrictEqual(plain);
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same object for a request on every read, and the same array', () => {
    const log = new ArrivalLog(1000);
    log.add({ at: 1, key: 'k', remote: 'r', endpoint: 'spot.time', status: 200 });
    log.add({ at: 2, key: undefined, remote: 'r', endpoint: 'spot.time', status: 200 });
    const first = log.list();
    const last = first[first.length - 1];
    log.add({ at: 3, key: 'k', remote: 'r', endpoint: 'spot.order', status: 0 });
    const again = log.list();
    expect(again).toBe(first);
    expect(again[1]).toBe(last);
    expect(again.map((a) => a.at)).toEqual([1, 2, 3]);
  });
});
