import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BannedError,
  ClockSkewError,
  OrderRejectedError,
  RateLimitedError,
  TemporaryError,
  UnknownOrderError,
} from '../../../src/core/errors.js';
import { classifyAnswer, retryAfterMs } from '../../../src/exchange/errors.js';

const NOW = 1_700_000_000_000;
const answer = (status: number, body: unknown, headers: Record<string, string> = {}, endpoint = 'spot.order') =>
  classifyAnswer({ endpoint, status, headers, body, now: NOW, localNow: NOW });

describe('classifyAnswer', () => {
  it('a 2xx without a code, or with code 0 / "0", is a success', () => {
    expect(answer(200, { orderId: '1' })).toBeUndefined();
    expect(answer(200, { code: '0', msg: 'success', data: null })).toBeUndefined();
    expect(answer(200, [])).toBeUndefined();
  });

  it.each([
    [-1002, AuthError],
    [-1022, AuthError],
    [-2015, AuthError],
    [-1021, ClockSkewError],
    [-2013, UnknownOrderError],
    [-1121, OrderRejectedError],
    [-2017, OrderRejectedError],
    [-1136, OrderRejectedError],
    [-1015, OrderRejectedError],
    [-1001, TemporaryError],
    [-1016, TemporaryError],
    [35, OrderRejectedError],
    [10015, OrderRejectedError],
    [110047, OrderRejectedError],
  ])('code %i -> %o', (code, cls) => {
    const e = answer(400, { code, msg: 'x' });
    expect(e).toBeInstanceOf(cls);
    expect(e!.venue).toMatchObject({ endpoint: 'spot.order', httpStatus: 400, venueCode: code });
  });

  it('accepts string codes and the futures error envelope', () => {
    expect(answer(200, { code: '-1121', succ: false, msgData: null, msg: '无效的合约' })).toBeInstanceOf(OrderRejectedError);
  });

  it('429 honours Retry-After in seconds or as a date', () => {
    const e = answer(429, { code: -1003, msg: 'slow down' }, { 'retry-after': '3' }) as RateLimitedError;
    expect(e).toBeInstanceOf(RateLimitedError);
    expect(e.retryAfterMs).toBe(3000);
    const dated = answer(429, {}, { 'retry-after': new Date(NOW + 7000).toUTCString() }) as RateLimitedError;
    expect(dated.retryAfterMs).toBe(7000);
    expect((answer(429, undefined) as RateLimitedError).retryAfterMs).toBe(2000);
  });

  it('418 gives the ban end from the body, else Retry-After, else two minutes (then not stated: sluice chose it)', () => {
    expect((answer(418, { code: -1003, banUntil: NOW + 60_000 }) as BannedError).untilMs).toBe(NOW + 60_000);
    expect((answer(418, {}, { 'retry-after': '30' }) as BannedError).untilMs).toBe(NOW + 30_000);
    expect((answer(418, undefined) as BannedError).untilMs).toBe(NOW + 120_000);
    expect((answer(418, { code: -1003, banUntil: NOW + 60_000 }) as BannedError).stated).toBe(true);
    expect((answer(418, {}, { 'retry-after': '30' }) as BannedError).stated).toBe(true);
    expect((answer(418, undefined) as BannedError).stated).toBe(false);
  });

  it("418's ban end is given on our clock: a venue 3 s behind us ends it 3 s later by ours", () => {
    const e = classifyAnswer({ endpoint: 'spot.order', status: 418, headers: {}, body: { banUntil: NOW + 60_000 }, now: NOW, localNow: NOW + 3000 });
    expect((e as BannedError).untilMs).toBe(NOW + 63_000);
  });

  it("418 with both a body end and Retry-After takes the later, so a stale clock offset cannot end it early", () => {
    const e = classifyAnswer({ endpoint: 'spot.order', status: 418, headers: { 'retry-after': '90' }, body: { banUntil: NOW + 60_000 }, now: NOW, localNow: NOW });
    expect((e as BannedError).untilMs).toBe(NOW + 90_000);
  });

  it('504 and venue "status unknown" codes mean the outcome is unknown; 503 does not on a read', () => {
    expect((answer(504, undefined) as TemporaryError).outcomeUnknown).toBe(true);
    expect((answer(500, undefined) as TemporaryError).outcomeUnknown).toBe(true);
    expect((answer(400, { code: -1007, msg: 'timeout' }) as TemporaryError).outcomeUnknown).toBe(true);
    expect((answer(503, undefined, {}, 'spot.openOrders') as TemporaryError).outcomeUnknown).toBe(false);
    expect((answer(504, { code: -1121 }) as TemporaryError).outcomeUnknown).toBe(true);
  });

  it.each(['spot.order', 'spot.batchOrders', 'futures.order'])(
    'on %s (places orders) -1000, -1001 and every 5xx leave the outcome unknown: the venue may have booked the order',
    (endpoint) => {
      const unknown = (status: number, body: unknown) => (answer(status, body, {}, endpoint) as TemporaryError).outcomeUnknown;
      expect(unknown(500, { code: -1000, msg: 'unknown error' })).toBe(true);
      expect(unknown(200, { code: -1001, msg: 'internal error; retry' })).toBe(true);
      expect(unknown(400, { code: '-1000', msg: 'unknown error' })).toBe(true);
      expect(unknown(503, { code: -1001, msg: 'internal error; retry' })).toBe(true);
      expect(unknown(502, { code: -1016, msg: 'bad gateway' })).toBe(true);
      expect(unknown(500, { code: -2017, msg: 'balance' })).toBe(true);
      expect(unknown(502, undefined)).toBe(true);
      // 503, even saying "service unavailable": the notes call a 5xx an internal error, not a refusal.
      expect(unknown(503, { code: -1016, msg: 'service unavailable' })).toBe(true);
      expect(unknown(503, undefined)).toBe(true);
      // A gateway's 5xx with a "too many requests" body: not a rate limit to retry, the order may be booked.
      for (const status of [500, 503, 504]) expect(unknown(status, { code: -1003, msg: 'Too many requests' }), String(status)).toBe(true);
      expect(answer(429, { code: -1003 }, {}, endpoint)).toBeInstanceOf(RateLimitedError);
      expect(answer(200, { code: '-1003' }, {}, endpoint)).toBeInstanceOf(RateLimitedError);
      // -1016 "service unavailable" in a plain answer: nothing says it came before the venue
      // acted, so it is not sent again (it was, and a venue that had booked it held it twice).
      expect(unknown(200, { code: -1016, msg: 'service unavailable' })).toBe(true);
      expect(unknown(400, { code: '-1016', msg: 'service unavailable' })).toBe(true);
      // A code the notes do not name: not known to be a refusal.
      expect(unknown(200, { code: -1099, msg: 'something new' })).toBe(true);
      expect(unknown(400, { code: '110048', msg: '?' })).toBe(true);
      // A refusal the notes name is one: the venue did nothing.
      expect(answer(400, { code: -2017, msg: 'balance' }, {}, endpoint)).toBeInstanceOf(OrderRejectedError);
      expect(answer(200, { code: '-1121', succ: false, msg: 'bad symbol' }, {}, endpoint)).toBeInstanceOf(OrderRejectedError);
      // Without a code: a proxy's timeout, a conflict or too early does not say the venue did nothing.
      for (const status of [408, 409, 425, 499]) expect(unknown(status, undefined), String(status)).toBe(true);
      expect(answer(400, undefined, {}, endpoint)).toBeInstanceOf(OrderRejectedError);
      expect(answer(404, { timestamp: 'x', status: 404, error: 'Not Found', path: '/x' }, {}, endpoint)).toBeInstanceOf(OrderRejectedError);
    },
  );

  it('elsewhere a code the notes do not name is a refusal (never retried), and -1016 is retried', () => {
    for (const endpoint of ['spot.openOrders', 'spot.cancel', 'futures.cancel']) {
      expect(answer(400, { code: -99999, msg: 'x' }, {}, endpoint), endpoint).toBeInstanceOf(OrderRejectedError);
      expect(answer(408, undefined, {}, endpoint), endpoint).toBeInstanceOf(OrderRejectedError);
      expect((answer(200, { code: -1016 }, {}, endpoint) as TemporaryError).outcomeUnknown, endpoint).toBe(false);
    }
  });

  it('reads and cancels keep -1000 and -1001 as temporary (retried; a read changes nothing), and -1003 on a 5xx as a rate limit', () => {
    for (const endpoint of ['spot.openOrders', 'spot.myTrades', 'spot.cancel', 'spot.batchCancel']) {
      expect(answer(503, { code: -1003 }, {}, endpoint), endpoint).toBeInstanceOf(RateLimitedError);
      expect((answer(500, { code: -1000 }, {}, endpoint) as TemporaryError).outcomeUnknown, endpoint).toBe(false);
      expect((answer(200, { code: -1001 }, {}, endpoint) as TemporaryError).outcomeUnknown, endpoint).toBe(false);
    }
  });

  it("on a read or a cancel a 5xx's body concludes nothing: \"no such order\" or a refusal there is temporary (asked again)", () => {
    for (const endpoint of ['spot.queryOrder', 'futures.queryOrder', 'spot.openOrders', 'spot.cancel']) {
      for (const status of [500, 502, 503]) {
        for (const code of [-2013, '-2013', -1112, -1121]) {
          const e = answer(status, { code, msg: 'x' }, {}, endpoint);
          expect(e, `${endpoint} ${status} ${code}`).toBeInstanceOf(TemporaryError);
          expect((e as TemporaryError).outcomeUnknown, `${endpoint} ${status} ${code}`).toBe(false);
        }
      }
      // Below 500 the venue's word stands.
      expect(answer(400, { code: -2013, msg: 'x' }, {}, endpoint), endpoint).toBeInstanceOf(UnknownOrderError);
      expect(answer(200, { code: '-2013', msg: 'x' }, {}, endpoint), endpoint).toBeInstanceOf(UnknownOrderError);
      expect(answer(400, { code: -1121, msg: 'x' }, {}, endpoint), endpoint).toBeInstanceOf(OrderRejectedError);
    }
  });

  it('an HTML 403 from a proxy is an auth problem; other bare 4xx are rejections', () => {
    expect(answer(403, undefined)).toBeInstanceOf(AuthError);
    expect(answer(404, undefined)).toBeInstanceOf(OrderRejectedError);
  });

  it('retryAfterMs ignores garbage', () => {
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
    expect(retryAfterMs('0.5', NOW)).toBe(500);
  });
});
