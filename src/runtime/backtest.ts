// Backtests and replays: the same wire() and engine as live, on a manual clock. A backtest
// trades the in-process simulator whose market is driven by a tape's market data; a replay
// answers every request from a tape and fails at the first one that differs.
//
// The driver below is the only thing that moves time: it lets every pending promise chain run
// (one macrotask turn, which drains the microtask queue), then jumps the clock to whichever
// comes first, the next sleeper or the next market event. Nothing waits in real time.
import type { Logger } from 'pino';
import { ManualClock, seededRandom } from '../core/clock.js';
import { TapeMismatchError } from '../core/errors.js';
import { dec, ONE, ZERO, type Decimal } from '../core/decimal.js';
import type { Market } from '../core/types.js';
import type { Config } from '../config/index.js';
import type { CallRecord } from '../executor/index.js';
import { endpointLimits, WINDOW_MS } from '../exchange/endpoints.js';
import { VirtualPacer } from '../limiter/index.js';
import { buildReport, type EquitySample, type LimiterUsage, type Report, type ReportInput } from '../report/index.js';
import { SimExchange, SimTransport } from '../sim/index.js';
import { MemoryJournal } from '../store/memory.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { marketEvents, ReplayTransport, type Tape, type TapeMarketEvent } from '../tape/index.js';
import { simTroubles, wire, type App } from './wire.js';

