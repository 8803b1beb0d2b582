// Backtests and replays: the same wire() and engine as live, on a manual clock. A backtest
// trades the in-process simulator whose market is driven by a tape's market data; a replay
// answers every request from a tape and fails at the first one that differs.
//
// The driver below is the only thing that moves time: it lets every pending promise chain run
// (one macrotask turn, which drains the microtask queue), then jumps the clock to whichever
// comes first, the next sleeper or the next market event. Nothing waits in real time.
import type { Logger } from 'pino';
import { ManualClock, seededRandom } from '../core/clock.js';
import { TapeEventError, TapeMismatchError } from '../core/errors.js';
import { dec, ONE, ZERO, type Decimal } from '../core/decimal.js';
import type { Market } from '../core/types.js';
import type { Config } from '../config/index.js';
import type { CallRecord } from '../executor/index.js';
import { endpointLimits, WINDOW_MS } from '../exchange/endpoints.js';
import { VirtualPacer } from '../limiter/index.js';
import { buildReport, type EquitySample, type LimiterUsage, type Report, type ReportInput } from '../report/index.js';
import { SimTransport, type SimExchange } from '../sim/index.js';
import { MemoryJournal } from '../store/memory.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { marketEvents, openMarketEvents, openTape, ReplayTransport, streamMarketEvents, type Tape, type TapeMarketEvent } from '../tape/index.js';
import { simFromConfig, wire, type App } from './wire.js';

export interface BacktestOptions {
  config: Config;
  strategies: readonly LoadedStrategy[];
  log: Logger;
  /** The recorded market, in memory; without a tape the simulator's own synthetic market runs for `durationMs`. */
  tape?: Tape;
  /** Or a tape file, streamed: only a few seconds of it are in memory at any time. */
  tapePath?: string;
  /** Where the tape's decoded events are cached (see tape/event-cache.ts); none when absent. */
  eventCacheDir?: string;
  tapeName?: string;
  durationMs?: number;
  /** Virtual start time when there is no tape. */
  startAt?: number;
  /** Account value samples for the report. Default every 10 s of virtual time. */
  sampleEveryMs?: number;
  /** Share of the tape done, 0 to 1. */
  onProgress?: (done: number) => void;
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
  const feed = await EventFeed.open(opts);
  try {
    return await backtestOn(feed, opts);
  } finally {
    await feed.close();
  }
}

async function backtestOn(feed: EventFeed, opts: BacktestOptions): Promise<BacktestResult> {
  const { config } = opts;
  const start = feed.nextAt() < Infinity ? feed.nextAt() : (opts.startAt ?? Date.UTC(2026, 0, 1));
  // A streamed tape's end is known once it is read, and nothing needs it before, except the
  // header of a tape this run records: that one costs a first pass over the file.
  const noEvents = start + (opts.durationMs ?? 3_600_000);
  const endOf = () => (feed.done ? (feed.lastAt ?? noEvents) : (feed.knownEnd ?? Infinity));
  const stopAt = config.record.path && endOf() === Infinity && opts.tapePath ? ((await lastEventAt(opts.tapePath)) ?? noEvents) : endOf();
  const clock = new ManualClock(start);
  const sim = simFromConfig(config.sim, clock, start);
  const transport = new SimTransport(sim);
  const calls = new CallTally();
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
    onCall: (r) => calls.add(r),
    tapeMeta: { stopAt },
  });

  const applyDue = async (upTo: number) => {
    for (;;) {
      if (feed.empty()) await feed.fill();
      if (feed.nextAt() > upTo) break;
      apply(sim, feed.take());
    }
    opts.onProgress?.(feed.progress());
  };
  await applyDue(start);
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
  // Applying market events resolves no promise, so after an iteration that only did that there
  // is nothing to settle: on a dense tape this skips a macrotask turn per answer.
  let woke = true;
  for (;;) {
    if (woke) await settle();
    woke = false;
    if (failure) throw failure;
    if (feed.empty()) await feed.fill();
    const wake = clock.nextWake() ?? Infinity;
    const ev = feed.nextAt();
    const at = Math.min(wake, ev, nextSample);
    if (at > endOf() || at === Infinity) break;
    if (ev === at || nextSample === at) {
      // The market moves (and is sampled) before any sleeper due at the same moment wakes.
      clock.moveTo(at);
      await applyDue(at);
      if (nextSample === at) {
        if (started) equity.push(sample(app, sim, startingEquity, at));
        nextSample += sampleEveryMs;
      }
      continue;
    }
    clock.wakeNext();
    woke = true;
  }
  const end = endOf();
  await clock.advanceTo(end);
  await settle();
  await applyDue(end);
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
    limiter: calls.usage(endpointLimits(config.venue.limits)),
    strategies: opts.strategies.map((s) => s.entry.id),
    ...(opts.tapeName ? { tape: opts.tapeName } : {}),
    config: {
      seed: config.sim.seed,
      latencyMs: `${config.sim.latencyMs.min}-${config.sim.latencyMs.max}`,
      fees: `maker ${config.sim.fees.maker}, taker ${config.sim.fees.taker}`,
      strategies: opts.strategies.map((s) => `${s.entry.id}: ${s.entry.use} ${JSON.stringify(s.entry.params)}`),
    },
  };
  return { report: buildReport(input), input, events: feed.count, app, sim };
}

