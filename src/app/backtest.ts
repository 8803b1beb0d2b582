// Backtests and replays: the same composition root and engine as live, on a manual clock. A backtest
// trades the in-process simulator whose market is driven by a tape's market data; a replay
// answers every request from a tape and fails at the first one that differs.
//
// The driver below is the only thing that moves time: it lets every pending promise chain run
// (one macrotask turn, which drains the microtask queue), then jumps the clock to whichever
// comes first, the next sleeper or the next market event. Nothing waits in real time.
import type { Logger } from 'pino';
import { amend } from '../core/amend.js';
import { ManualClock } from '../core/clock.js';
import { TapeEventError, TapeMismatchError } from '../core/errors.js';
import { dec, ZERO, type Decimal } from '../core/decimal.js';
import type { Market, TapeWindow } from '../core/types.js';
import type { Config } from '../config/index.js';
import type { CallRecord } from '../executor/index.js';
import { endpointLimits, WINDOW_MS } from '../exchange/endpoints.js';
import { busiestWindow } from '../limiter/window.js';
import { assetValue, buildReport, equitySample, OpeningValue, PriceSampler, type EquitySample, type LimiterUsage, type Report, type ReportInput } from '../report/index.js';
import { DEFAULT_SYMBOLS, hasPrice, type RecordedIncident, type SimExchange } from '../sim/index.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { lastEventAt, recordedListings, ReplayTransport, TapeFeed, type Tape, type TapeMarketEvent } from '../tape/index.js';
import { buildApp, type App } from './build.js';
import { startingBalances } from './recorded-account.js';
import { simInstruments } from './recorded-instruments.js';
import { backtest, replay, simFromConfig } from './profiles.js';

export interface BacktestOptions {
  config: Config;
  strategies: readonly LoadedStrategy[];
  log: Logger;
  /** The recorded market, in memory; without a tape the simulator's own synthetic market runs for `durationMs`. */
  tape?: Tape;
  /** Or a tape file, streamed: only a few seconds of it are in memory at any time. */
  tapePath?: string;
  /** Only this part of the tape (--from, --to); the whole tape when absent. */
  window?: TapeWindow;
  /** Where the tape's decoded events are cached (see tape/event-cache.ts); none when absent. */
  eventCacheDir?: string;
  /** Whether a tape not cached yet decodes on a thread of its own; by its size when absent (tape/decode-thread.ts). */
  decodeThread?: boolean;
  tapeName?: string;
  durationMs?: number;
  /** Virtual start time when there is no tape. */
  startAt?: number;
  /** Account value samples for the report. Default every 10 s of virtual time. */
  sampleEveryMs?: number;
  /** Where strategies' ctx.log goes, given the run's virtual clock (its lines carry virtual time); `log` otherwise. */
  pluginLog?: (now: () => number) => Logger;
  /** Share of the tape done, 0 to 1. */
  onProgress?: (done: number) => void;
  /**
   * false: every request goes as it would over a wire (signed, JSON text both ways) instead of
   * to the trusted in-process simulator. The report is the same; tests compare the two.
   */
  trustedVenue?: boolean;
}

export interface BacktestResult {
  report: Report;
  input: ReportInput;
  /** Market events applied from the tape. */
  events: number;
  /** Symbols traded that the tape holds no market data for (they traded the simulator's own market). */
  untaped: string[];
  app: App;
  sim: SimExchange;
}

