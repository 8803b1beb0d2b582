// The one composition root: a profile (profiles.ts) and the config become the parts the
// engine runs on. Nothing else in sluice constructs an engine, a pipeline or a journal for it.
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { amend } from '../core/amend.js';
import { BannedError } from '../core/errors.js';
import type { AccountReader, Journal, JournalWriteFailure, Pacer } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { Config } from '../config/index.js';
import { Engine, type AlertKind, type StopOutcome } from '../engine/engine.js';
import { InstrumentCatalog, requirementsOf } from '../engine/instruments.js';
import { MarketDataPoller } from '../engine/market-data.js';
import { OrderPipeline } from '../engine/pipeline.js';
import { quietRepeats } from '../engine/repeats.js';
import { endpointLimits } from '../exchange/endpoints.js';
import { accountReaders, DryRunGateway, marketReaders, OrderGateway, type CallRecord, type Credentials } from '../executor/index.js';
import { BottleneckPacer, VirtualPacer } from '../limiter/index.js';
import { PositionBook } from '../positions/index.js';
import { bookableForMs } from '../core/venue.js';
import { Reconciler } from '../reconciler/poller.js';
import { MatchingClock } from '../reconciler/matching-clock.js';
import { BalanceHolds, RiskGate } from '../risk/index.js';
import { SimTransport, type SimExchange } from '../sim/index.js';
import { lockJournal } from '../store/lock.js';
import { MemoryJournal } from '../store/memory.js';
import { SequenceAllocator } from '../store/sequences.js';
import { SCHEMA_VERSION, SqliteJournal } from '../store/sqlite.js';
import type { LoadedStrategy } from '../strategy/index.js';
import { RecordingTransport, TapeWriter } from '../tape/index.js';
import { createExchangeClient, type ExchangeClient } from './client.js';
import type { Profile } from './profiles.js';
import { holdWindowsOfLastRun, markRunStarted, markRunStopped } from './run-markers.js';

export interface AppInputs {
  config: Config;
  profile: Profile;
  strategies: readonly LoadedStrategy[];
  log: Logger;
  /** The keys for an HTTP venue (from the environment); a simulator and a replay bring their own. */
  credentials?: Credentials;
  /** A journal already open, instead of the profile's (tests that restart on one journal). */
  journal?: Journal;
  /** Every venue call, for metrics, the doctor and backtest figures. */
  onCall?: (record: CallRecord) => void;
  /** Where strategies' ctx.log goes, when not `log`. */
  pluginLog?: Logger;
  /** Operator notifications (the daemon's webhook). */
  alert?: (kind: AlertKind, message: string, details: Record<string, unknown>) => void;
}

export interface App {
  profile: Profile;
  engine: Engine;
  client: ExchangeClient;
  journal: Journal;
  /** The simulated exchange, when the profile trades one. */
  sim?: SimExchange;
  riskGate: RiskGate;
  /** The account reads of each market (status compares them with the journal). */
  readers: Readonly<Record<Market, AccountReader>>;
  /** What the dry-run gateway was handed (profiles with orders: 'dry-run'). */
  dryRun?: DryRunGateway;
  start(): Promise<void>;
  /** Resolves with the orders of ours the stop left unsettled (the engine alerted them). */
  stop(): Promise<StopOutcome>;
  /** A stop under way ends its waits now (Engine.hurry): a second signal. */
  hurry(): void;
}

/**
 * Where a recording goes: `path`, with .gz added to a gzip tape's name that lacks it (zcat and
 * any reader by name expect it), and never over an earlier tape: an existing path gets the start
 * time before its extension.
 */
export function tapeFile(configured: string, gzip: boolean, now: number): string {
  const path = gzip && !configured.endsWith('.gz') ? `${configured}.gz` : configured;
  if (!existsSync(path)) return path;
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const m = /^(.*?)(\.jsonl(?:\.gz)?|\.[^./]*)?$/.exec(path)!;
  // A backtest's start is the tape's, the same each run: its recordings are numbered after the first.
  for (let n = 1; ; n++) {
    const stamped = `${m[1]}-${stamp}${n === 1 ? '' : `-${n}`}${m[2] ?? ''}`;
    if (!existsSync(stamped)) return stamped;
  }
}