/**
 * A tape's market events in time order, pulled a batch (one answer's events) at a time:
 * `fill()` reads on when the batch is used up, `nextAt()` is Infinity once the tape is done.
 */
class EventFeed {
  private batch: TapeMarketEvent[] = [];
  private i = 0;
  done = false;
  /** Events taken so far, and the time of the last one. */
  count = 0;
  lastAt: number | undefined;

  private constructor(
    private readonly source: AsyncGenerator<TapeMarketEvent[]>,
    readonly progress: () => number,
    /** The last event's time, when known before reading (a tape in memory, a cached one). */
    readonly knownEnd?: number,
  ) {}

  static async open(opts: BacktestOptions): Promise<EventFeed> {
    let feed: EventFeed;
    if (opts.tapePath) {
      const source = await openMarketEvents(opts.tapePath, opts.eventCacheDir);
      feed = new EventFeed(source.batches, source.progress, source.lastAt);
    } else {
      const events = opts.tape ? marketEvents(opts.tape.calls) : [];
      const all = (async function* () {
        yield events;
      })();
      feed = new EventFeed(all, () => (events.length === 0 ? 1 : feed.count / events.length), events.at(-1)?.at);
    }
    await feed.fill();
    return feed;
  }

  empty(): boolean {
    return this.i >= this.batch.length && !this.done;
  }

  async fill(): Promise<void> {
    while (this.i >= this.batch.length && !this.done) {
      const next = await this.source.next();
      if (next.done) this.done = true;
      else {
        this.batch = next.value;
        this.i = 0;
      }
    }
  }

  nextAt(): number {
    return this.i < this.batch.length ? this.batch[this.i]!.at : Infinity;
  }

  /** Stops reading: a run that fails half-way closes its file and leaves no half-written cache. */
  async close(): Promise<void> {
    await this.source.return(undefined);
  }

  take(): TapeMarketEvent {
    const e = this.batch[this.i++]!;
    this.count++;
    this.lastAt = e.at;
    return e;
  }
}

/** The time of a tape's last market event: a whole pass over the file. */
async function lastEventAt(path: string): Promise<number | undefined> {
  let last: number | undefined;
  for await (const batch of streamMarketEvents((await openTape(path)).calls)) last = batch[batch.length - 1]!.at;
  return last;
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
    // What sim.applyMarketEvent does, with the market's fast decimal reading (see
    // InstrumentMarket.applyEvent); the venue first catches up to now, as for any request.
    const now = sim.now();
    sim.catchUp(now);
    const market = sim.markets.get(e.event.symbol.toUpperCase());
    if (!market) throw new RangeError(`unknown symbol ${e.event.symbol}`);
    market.applyEvent(e.event, now);
  } catch (err) {
    // A symbol the simulator does not list, or a price finer than its tick: the tape and the
    // simulator's instruments disagree, which no strategy result could survive.
    throw new TapeEventError(`tape event at ${new Date(e.at).toISOString()} (${e.market} ${e.event.symbol}) cannot be applied: ${(err as Error).message}`, { cause: err });
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

/**
 * Per endpoint, when each request left and the time spent waiting for the limiter: what the
 * report's limiter table needs, kept as numbers rather than one record per call (a 24-hour
 * backtest makes hundreds of thousands of calls).
 */
class CallTally {
  private readonly by = new Map<string, { sent: number[]; waitedMs: number }>();

  add(c: CallRecord): void {
    if (c.sentAt === undefined) return;
    let e = this.by.get(c.endpoint);
    if (!e) this.by.set(c.endpoint, (e = { sent: [], waitedMs: 0 }));
    e.sent.push(c.sentAt);
    e.waitedMs += c.sentAt - c.requestedAt;
  }

  /** Requests, the busiest rolling window and the time spent waiting for the limiter, per endpoint. */
  usage(limits: Readonly<Record<string, number>>): Record<string, LimiterUsage> {
    const out: Record<string, LimiterUsage> = {};
    for (const [endpoint, { sent: unsorted, waitedMs }] of [...this.by].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const sent = [...unsorted].sort((a, b) => a - b);
      let peak = 0;
      for (let i = 0, j = 0; i < sent.length; i++) {
        while (sent[j]! <= sent[i]! - WINDOW_MS) j++;
        peak = Math.max(peak, i - j + 1);
      }
      out[endpoint] = { requests: sent.length, limit: limits[endpoint] ?? 0, peakInWindow: peak, waitedMs };
    }
    return out;
  }
}