/** Lets every promise chain that can run now run: one macrotask turn drains the microtasks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runBacktest(opts: BacktestOptions): Promise<BacktestResult> {
  const feed = await TapeFeed.open(amend(opts, { incidents: opts.config.sim.recordedFaults }));
  try {
    return await backtestOn(feed, opts);
  } finally {
    await feed.close();
  }
}

async function backtestOn(feed: TapeFeed, opts: BacktestOptions): Promise<BacktestResult> {
  const { config } = opts;
  const first = feed.nextAt();
  const tapeStart = first < Infinity ? first : (opts.startAt ?? Date.UTC(2026, 0, 1));
  const { from, to } = opts.window ?? {};
  if (to !== undefined && first < Infinity && to <= first) throw new TapeEventError(`--to ${iso(to)} is not after the tape's first market event, at ${iso(first)}`);
  // A window's start: the tape before it is applied first (books, prints and candles as they
  // stood then), before any strategy starts.
  const start = from !== undefined && first < Infinity ? Math.max(from, tapeStart) : tapeStart;
  // A streamed tape's end is known once it is read, and nothing needs it before, except the
  // header of a tape this run records: that one costs a first pass over the file.
  const noEvents = start + (opts.durationMs ?? 3_600_000);
  const endOf = () => Math.min(feed.done ? (feed.lastAt ?? noEvents) : (feed.knownEnd ?? Infinity), to ?? Infinity);
  const stopAt = config.record.path && endOf() === Infinity && opts.tapePath ? ((await lastEventAt(opts.tapePath)) ?? noEvents) : endOf();
  const clock = new ManualClock(start);
  const taped: Taped = { seen: new Set() };
  const traded = tradedMarkets(opts.strategies);
  // Only the traded markets move: no strategy can see the others (strategy/requests.ts).
  // The tape's venue's own instruments, where it recorded their listing (app/recorded-instruments.ts),
  // and the account it started with, where the config asks for it (app/recorded-account.ts).
  const recorded = await recordedListings(opts);
  const instruments = simInstruments(recorded);
  const spot = traded.filter((t) => t.market === 'spot').map((t) => t.symbol);
  const balances = startingBalances(config.sim, recorded, { tape: opts.tape !== undefined || opts.tapePath !== undefined, traded: spot, symbols: instruments.symbols ?? DEFAULT_SYMBOLS, log: opts.log });
  // The venue's troubles the tape recorded, met where the recording met them (tape/incidents.ts),
  // every one known before the run starts: the feed read them with its events, or reads them
  // while a thread decodes ahead (tape/event-cache.ts).
  const incidents = feed.incidents ? inWindow(await feed.incidents, start, to) : undefined;
  const sim = simFromConfig(amend(config.sim, { balances }), clock, start, amend(instruments, { moving: traded.map((t) => t.symbol), incidents: incidents ?? [] }));
  const calls = new CallTally();
  const pluginLog = opts.pluginLog?.(() => clock.now());
  const app = buildApp({ config, profile: backtest(config, sim, clock, { stopAt }, opts.trustedVenue ?? true), strategies: opts.strategies, log: opts.log, ...(pluginLog ? { pluginLog } : {}), onCall: (r) => calls.add(r) });
  const quote = quoteAsset(sim, traded);
  // A market only the tape moves has no price before its first book (hasPrice): none, not a placeholder.
  const midOf = (symbol: string) => (sim.symbols.has(symbol) && hasPrice(sim, symbol) ? sim.top(symbol).mid : undefined);
  // Spot pairs and futures contracts alike at their mid: each traded symbol's is also sampled
  // with the equity, for report.html's price charts.
  const markOf = (_market: Market, symbol: string) => ((sim.symbols.has(symbol) || sim.contracts.has(symbol)) && hasPrice(sim, symbol) ? sim.top(symbol).mid : undefined);
  const prices = new PriceSampler(traded, markOf);
  const valueOf = (asset: string, amount: Decimal) => assetValue(asset, amount, quote, midOf);
  // Samples hold the PnL until the run ends: the starting equity is known only once every asset
  // the account starts with has a price (OpeningValue).
  const sample = (at: number): EquitySample => {
    opening.settle();
    prices.take(at);
    return equitySample(app.engine.positions, ZERO, at, markOf, (symbol) => sim.contracts.get(symbol)?.multiplier, valueOf);
  };

  const applyDue = async (upTo: number) => {
    for (;;) {
      if (feed.empty()) await feed.fill();
      if (feed.nextAt() > upTo) break;
      apply(sim, feed.take(), taped);
    }
    opts.onProgress?.(feed.progress());
  };
  await applyDue(start);
  if (from !== undefined && feed.nextAt() === Infinity && (feed.lastAt ?? tapeStart) <= from) {
    throw new TapeEventError(`--from ${iso(from)} leaves nothing of the tape: it covers ${iso(tapeStart)} to ${iso(feed.lastAt ?? tapeStart)}`);
  }
  const opening = new OpeningValue(accountsTraded(sim, traded), quote, midOf);
  const pnls: EquitySample[] = [];
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
        if (started) pnls.push(sample(at));
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
  await drive(clock, app.stop());
  // After the stop: what it did (its cancels, a plugin's closing orders in onStop) counts too.
  pnls.push(sample(end));
  const startingEquity = opening.value;
  const equity = pnls.map((p) => amend(p, { equity: dec.add(startingEquity, p.equity) }));

  const input: ReportInput = {
    startedAt: start,
    endedAt: end,
    startingEquity,
    quoteAsset: quote,
    fills: [...app.journal.fills()].sort((a, b) => a.time - b.time),
    contractSizes: Object.fromEntries([...sim.contracts.values()].map((c) => [c.symbol, c.multiplier])),
    equity,
    prices: prices.result(),
    orders: {
      sent: app.engine.pipeline.stats.sent,
      cancelsSent: app.engine.pipeline.stats.cancelsSent,
      accepted: app.engine.pipeline.stats.accepted,
      rejected: app.engine.pipeline.stats.rejected,
      unknown: app.engine.pipeline.stats.unknown,
      riskRejected: app.engine.stats.riskRejections,
    },
    limiter: calls.usage(endpointLimits(config.venue.limits, config.venue.limitShare)),
    strategies: opts.strategies.map((s) => s.entry.id),
    ...(opts.tapeName ? { tape: opts.tapeName } : {}),
    ...(incidents ? { incidents: played(sim) } : {}),
    refusals: app.engine.stats.refusedBy,
    ...(app.engine.exits ? { exits: app.engine.exits.counts } : {}),
    ...(app.engine.lossLimits?.hits.length ? { lossLimitHits: [...app.engine.lossLimits.hits] } : {}),
    ...(app.engine.disabledStrategies().length > 0 ? { disabled: [...app.engine.disabledStrategies()] } : {}),
    config: {
      seed: config.sim.seed,
      latencyMs: `${config.sim.latencyMs.min}-${config.sim.latencyMs.max}`,
      fees: `maker ${config.sim.fees.maker}, taker ${config.sim.fees.taker}`,
      strategies: opts.strategies.map((s) => `${s.entry.id}: ${s.entry.use} ${JSON.stringify(s.entry.params)}`),
    },
  };
  // Traded symbols the tape holds no market data for trade the simulator's own synthetic market.
  const untaped = feed.count === 0 ? [] : app.engine.activeSymbols().filter((s) => !taped.seen.has(`${s.market}:${s.symbol}`)).map((s) => `${s.market} ${s.symbol}`);
  if (untaped.length > 0) input.untaped = untaped;
  return { report: buildReport(input), input, events: feed.count, untaped, app, sim };
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
  // A mismatch surfaces inside whichever engine loop made the request, which logs and goes on;
  // the first one is kept here and fails the replay.
  const transport = (m: Market) => ({
    send: (request: Parameters<ReplayTransport['send']>[0]) =>
      replays
        .get(m)!
        .send(request)
        .catch((err: unknown) => {
          if (err instanceof TapeMismatchError && clock.now() <= stopAt) onError(err);
          throw err;
        }),
  });
  const app = buildApp({ config, profile: replay(config, transport, clock), strategies: opts.strategies, log: opts.log });
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

/** The market:SYMBOL pairs the tape fed (recorded candles alone move no market); the last one apart, as events come a symbol at a time. */
interface Taped {
  seen: Set<string>;
  market?: string;
  symbol?: string;
}