export interface BacktestOptions {
  config: Config;
  strategies: readonly LoadedStrategy[];
  log: Logger;
  /** The recorded market; without one the simulator's own synthetic market runs for `durationMs`. */
  tape?: Tape;
  tapeName?: string;
  durationMs?: number;
  /** Virtual start time when there is no tape. */
  startAt?: number;
  /** Account value samples for the report. Default every 10 s of virtual time. */
  sampleEveryMs?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface BacktestResult {
  report: Report;
  input: ReportInput;
  /** Market events applied from the tape. */
  events: number;
  app: App;
  sim: SimExchange;
}

const QUOTE = 'USDT';
/** Lets every promise chain that can run now run: one macrotask turn drains the microtasks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runBacktest(opts: BacktestOptions): Promise<BacktestResult> {
  const { config } = opts;
  const events = opts.tape ? marketEvents(opts.tape.calls) : [];
  const start = events[0]?.at ?? opts.startAt ?? Date.UTC(2026, 0, 1);
  const end = events.length > 0 ? events[events.length - 1]!.at : start + (opts.durationMs ?? 3_600_000);
  const clock = new ManualClock(start);
  const sim = new SimExchange({
    seed: config.sim.seed,
    clock,
    latencyMs: config.sim.latencyMs,
    faults: config.sim.faults,
    banMs: config.sim.banMs,
    fees: config.sim.fees,
    troubles: simTroubles(config.sim.scenario, start),
  });
  const transport = new SimTransport(sim);
  const calls: CallRecord[] = [];
  const pacer = new VirtualPacer({ limits: endpointLimits(config.venue.limits), safetyMarginMs: config.venue.safetyMarginMs, clock });
  const app = wire({
    config,
    strategies: opts.strategies,
    clock,
    log: opts.log,
    journal: new MemoryJournal(),
    pacer,
    transport: () => transport,
    credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret },
    random: seededRandom(config.sim.seed),
    onCall: (r) => calls.push(r),
    tapeMeta: { stopAt: end },
  });

  let next = 0;
  const applyDue = (upTo: number) => {
    while (next < events.length && events[next]!.at <= upTo) apply(sim, events[next++]!);
    opts.onProgress?.(next, events.length);
  };
  applyDue(start);
  const startingEquity = accountValue(sim);
  const equity: EquitySample[] = [];
  const sampleEveryMs = opts.sampleEveryMs ?? 10_000;
  let nextSample = start;

  let failure: unknown;
  let started = false;
  void app.start().then(
    () => (started = true),
    (err: unknown) => (failure = err),
  );
  for (;;) {
    await settle();
    if (failure) throw failure;
    const wake = clock.nextWake() ?? Infinity;
    const ev = events[next]?.at ?? Infinity;
    const at = Math.min(wake, ev, nextSample);
    if (at > end || at === Infinity) break;
    if (ev === at || nextSample === at) {
      // The market moves (and is sampled) before any sleeper due at the same moment wakes.
      clock.moveTo(at);
      applyDue(at);
      if (nextSample === at) {
        if (started) equity.push(sample(app, sim, startingEquity, at));
        nextSample += sampleEveryMs;
      }
      continue;
    }
    clock.wakeNext();
  }
  await clock.advanceTo(end);
  await settle();
  applyDue(end);
  equity.push(sample(app, sim, startingEquity, end));
  await drive(clock, app.stop());

  const input: ReportInput = {
    startedAt: start,
    endedAt: end,
    startingEquity,
    quoteAsset: QUOTE,
    fills: [...app.journal.fills()].sort((a, b) => a.time - b.time),
    contractSizes: Object.fromEntries([...sim.contracts.values()].map((c) => [c.symbol, c.multiplier])),
    equity,
    orders: {
      sent: app.engine.stats.sent,
      accepted: app.engine.stats.accepted,
      rejected: app.engine.stats.rejected,
      unknown: app.engine.stats.unknown,
      riskRejected: app.engine.stats.riskRejections,
    },
    limiter: limiterUsage(calls, endpointLimits(config.venue.limits)),
    strategies: opts.strategies.map((s) => s.entry.id),
    ...(opts.tapeName ? { tape: opts.tapeName } : {}),
    config: {
      seed: config.sim.seed,
      latencyMs: `${config.sim.latencyMs.min}-${config.sim.latencyMs.max}`,
      fees: `maker ${config.sim.fees.maker}, taker ${config.sim.fees.taker}`,
      strategies: opts.strategies.map((s) => `${s.entry.id}: ${s.entry.use} ${JSON.stringify(s.entry.params)}`),
    },
  };
  return { report: buildReport(input), input, events: events.length, app, sim };
}

/**
 * Replays a tape: the recorded config and strategies on a manual clock from the tape's start,
 * every request answered from the tape after its recorded duration. Throws TapeMismatchError
 * with a diff at the first request that differs, or when recorded requests were never sent.
 * The run is compared up to the moment the recording stopped; the shutdown's own traffic
 * (cancels, last reconcile) races with in-flight answers and is answered but not compared.
 * Limitation: a replay lets each answer's whole recorded duration pass from the moment the
 * request leaves, while the simulator split it into an inbound and an outbound delay; two
 * events due in the same millisecond can then wake in a different order and the replay
 * reports a difference that no code change caused. Recording with sim latency 0 avoids it.
 */
export async function runReplay(opts: { config: Config; strategies: readonly LoadedStrategy[]; log: Logger; tape: Tape }): Promise<{ requests: number }> {
  const { tape, config } = opts;
  // A backtest's tape says when it stopped; for a live tape, stop after the last request left.
  const stopAt = typeof tape.header.meta.stopAt === 'number' ? tape.header.meta.stopAt : tape.calls.reduce((m, c) => Math.max(m, c.at), tape.header.startedAt);
  const clock = new ManualClock(tape.header.startedAt);
  const replays = new Map<Market, ReplayTransport>(
    (['spot', 'futures'] as const).map((m) => [m, new ReplayTransport(tape.calls, m, (ms) => clock.sleep(ms))]),
  );
  let failure: unknown;
  const onError = (err: unknown) => (failure ??= err);
  const app = wire({
    config,
    noRecording: true,
    strategies: opts.strategies,
    clock,
    log: opts.log,
    journal: new MemoryJournal(),
    pacer: new VirtualPacer({ limits: endpointLimits(config.venue.limits), safetyMarginMs: config.venue.safetyMarginMs, clock }),
    // A mismatch surfaces inside whichever engine loop made the request, which logs and goes
    // on; the first one is kept here and fails the replay.
    transport: (m) => ({
      send: (request) =>
        replays
          .get(m)!
          .send(request)
          .catch((err: unknown) => {
            if (err instanceof TapeMismatchError && clock.now() <= stopAt) onError(err);
            throw err;
          }),
    }),
    // Placeholders: replay answers from the tape and checks no signature (these strings are
    // scrubbed from errors like real ones, so they must not be words that appear in paths).
    credentials: { apiKey: 'replay-placeholder-key-0000', apiSecret: 'replay-placeholder-secret-0000' },
    random: seededRandom(config.sim.seed),
  });
  void app.start().catch(onError);
  for (;;) {
    await settle();
    if (failure) break;
    const wake = clock.nextWake();
    if (wake === undefined || wake > stopAt) break;
    clock.wakeNext();
  }
  if (!failure) {
    clock.moveTo(stopAt);
    await settle();
  }
  await drive(clock, app.stop().catch(() => undefined));
  if (failure) throw failure;
  for (const r of replays.values()) r.assertComplete(stopAt);
  return { requests: tape.calls.length };
}

/** Keeps the clock moving until `done` settles (stopping drains queues and waits on the clock). */
async function drive(clock: ManualClock, done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.finally(() => (finished = true));
  for (let idle = 0; !finished && idle < 1000; ) {
    await settle();
    if (finished) break;
    if (clock.nextWake() === undefined) idle++;
    else clock.wakeNext();
  }
  await done;
}

function apply(sim: SimExchange, e: TapeMarketEvent): void {
  try {
    sim.applyMarketEvent(e.event);
  } catch (err) {
    // A symbol the simulator does not list, or a price finer than its tick: the tape and the
    // simulator's instruments disagree, which no strategy result could survive.
    throw new Error(`tape event at ${new Date(e.at).toISOString()} (${e.market} ${e.event.symbol}) cannot be applied: ${(err as Error).message}`);
  }
}

/** The spot account in the quote asset, every coin at its simulator mid. */
function accountValue(sim: SimExchange): Decimal {
  return dec.sum(
    sim.balances().map((b) => {
      const total = dec.add(b.free, b.locked);
      if (b.asset === QUOTE) return total;
      const symbol = `${b.asset}${QUOTE}`;
      return sim.symbols.has(symbol) ? dec.mul(total, sim.top(symbol).mid) : ZERO;
    }),
  );
}

/**
 * The strategy's equity: the starting account plus realised and unrealised PnL less fees, from
 * the engine's own position book marked at the simulator's mid. Coins the account merely holds
 * do not move it, so the curve shows the strategy, not the market.
 */
function sample(app: App, sim: SimExchange, startingEquity: Decimal, at: number): EquitySample {
  let pnl = ZERO;
  let exposure = ZERO;
  for (const p of app.engine.positions.snapshot()) {
    const mark = p.market === 'spot' && sim.symbols.has(p.symbol) ? sim.top(p.symbol).mid : p.avgEntryPrice;
    pnl = dec.add(pnl, dec.sub(dec.add(p.realizedPnl, app.engine.positions.unrealizedPnl(p.market, p.symbol, mark)), p.fees));
    const size = p.market === 'futures' ? (sim.contracts.get(p.symbol)?.multiplier ?? ONE) : ONE;
    exposure = dec.add(exposure, dec.abs(dec.mul(dec.mul(p.quantity, size), mark)));
  }
  return { at, equity: dec.add(startingEquity, pnl), exposure };
}

/** Requests, the busiest rolling window and the time spent waiting for the limiter, per endpoint. */
function limiterUsage(calls: readonly CallRecord[], limits: Readonly<Record<string, number>>): Record<string, LimiterUsage> {
  const by = new Map<string, CallRecord[]>();
  for (const c of calls) if (c.sentAt !== undefined) by.set(c.endpoint, [...(by.get(c.endpoint) ?? []), c]);
  const out: Record<string, LimiterUsage> = {};
  for (const [endpoint, list] of [...by].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const sent = list.map((c) => c.sentAt!).sort((a, b) => a - b);
    let peak = 0;
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[j]! <= sent[i]! - WINDOW_MS) j++;
      peak = Math.max(peak, i - j + 1);
    }
    out[endpoint] = { requests: sent.length, limit: limits[endpoint] ?? 0, peakInWindow: peak, waitedMs: list.reduce((s, c) => s + (c.sentAt! - c.requestedAt), 0) };
  }
  return out;
}
