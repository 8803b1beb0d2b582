// Prometheus metrics for one daemon. Counters and the latency histogram are pushed as things
// happen (onCall, observeIntentToAck); everything that describes current state is read from
// the OpsSource at scrape time, so a scrape can never show a stale copy.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { systemClock } from '../core/clock.js';
import type { CallRecord } from '../executor/executor.js';
import type { OpsSource, OpsStatus } from './types.js';

export interface Metrics {
  readonly registry: Registry;
  /** Give to the executor's `onCall`: counts every finished venue call. */
  onCall(record: CallRecord): void;
  /** Time from a strategy's intent to the venue's answer for it, in ms. */
  observeIntentToAck(ms: number): void;
  /** The Prometheus text exposition, state gauges read from the source now. */
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** For the banned gauge; defaults to the system clock. */
  now?: () => number;
}

// Decimal strings become JS numbers here and only here: Prometheus stores float64 anyway, and
// nothing downstream of a scrape decides anything with these values.
const toNumber = (decimal: string): number => Number(decimal);

export function createMetrics(source: OpsSource, opts: MetricsOptions = {}): Metrics {
  const now = opts.now ?? systemClock.now;
  // Our own registry: the global one would collide when two daemons (or two tests) share a process.
  const registry = new Registry();
  const registers = [registry];

  // One status() per scrape: prom-client calls each gauge's collect() in one synchronous loop,
  // so the snapshot is shared by them all and dropped once that loop's microtasks run.
  let snapshot: OpsStatus | undefined;
  const status = (): OpsStatus => {
    if (!snapshot) {
      snapshot = source.status();
      queueMicrotask(() => (snapshot = undefined));
    }
    return snapshot;
  };

  const requests = new Counter({ name: 'sluice_venue_requests_total', help: 'Venue requests that left (after pacing), per endpoint.', labelNames: ['endpoint'], registers });
  const errors = new Counter({ name: 'sluice_venue_errors_total', help: 'Venue calls that ended in an error, per endpoint and error class.', labelNames: ['endpoint', 'error'], registers });
  const status429 = new Counter({ name: 'sluice_venue_http_429_total', help: 'HTTP 429 (rate limited) answers, per endpoint.', labelNames: ['endpoint'], registers });
  const status418 = new Counter({ name: 'sluice_venue_http_418_total', help: 'HTTP 418 (banned) answers, per endpoint.', labelNames: ['endpoint'], registers });
  const intentToAck = new Histogram({
    name: 'sluice_intent_to_ack_ms',
    help: 'Milliseconds from an order intent to the venue acknowledging it.',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000],
    registers,
  });

  // A gauge filled from the source at scrape time; reset first so a symbol or endpoint that
  // went away stops being reported instead of keeping its last value.
  function stateGauge(name: string, help: string, labelNames: string[], fill: (set: (labels: Record<string, string>, value: number) => void) => void): void {
    const gauge: Gauge<string> = new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        gauge.reset();
        fill((labels, value) => (labelNames.length ? gauge.set(labels, value) : gauge.set(value)));
      },
    });
  }

  stateGauge('sluice_limiter_queued', 'Requests waiting in the limiter, per endpoint.', ['endpoint'], (set) => {
    for (const [endpoint, u] of Object.entries(status().limiter)) set({ endpoint }, u.queued);
  });
  stateGauge('sluice_limiter_in_window', 'Requests in the current rolling window, per endpoint.', ['endpoint'], (set) => {
    for (const [endpoint, u] of Object.entries(status().limiter)) set({ endpoint }, u.inWindow);
  });
  stateGauge('sluice_limiter_limit', 'Requests allowed per rolling window, per endpoint.', ['endpoint'], (set) => {
    for (const [endpoint, u] of Object.entries(status().limiter)) set({ endpoint }, u.limit);
  });
  stateGauge('sluice_reconcile_drift', 'Position difference, ours minus the venue, per symbol.', ['market', 'symbol'], (set) => {
    for (const d of status().drift) set({ market: d.market, symbol: d.symbol }, toNumber(d.difference));
  });
  stateGauge('sluice_clock_offset_ms', 'Venue clock minus local clock, ms.', [], (set) => set({}, status().clockOffsetMs));
  stateGauge('sluice_position_quantity', 'Signed position quantity, per symbol.', ['market', 'symbol'], (set) => {
    for (const p of status().positions) set({ market: p.market, symbol: p.symbol }, toNumber(p.quantity));
  });
  stateGauge('sluice_realized_pnl', 'Realised PnL over all positions, quote currency.', [], (set) => set({}, toNumber(status().pnl.realized)));
  stateGauge('sluice_fees', 'Fees paid over all positions, quote currency.', [], (set) => set({}, toNumber(status().pnl.fees)));
  stateGauge('sluice_ready', '1 once start-up reconciliation finished.', [], (set) => set({}, source.ready() ? 1 : 0));
  stateGauge('sluice_banned', '1 while the venue bans us (418).', [], (set) => set({}, source.health().bannedUntil > now() ? 1 : 0));
  stateGauge('sluice_halted', '1 while the kill switch is halted.', [], (set) => set({}, source.health().killSwitch === 'halted' ? 1 : 0));

  return {
    registry,
    contentType: registry.contentType,
    onCall(record) {
      const endpoint = record.endpoint;
      // A call refused locally (banned while queued) never left; it is an error, not a request.
      if (record.sentAt !== undefined) requests.inc({ endpoint });
      if (record.error) errors.inc({ endpoint, error: record.error.name });
      if (record.httpStatus === 429) status429.inc({ endpoint });
      if (record.httpStatus === 418) status418.inc({ endpoint });
    },
    observeIntentToAck(ms) {
      intentToAck.observe(ms);
    },
    text: () => registry.metrics(),
  };
}