function apply(sim: SimExchange, e: TapeMarketEvent, taped: Taped): void {
  if (e.event.type !== 'klines' && (e.event.symbol !== taped.symbol || e.market !== taped.market)) {
    taped.symbol = e.event.symbol;
    taped.market = e.market;
    taped.seen.add(`${e.market}:${e.event.symbol.toUpperCase()}`);
  }
  try {
    sim.applyMarketEvent(e.event);
  } catch (err) {
    // A symbol the simulator does not list, or a price finer than its tick: the tape and the
    // simulator's instruments disagree, which no strategy result could survive.
    throw new TapeEventError(`tape event at ${new Date(e.at).toISOString()} (${e.market} ${e.event.symbol}) cannot be applied: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The recorded incidents of a window: one before its start would meet the first request as if
 * due, so only those at or after it, and a ban still on at it; none after its end.
 */
function inWindow(incidents: readonly RecordedIncident[], start: number, to: number | undefined): readonly RecordedIncident[] {
  return incidents.filter((i) => (i.at >= start || (i.until ?? i.at) > start) && i.at <= (to ?? Infinity));
}

const iso = (at: number) => new Date(at).toISOString();

/** The recorded incidents the simulator was given, and those a request of the run met. */
function played(sim: SimExchange): NonNullable<ReportInput['incidents']> {
  const { given, played } = sim.troubles.incidents();
  return { onTape: given, played };
}

/** Every market a strategy trades, symbols in upper case. */
function tradedMarkets(strategies: readonly LoadedStrategy[]): Array<{ market: Market; symbol: string }> {
  return strategies.flatMap((s) => s.entry.symbols.map((symbol) => ({ market: s.entry.market, symbol: symbol.toUpperCase() })));
}

/**
 * The asset the report counts in: the quote asset the venue lists for the strategies' first
 * spot symbol (a futures contract's margin coin when they trade none).
 */
/** The balances the strategies trade with: the spot account, the futures wallet, or both. */
function accountsTraded(sim: SimExchange, traded: ReadonlyArray<{ market: Market }>): { asset: string; free: Decimal; locked: Decimal }[] {
  const accounts = traded.some((t) => t.market === 'spot') ? sim.balances() : [];
  if (!traded.some((t) => t.market === 'futures')) return accounts;
  const wallet = sim.futuresState();
  return [...accounts, { asset: wallet.coin, free: wallet.available, locked: wallet.locked }];
}

function quoteAsset(sim: SimExchange, traded: ReadonlyArray<{ market: Market; symbol: string }>): string {
  const spot = traded.find((t) => t.market === 'spot' && sim.symbols.has(t.symbol));
  if (spot) return sim.symbols.get(spot.symbol)!.quoteAsset;
  const contract = traded.find((t) => t.market === 'futures' && sim.contracts.has(t.symbol));
  if (contract) return sim.contracts.get(contract.symbol)!.marginCoin;
  const listed = [...sim.symbols.values()][0];
  if (!listed) throw new RangeError('the simulator lists no spot symbol: the report has no asset to count in');
  return listed.quoteAsset;
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
      out[endpoint] = { requests: sent.length, limit: limits[endpoint] ?? 0, peakInWindow: busiestWindow(sent, WINDOW_MS), waitedMs };
    }
    return out;
  }
}
