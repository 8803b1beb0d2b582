import { describe, expect, it } from 'vitest';
import { BannedError, RateLimitedError, TemporaryError } from '../../../src/core/errors.js';
import type { CallRecord } from '../../../src/executor/executor.js';
import { createMetrics } from '../../../src/ops/index.js';
import { FakeSource, NOW } from './fake-source.js';

const lines = (text: string) => text.split('\n');

function setup() {
  const source = new FakeSource();
  const metrics = createMetrics(source, { now: () => NOW });
  return { source, metrics };
}

const call = (over: Partial<CallRecord>): CallRecord => ({ endpoint: 'spot.order', attempt: 1, requestedAt: NOW, sentAt: NOW + 1, finishedAt: NOW + 5, httpStatus: 200, ...over });

describe('createMetrics', () => {
  it('counts requests, errors by class, 429s and 418s from call records', async () => {
    const { metrics } = setup();
    metrics.onCall(call({}));
    metrics.onCall(call({}));
    metrics.onCall(call({ httpStatus: 429, error: new RateLimitedError({ endpoint: 'spot.order', httpStatus: 429 }, 1000) }));
    metrics.onCall(call({ endpoint: 'spot.openOrders', httpStatus: 418, error: new BannedError({ endpoint: 'spot.openOrders', httpStatus: 418 }, NOW + 60_000) }));
    metrics.onCall(call({ endpoint: 'spot.openOrders', httpStatus: undefined, error: new TemporaryError({ endpoint: 'spot.openOrders' }, 'connection refused', false) }));
    // Refused locally while queued behind a ban: never left, so an error but not a request.
    metrics.onCall(call({ sentAt: undefined, httpStatus: undefined, error: new BannedError({ endpoint: 'spot.order' }, NOW + 60_000) }));

    const text = lines(await metrics.text());
    expect(text).toContain('sluice_venue_requests_total{endpoint="spot.order"} 3');
    expect(text).toContain('sluice_venue_requests_total{endpoint="spot.openOrders"} 2');
    expect(text).toContain('sluice_venue_errors_total{endpoint="spot.order",error="RateLimitedError"} 1');
    expect(text).toContain('sluice_venue_errors_total{endpoint="spot.order",error="BannedError"} 1');
    expect(text).toContain('sluice_venue_errors_total{endpoint="spot.openOrders",error="BannedError"} 1');
    expect(text).toContain('sluice_venue_errors_total{endpoint="spot.openOrders",error="TemporaryError"} 1');
    expect(text).toContain('sluice_venue_http_429_total{endpoint="spot.order"} 1');
    expect(text).toContain('sluice_venue_http_418_total{endpoint="spot.openOrders"} 1');
    expect(text.filter((l) => l.startsWith('sluice_venue_http_418_total{'))).toHaveLength(1);
  });

  it('fills state gauges from the source at scrape time', async () => {
    const { metrics } = setup();
    const text = lines(await metrics.text());
    expect(text).toContain('sluice_limiter_queued{endpoint="spot.order"} 3');
    expect(text).toContain('sluice_limiter_in_window{endpoint="spot.order"} 7');
    expect(text).toContain('sluice_limiter_limit{endpoint="spot.order"} 100');
    expect(text).toContain('sluice_limiter_in_window{endpoint="spot.openOrders"} 2');
    expect(text).toContain('sluice_reconcile_drift{market="spot",symbol="BTCUSDT"} 0.1');
    expect(text).toContain('sluice_clock_offset_ms -42');
    expect(text).toContain('sluice_position_quantity{market="spot",symbol="BTCUSDT"} 0.5');
    expect(text).toContain('sluice_position_quantity{market="futures",symbol="E-ETH-USDT"} -2');
    expect(text).toContain('sluice_realized_pnl 11.25');
    expect(text).toContain('sluice_fees 0.85');
    expect(text).toContain('sluice_ready 1');
    expect(text).toContain('sluice_banned 0');
    expect(text).toContain('sluice_halted 0');
    expect(text).toContain('# TYPE sluice_limiter_queued gauge');
  });

  it('follows the source between scrapes: new state shows, vanished symbols go', async () => {
    const { source, metrics } = setup();
    await metrics.text();
    source.isReady = false;
    source.healthValue = { ...source.healthValue, bannedUntil: NOW + 1, killSwitch: 'halted' };
    source.statusValue = { ...source.statusValue, positions: [source.statusValue.positions[1]!], drift: [] };
    const text = await metrics.text();
    expect(lines(text)).toEqual(expect.arrayContaining(['sluice_ready 0', 'sluice_banned 1', 'sluice_halted 1']));
    expect(text).not.toContain('symbol="BTCUSDT"');
    expect(text).toContain('sluice_position_quantity{market="futures",symbol="E-ETH-USDT"} -2');
  });

  it('reads status() once per scrape', async () => {
    const { source, metrics } = setup();
    let calls = 0;
    const status = source.status.bind(source);
    source.status = () => (calls++, status());
    await metrics.text();
    expect(calls).toBe(1);
    await metrics.text();
    expect(calls).toBe(2);
  });

  it('records intent-to-ack latency in a histogram', async () => {
    const { metrics } = setup();
    metrics.observeIntentToAck(3);
    metrics.observeIntentToAck(40);
    metrics.observeIntentToAck(700);
    const text = lines(await metrics.text());
    expect(text).toContain('sluice_intent_to_ack_ms_bucket{le="5"} 1');
    expect(text).toContain('sluice_intent_to_ack_ms_bucket{le="50"} 2');
    expect(text).toContain('sluice_intent_to_ack_ms_bucket{le="+Inf"} 3');
    expect(text).toContain('sluice_intent_to_ack_ms_count 3');
    expect(text).toContain('sluice_intent_to_ack_ms_sum 743');
  });

  it('keeps two instances apart (own registry each)', async () => {
    const a = setup().metrics;
    const b = setup().metrics;
    a.onCall(call({}));
    expect(await b.text()).not.toContain('sluice_venue_requests_total{');
  });
});