export function buildApp(inputs: AppInputs): App {
  const { config, profile, log } = inputs;
  const { clock, venue } = profile;
  const sim = venue.kind === 'sim' ? venue.sim : undefined;
  const credentials = venue.kind === 'sim' ? { apiKey: venue.sim.apiKey, apiSecret: venue.sim.apiSecret } : venue.kind === 'transport' ? venue.credentials : inputs.credentials;
  const secrets = credentials ? [credentials.apiKey, credentials.apiSecret] : [];
  // Recording wraps whichever venue this is (HTTP or the in-process simulator).
  const tape = profile.record && config.record.path ? openTape(config.record.path, inputs, secrets) : undefined;
  const limits = endpointLimits(config.venue.limits, config.venue.limitShare);
  const pacer: Pacer =
    profile.pacer === 'virtual'
      ? new VirtualPacer({ limits, safetyMarginMs: config.venue.safetyMarginMs, clock })
      : new BottleneckPacer({ limits, safetyMarginMs: config.venue.safetyMarginMs, clock });
  const inProcess = sim ? new SimTransport(sim, undefined, { trusted: venue.kind === 'sim' && venue.trusted === true }) : undefined;
  const { lock, journal } = openJournal(inputs.journal ?? profile.journal, config, profile, inputs);
  journal.watchWrites((failure) => tellJournalHealth(failure, inputs));
  const journalBan = (untilMs: number) => {
    // A read-only journal (sluice status beside a daemon) keeps no ban; the daemon's does.
    if (profile.journal !== 'read-only') journal.setBanUntil(untilMs);
  };
  const client = createExchangeClient({
    wrap: tape ? (market, t) => new RecordingTransport(t, market, tape, clock, secrets) : undefined,
    onCall: (record) => {
      // A ban heard on any endpoint (reads too) is journaled: a restart during it waits it out.
      if (record.error instanceof BannedError) journalBan(record.error.untilMs);
      inputs.onCall?.(record);
    },
    random: profile.random,
    spotUrl: config.venue.spotUrl ?? undefined,
    futuresUrl: config.venue.futuresUrl ?? undefined,
    transport: inProcess ? () => inProcess : venue.kind === 'transport' ? venue.transport : undefined,
    credentials,
    clock,
    pacer,
    recvWindowMs: config.venue.recvWindowMs,
    retry: profile.retries === undefined ? config.venue.retry : { ...config.venue.retry, retries: Math.min(profile.retries, config.venue.retry.retries) },
    clockSyncIntervalMs: config.venue.clockSyncIntervalMs,
    timeouts: config.venue.timeouts,
    maxResponseBytes: config.venue.maxResponseBytes,
    connections: config.venue.connections,
    onNoTimeEndpoint: (endpoint, reason) =>
      log.warn({ endpoint, reason }, 'the venue has no time endpoint: requests are signed with this host\'s clock (keep it NTP-synced; the venue takes 1 s ahead to recvWindow behind)'),
  });

  const riskGate = new RiskGate({ ...config.risk, killSwitch: { mode: config.risk.killSwitch.mode } });
  const holds = new BalanceHolds(() => bookableForMs(config.venue.recvWindowMs, client.venueClocks.spot.errorMs()));
  const markets = marketReaders(client.executor);
  const readers = accountReaders(client.executor);
  // Positions derive from fills only: the engine rebuilds them from the journal once the
  // catalog knows each symbol's quote asset and contract size.
  let instruments: InstrumentCatalog | undefined;
  const positions = new PositionBook({ quoteAssetOf: (market, symbol) => instruments?.get(market, symbol)?.quoteAsset });
  // A read-only look (sluice status) shows what is there; anything that trades refuses to start on a symbol the venue does not list.
  const required = profile.journal === 'read-only' ? undefined : requirementsOf(config.strategies, inputs.strategies);
  instruments = new InstrumentCatalog(markets, log, (symbol, multiplier) => positions.setMultiplier('futures', symbol, multiplier), required);
  // Failures that repeat every poll or pass (a feed, a symbol's reconcile) are logged once, then counted.
  const quiet = quietRepeats(log, () => clock.now());
  const dryRun = profile.orders === 'dry-run' ? new DryRunGateway() : undefined;
  const gateway = dryRun ?? new OrderGateway(client.executor, log);
  const matchingClock = new MatchingClock();
  const engine = new Engine({
    clock,
    log,
    journal,
    pacer,
    strategies: inputs.strategies,
    risk: riskGate,
    holds,
    positions,
    instruments,
    // Whether a candle has closed is read against the venue's clock, never ours alone.
    marketData: new MarketDataPoller(markets, quiet, (market) => client.venueClocks[market].earliestNow(), () => clock.now()),
    sequences: new SequenceAllocator(journal),
    pipeline: ({ notify, riskInputs, cancelFailed }) =>
      new OrderPipeline({
        gateway,
        pacer,
        clock,
        log,
        journal,
        risk: riskGate,
        holds,
        notify,
        riskInputs,
        cancelFailed,
        maxQueueMs: config.engine.maxQueueMs,
        placedBetween: (id, from, to) => matchingClock.placed(id, from, to),
      }),
    reconciler: (hooks) =>
      new Reconciler(
        amend(hooks, {
          readers,
          journal,
          positions,
          clock,
          venueClock: () => ({ offsetMs: client.venueClocks.spot.offsetMs(), errorMs: client.venueClocks.spot.errorMs() }),
          matchingClock,
          recvWindowMs: config.venue.recvWindowMs,
          carrierOf: (id: string) => gateway.carrierOf(id),
          log: quiet,
          instruments: instruments.byKey,
          settings: config.reconcile,
        }),
      ),
    settings: {
      marketDataEveryMs: config.engine.marketDataEveryMs,
      reconcileEveryMs: config.engine.reconcileEveryMs,
      summaryEveryMs: config.engine.summaryEveryMs,
      handlerTimeoutMs: config.engine.handlerTimeoutMs,
      shutdown: config.engine.shutdown,
      onStrategyFailure: config.engine.onStrategyFailure,
      recordMarketData: config.record.path !== null,
      reconcile: config.reconcile,
    },
    alert: inputs.alert,
    ...(inputs.pluginLog ? { pluginLog: inputs.pluginLog } : {}),
    setLeverage: (contract, level) => gateway.setLeverage(contract, level),
  });
  let stopping = false;
  let askStop!: () => void;
  const stopAsked = new Promise<void>((resolve) => (askStop = resolve));
  return {
    profile,
    engine,
    client,
    journal,
    sim,
    riskGate,
    readers,
    dryRun,
    async start() {
      holdWindowsOfLastRun(journal, pacer, clock.now(), config.venue.safetyMarginMs, log);
      markRunStarted(journal, clock.now());
      // A ban survives restarts: never hammer a venue that banned us. A ban heard while starting
      // (the clock sync's first request) is waited out here, in the process, so a ban the venue
      // did not time keeps lengthening as it repeats (executor.ts) rather than restarting at 2
      // minutes with each restart. A stop during the wait ends the start at once.
      for (;;) {
        const banUntil = journal.banUntil();
        if (banUntil > clock.now()) {
          log.warn({ until: new Date(banUntil).toISOString() }, 'the venue banned this key; waiting for the ban to end');
          pacer.pauseAll(banUntil);
          await Promise.race([clock.sleep(banUntil - clock.now()), stopAsked]);
        }
        if (stopping) return;
        try {
          await client.start();
          break;
        } catch (err) {
          if (!(err instanceof BannedError) || stopping) throw err;
        }
      }
      if (!stopping) await engine.start();
    },
    async stop() {
      stopping = true;
      askStop();
      const outcome = await engine.stop();
      await client.close();
      // A tape that failed was reported when it did (openTape); the stop still finishes.
      await tape?.close().catch(() => undefined);
      markRunStopped(journal, clock.now());
      journal.close();
      lock?.release();
      return outcome;
    },
    hurry: () => engine.hurry(),
  };
}

