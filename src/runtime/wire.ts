// The one composition root. Live, paper and backtest call wire() with a different transport
// and clock; nothing else in sluice asks which mode it is in.
import type { Logger } from 'pino';
import type { Clock, Random } from '../core/clock.js';
import type { Journal, Pacer, Transport } from '../core/ports.js';
import type { SymbolInfo } from '../core/market.js';
import type { Market } from '../core/types.js';
import type { Config } from '../config/index.js';
import { existsSync } from 'node:fs';
import { BannedError } from '../core/errors.js';
import { WINDOW_MS } from '../exchange/endpoints.js';
import { accountReaders, marketReaders, OrderGateway, type CallRecord, type Credentials } from '../executor/index.js';
import { RecordingTransport, TapeWriter } from '../tape/index.js';
import type { JsonValue } from '../exchange/json.js';
import { SimExchange, SimTransport } from '../sim/index.js';
import { MemoryJournal } from '../store/memory.js';
import { lockJournal } from '../store/lock.js';
import { SqliteJournal } from '../store/sqlite.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { createExchangeClient, type ExchangeClient } from './client.js';
import { Engine, type EngineDeps } from './engine.js';
import { createDispatcher, createPositionLedger, createRiskGate, toBatches } from './parts.js';

export interface WireOptions {
  config: Config;
  credentials?: Credentials;
  strategies: readonly LoadedStrategy[];
  clock: Clock;
  log: Logger;
  journal?: Journal;
  /** Backtests pass a virtual-time pacer; live and paper use Bottleneck. */
  pacer?: Pacer;
  /** More for the tape header (a backtest writes when it stops, so a replay stops there too). */
  tapeMeta?: Record<string, JsonValue>;
  /** Replay: behave as the recorded config says (its market polling included) but write no tape. */
  noRecording?: boolean;
  /** Retry jitter; backtests seed it so a run repeats exactly. */
  random?: Random;
  /** Every venue call, for metrics and backtest figures. */
  onCall?: (record: CallRecord) => void;
  /** Operator notifications (the daemon's webhook). */
  alert?: EngineDeps['alert'];
  /** Overrides the venue (recording and replay wrap or replace it). */
  transport?: (market: Market) => Transport;
}

