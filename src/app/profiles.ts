// The named wirings. A profile says, in one value, where the venue is, which journal and
// pacer the engine gets, whether a tape is recorded and whether orders may leave at all.
// Commands pick a profile; only build.ts turns one into parts.
import { amend } from '../core/amend.js';
import { seededRandom, systemClock, type Clock, type ManualClock, type Random } from '../core/clock.js';
import type { Transport } from '../core/ports.js';
import type { Market } from '../core/types.js';
import type { Config } from '../config/index.js';
import type { Credentials } from '../executor/index.js';
import type { JsonValue } from '../exchange/json.js';
import { PREHISTORY_MS, SimExchange, type ContractSpec, type RecordedIncident, type SymbolSpec } from '../sim/index.js';

export type ProfileName = 'live' | 'paper' | 'backtest' | 'replay' | 'inspect';

export type VenueChoice =
  /** The venue's REST API over HTTP (venue.spotUrl, venue.futuresUrl), keys from the environment. */
  | { kind: 'http' }
  /**
   * A simulated exchange in this process (its own keys). `trusted`: it takes the caller on its
   * key and hands answers over parsed (SimTransport), so nothing is signed or written as JSON.
   */
  | { kind: 'sim'; sim: SimExchange; trusted?: boolean }
  /** Answers from somewhere else than a venue (a tape being replayed); nothing checks the keys. */
  | { kind: 'transport'; transport: (market: Market) => Transport; credentials: Credentials };

export interface Profile {
  name: ProfileName;
  venue: VenueChoice;
  clock: Clock;
  /**
   * durable: the SQLite journal at journal.path, locked for this process. read-only: that
   * journal opened without lock or write (beside a running daemon). memory: one that ends with
   * the process (a fresh simulator, a backtest, a throwaway for commands that must not write).
   */
  journal: 'durable' | 'read-only' | 'memory';
  /** The memory journal forgets final orders, with their fills, this long after they end (MemoryJournalOptions.keep). */
  journalKeepMs?: number;
  /** Bottleneck on the wall clock, or the virtual pacer whose slots free by clock arithmetic. */
  pacer: 'bottleneck' | 'virtual';
  /** Write the session to record.path when the config asks for it. */
  record: boolean;
  /** send: orders reach the venue. dry-run: a gateway that sends nothing (plan, status, doctor). */
  orders: 'send' | 'dry-run';
  /** Retry jitter; backtests and replays seed it so a run repeats exactly. */
  random?: Random;
  /** More for the tape header (a backtest writes when it stops, so a replay stops there too). */
  tapeMeta?: Record<string, JsonValue>;
  /** Overrides venue.retry.retries (the doctor: an unreachable venue fails fast). */
  retries?: number;
}

/**
 * The simulated venue the config's `sim` section describes; its timed troubles count from `start`.
 * `keepMs`: how long it keeps final orders and trades (SimOptions.keepMs); the whole run without.
 * `moving`: the symbols whose synthetic market moves (SimOptions.moving); all without.
 * `incidents`: the troubles a tape recorded, played at their recorded times (SimOptions.incidents).
 */
export function simFromConfig(
  sim: Config['sim'],
  clock: Clock,
  start: number,
  opts: { keepMs?: number; moving?: readonly string[]; symbols?: readonly SymbolSpec[]; contracts?: readonly ContractSpec[]; incidents?: readonly RecordedIncident[] } = {},
): SimExchange {
  return new SimExchange(
    amend(opts, {
      profile: sim.profile,
      balances: sim.balances,
      futuresBalance: sim.futuresBalance,
      seed: sim.seed,
      clock,
      futuresPositionModel: sim.futuresPositionModel,
      latencyMs: sim.latencyMs,
      faults: sim.faults,
      banMs: sim.banMs,
      fees: sim.fees,
      troubles: sim.scenario.map((t) => ({ kind: t.kind, from: start + t.atMs, until: start + t.atMs + t.durationMs, skewMs: t.skewMs })),
    }),
  );
}

/** Real money: the venue over HTTP, the durable journal, Bottleneck pacing. */
export function live(clock: Clock = systemClock): Profile {
  return { name: 'live', venue: { kind: 'http' }, clock, journal: 'durable', pacer: 'bottleneck', record: true, orders: 'send' };
}

/** No money: a fresh simulated exchange in this process, a journal in memory, real-time pacing. */
export function paper(config: Config, clock: Clock = systemClock): Profile {
  const sim = simFromConfig(config.sim, clock, clock.now(), { keepMs: PAPER_KEEP_MS });
  // Hours of market before now, as a live venue has: klines warm-ups are met at start.
  sim.prehistory(PREHISTORY_MS);
  return { name: 'paper', venue: { kind: 'sim', sim }, clock, journal: 'memory', journalKeepMs: PAPER_JOURNAL_KEEP_MS, pacer: 'bottleneck', record: true, orders: 'send' };
}

/** A paper daemon runs for days: its venue keeps an hour of final orders and trades, not every one (sim/history.ts). */
const PAPER_KEEP_MS = 3_600_000;
/**
 * Its journal forgets final orders two hours after they end: after the venue has forgotten
 * them and their trades (PAPER_KEEP_MS), so no trade the reconciler reads can be one forgotten.
 */
const PAPER_JOURNAL_KEEP_MS = 2 * PAPER_KEEP_MS;

/** What `sluice run` trades: live with credentials (mode: live), paper otherwise. */
export function daemon(config: Config, clock: Clock = systemClock): Profile {
  return config.mode === 'live' ? live(clock) : paper(config, clock);
}

/**
 * A backtest: the simulator `sim` (whose market a tape drives) on a manual clock, virtual
 * pacing, seeded retries. It records a tape when the config asks, so a replay can check it.
 * The simulator is trusted (no signatures, no JSON text) unless `trusted` is false, which sends
 * every request as it would go over a wire: the same report either way.
 */
export function backtest(config: Config, sim: SimExchange, clock: ManualClock, tapeMeta: Record<string, JsonValue>, trusted = true): Profile {
  return { name: 'backtest', venue: { kind: 'sim', sim, trusted }, clock, journal: 'memory', pacer: 'virtual', record: true, orders: 'send', random: seededRandom(config.sim.seed), tapeMeta };
}

/** A replay: every request answered from a tape by `transport`, on a manual clock; nothing is recorded. */
export function replay(config: Config, transport: (market: Market) => Transport, clock: ManualClock): Profile {
  return {
    name: 'replay',
    // Placeholders: replay answers from the tape and checks no signature (these strings are
    // scrubbed from errors like real ones, so they must not be words that appear in paths).
    venue: { kind: 'transport', transport, credentials: { apiKey: 'replay-placeholder-key-0000', apiSecret: 'replay-placeholder-secret-0000' } },
    clock,
    journal: 'memory',
    pacer: 'virtual',
    record: false,
    orders: 'send',
    random: seededRandom(config.sim.seed),
  };
}

/**
 * Looking without touching: the configured venue, reads only (orders go to a gateway that sends
 * nothing), no tape. `read-only` opens the real journal beside a running daemon (status);
 * `memory` uses a throwaway one (plan, doctor).
 */
export function inspect(config: Config, journal: 'read-only' | 'memory', opts: { retries?: number; clock?: Clock } = {}): Profile {
  const clock = opts.clock ?? systemClock;
  const venue: VenueChoice = config.mode === 'live' ? { kind: 'http' } : { kind: 'sim', sim: simFromConfig(config.sim, clock, clock.now()) };
  return { name: 'inspect', venue, clock, journal, pacer: 'bottleneck', record: false, orders: 'dry-run', retries: opts.retries };
}