/**
 * The tape this run records. Its header holds the config a replay re-runs, without the alerts
 * section, whose webhook URL may carry the receiver's token (tapes are shared, and a sweep puts
 * them in Redis). A write error stops the recording, never the trading, and is said at once.
 */
function openTape(path: string, inputs: AppInputs, secrets: string[]): TapeWriter {
  const { config, profile, log } = inputs;
  const now = profile.clock.now();
  const file = tapeFile(path, config.record.gzip, now);
  const recorded = amend(config, { alerts: amend(config.alerts, { webhookUrl: null }) });
  const onError = (err: Error) => {
    const message = `recording stopped: the tape ${file} could not be written (${err.message}); trading goes on, unrecorded`;
    log.error({ tape: file, err: err.message }, message);
    inputs.alert?.('recording', message, { tape: file, error: err.message });
  };
  return new TapeWriter(file, { gzip: config.record.gzip, startedAt: now, meta: { config: recorded as never, ...profile.tapeMeta }, secrets, onError });
}

/** The profile's journal: live orders are journaled durably (and locked) before they are sent. */
function openJournal(choice: Profile['journal'] | Journal, config: Config, profile: Profile, inputs: AppInputs): { journal: Journal; lock?: { release(): void } } {
  if (typeof choice !== 'string') return { journal: choice };
  if (choice === 'memory') return { journal: new MemoryJournal(profile.journalKeepMs ? { keep: { ms: profile.journalKeepMs, now: () => profile.clock.now() } } : {}) };
  // No lock and no write: status must work while the daemon runs, even one of another version.
  if (choice === 'read-only') return { journal: SqliteJournal.open(config.journal.path, { readOnly: true }) };
  const lock = lockJournal(config.journal.path);
  try {
    const now = () => profile.clock.now();
    const journal = SqliteJournal.open(config.journal.path, { now, firstSequence: now });
    if (journal.migratedFrom) inputs.log.warn({ journal: journal.path, from: journal.migratedFrom, to: SCHEMA_VERSION }, `journal migrated from schema ${journal.migratedFrom} to ${SCHEMA_VERSION}: a sluice older than this one can no longer open it`);
    return { lock, journal };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Writes that fail stop all placing (nothing leaves unjournaled): said loudly, and again when they work. */
function tellJournalHealth(failure: JournalWriteFailure | undefined, inputs: AppInputs): void {
  if (failure) {
    const message = `the journal takes no writes (${failure.message}): no order is placed until it does; cancels still go`;
    inputs.log.error({ alert: 'journal' }, message);
    inputs.alert?.('journal', message, { since: failure.since });
  } else {
    const message = 'the journal takes writes again: orders are placed again';
    inputs.log.warn({ alert: 'journal' }, message);
    inputs.alert?.('journal', message, { recovered: true });
  }
}