export interface App {
  engine: Engine;
  client: ExchangeClient;
  journal: Journal;
  /** The in-process simulated exchange in paper mode. */
  sim?: SimExchange;
  riskGate: ReturnType<typeof createRiskGate>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A tape never overwrites an earlier one: an existing path gets the start time before its extension. */
export function freeTapePath(path: string, now: number): string {
  if (!existsSync(path)) return path;
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const m = /^(.*?)(\.jsonl(?:\.gz)?|\.[^./]*)?$/.exec(path)!;
  return `${m[1]}-${stamp}${m[2] ?? ''}`;
}

/** The simulated venue the config's `sim` section describes; its timed troubles count from `start`. */
export function simFromConfig(sim: Config['sim'], clock: Clock, start: number): SimExchange {
  return new SimExchange({
    profile: sim.profile,
    seed: sim.seed,
    clock,
    futuresPositionModel: sim.futuresPositionModel,
    latencyMs: sim.latencyMs,
    faults: sim.faults,
    banMs: sim.banMs,
    fees: sim.fees,
    troubles: sim.scenario.map((t) => ({ kind: t.kind, from: start + t.atMs, until: start + t.atMs + t.durationMs, skewMs: t.skewMs })),
  });
}

export function wire(opts: WireOptions): App {
  const { config, clock, log } = opts;
  let sim: SimExchange | undefined;
  let transport = opts.transport;
  let credentials = opts.credentials;
  if (config.mode === 'paper' && !transport) {
    sim = simFromConfig(config.sim, clock, clock.now());
    const inProcess = new SimTransport(sim);
    transport = () => inProcess;
    credentials = { apiKey: sim.apiKey, apiSecret: sim.apiSecret };
  }
  // Recording wraps whichever venue this is (HTTP or the in-process simulator).
  const secrets = credentials ? [credentials.apiKey, credentials.apiSecret] : [];
  const tape = config.record.path && !opts.noRecording
    ? new TapeWriter(freeTapePath(config.record.path, clock.now()), { gzip: config.record.gzip, startedAt: clock.now(), meta: { config: config as unknown as JsonValue, ...opts.tapeMeta }, secrets })
    : undefined;
  let journal: Journal | undefined;
  const client = createExchangeClient({
    wrap: tape ? (market, t) => new RecordingTransport(t, market, tape, clock, secrets) : undefined,
    onCall: (record) => {
      // A ban heard on any endpoint (reads too) is journaled: a restart during it waits it out.
      if (record.error instanceof BannedError) journalBan(record.error.untilMs);
      opts.onCall?.(record);
    },
    random: opts.random,
    spotUrl: config.venue.spotUrl ?? undefined,
    futuresUrl: config.venue.futuresUrl ?? undefined,
    transport,
    credentials,
    clock,
    pacer: opts.pacer,
    recvWindowMs: config.venue.recvWindowMs,
    safetyMarginMs: config.venue.safetyMarginMs,
    limits: config.venue.limits,
    retry: config.venue.retry,
    clockSyncIntervalMs: config.venue.clockSyncIntervalMs,
    timeouts: config.venue.timeouts,
    maxResponseBytes: config.venue.maxResponseBytes,
  });
  // Paper mode trades an in-process venue that starts fresh each run, so its journal lives in
  // memory too; live orders are journaled durably before they are sent.
  const lock = !opts.journal && config.mode === 'live' ? lockJournal(config.journal.path) : undefined;
  try {
    journal = opts.journal ?? (config.mode === 'live' ? SqliteJournal.open(config.journal.path, { now: () => clock.now(), firstSequence: () => clock.now() }) : new MemoryJournal());
  } catch (err) {
    lock?.release();
    throw err;
  }
  const journaled: Journal = journal;
  const journalBan = (untilMs: number) => {
    try {
      journaled.setBanUntil(untilMs);
    } catch {
      // A read-only journal (sluice status beside a daemon) keeps no ban; the daemon's does.
    }
  };
  const riskGate = createRiskGate(config.risk);
  const instruments = new Map<string, SymbolInfo>();
  // Positions derive from fills only: the engine rebuilds them from the journal once it knows
  // the instruments (and so each symbol's quote asset).
  const positions = createPositionLedger((market, symbol) => instruments.get(`${market}:${symbol}`)?.quoteAsset);
  const engine = new Engine({
    executor: client.executor,
    gateway: new OrderGateway(client.executor),
    readers: accountReaders(client.executor),
    marketData: marketReaders(client.executor),
    venueClock: client.venueClock,
    pacer: client.pacer,
    clock,
    log,
    journal: journaled,
    strategies: opts.strategies,
    risk: riskGate,
    positions,
    dispatcher: createDispatcher(),
    toBatches,
    settings: {
      marketDataEveryMs: config.engine.marketDataEveryMs,
      reconcileEveryMs: config.engine.reconcileEveryMs,
      summaryEveryMs: config.engine.summaryEveryMs,
      shutdown: config.engine.shutdown,
      maxQueueMs: config.engine.maxQueueMs,
      recordMarketData: config.record.path !== null,
      reconcile: config.reconcile,
    },
    instruments,
    alert: opts.alert,
  });
  return {
    engine,
    client,
    journal: journaled,
    sim,
    riskGate,
    async start() {
      // A ban survives restarts: never hammer a venue that banned us.
      const banUntil = journaled.banUntil();
      if (banUntil > clock.now()) {
        log.warn({ until: new Date(banUntil).toISOString() }, 'the venue banned this key; waiting for the ban to end');
        client.pacer.pauseAll(banUntil);
        await clock.sleep(banUntil - clock.now());
      }
      holdWindowsOfLastRun(journaled, client.pacer, clock.now(), WINDOW_MS + config.venue.safetyMarginMs, log);
      journaled.setCursor(RUN_STARTED, String(clock.now()));
      await client.start();
      await engine.start();
    },
    async stop() {
      await engine.stop();
      await client.close();
      await tape?.close();
      journaled.setCursor(RUN_STOPPED, String(clock.now()));
      journaled.close();
      lock?.release();
    },
  };
}

/** Journal markers of the last run's start and clean stop (epoch ms). */
const RUN_STARTED = 'run:startedAt';
const RUN_STOPPED = 'run:stoppedAt';

/**
 * The venue still counts the last run's requests for a window after they left, and a new
 * limiter starts empty. A run that stopped cleanly sent nothing after its stop mark; one that
 * did not (killed, crashed) may have sent anything up to now, on any endpoint. Every endpoint
 * then waits until those requests have left the window. Reads come first at start-up, so no
 * order could leave sooner anyway.
 */
function holdWindowsOfLastRun(journal: Journal, pacer: Pacer, now: number, spanMs: number, log: Logger): void {
  const started = Number(journal.cursor(RUN_STARTED) ?? NaN);
  if (Number.isNaN(started)) return; // no run before this one
  const stopped = Number(journal.cursor(RUN_STOPPED) ?? NaN);
  const lastSent = Number.isNaN(stopped) || stopped < started ? now : stopped;
  const waitMs = lastSent + spanMs - now;
  if (waitMs <= 0) return;
  for (const endpoint of Object.keys(pacer.usage())) pacer.pauseEndpoint(endpoint, waitMs);
  log.info({ waitMs, lastRun: lastSent === now ? 'did not stop cleanly' : 'stopped moments ago' }, "waiting for the venue's rate windows to forget the last run's requests");
}
