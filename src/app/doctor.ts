// The doctor's checks: what a deployment most often gets wrong, one line each (OK, WARN or
// FAIL, with a fix when not OK): the clock against the venue's, the credentials, rate-limit
// headroom and the journal. Read-only throughout: the journal is never opened for writing (a
// damaged one must stay as it is for forensics) and no tape is written.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import { systemClock } from '../core/clock.js';
import { AuthError, BannedError, ClockSkewError, RateLimitedError, errorText } from '../core/errors.js';
import type { Market } from '../core/types.js';
import { KEY_VAR, SECRET_VAR, type Config, type Credentials } from '../config/index.js';
import { VenueCode } from '../exchange/codes.js';
import { endpointLimits, WINDOW_MS, type EndpointId } from '../exchange/endpoints.js';
import type { CallRecord } from '../executor/index.js';
import { reconcileInterval } from '../reconciler/budget.js';
import { inspectJournal } from '../store/inspect.js';
import { lockState, type LockState } from '../store/lock.js';
import { freeBytes, LOW_SPACE_BYTES, pruneAdvice, writeProblem } from '../store/room.js';
import { SCHEMA_VERSION } from '../store/sqlite.js';
import { buildApp } from './build.js';
import { daemonStatus } from './daemon-probe.js';
import { createLogger } from './logger.js';
import { inspect } from './profiles.js';

export type Verdict = 'OK' | 'WARN' | 'FAIL';

export interface Check {
  name: string;
  verdict: Verdict;
  detail: string;
  /** What to do; given whenever the verdict is not OK. */
  fix?: string;
}

export function formatCheck(c: Check): string {
  return `${c.verdict.padEnd(4)} ${c.name}: ${c.detail}${c.fix ? `. Fix: ${c.fix}` : ''}`;
}

/** The venue refuses a timestamp this far ahead of its own clock (exchange-rest-api.md, Timing). */
const MAX_LEAD_MS = 1000;

/** Every check, in the order they print. */
export async function runChecks(config: Config, credentials: Credentials | undefined, configPath: string, httpToken?: string): Promise<Check[]> {
  const now = systemClock.now();
  const venue = config.mode === 'paper' ? 'the built-in simulated exchange' : (config.venue.spotUrl ?? '(no venue.spotUrl)');
  const checks: Check[] = [{ name: 'config', verdict: 'OK', detail: `${configPath}, mode ${config.mode}, venue ${venue}` }];

  const seen: CallRecord[] = [];
  const secrets = credentials ? [credentials.apiKey, credentials.apiSecret] : [];
  const log = createLogger({ level: 'error', pretty: false, secrets, destination: pino.destination(2) });
  // The inspect profile: reads only, a throwaway journal (the real one is inspected read-only
  // below), no tape, and one retry so an unreachable venue fails fast.
  const app = buildApp({ config, profile: inspect(config, 'memory', { retries: 1 }), credentials, strategies: [], log, onCall: (r) => seen.push(r) });
  const journal = config.mode === 'live' ? journalCheck(resolve(config.journal.path), now) : undefined;
  const bannedUntil = journal?.banUntil ?? 0;
  try {
    if (bannedUntil > now) {
      // The doctor keeps the daemon's promise: no request to a venue that banned this key.
      const detail = `not checked: the journal records a venue ban until ${new Date(bannedUntil).toISOString()}, and nothing is sent before it ends`;
      for (const name of ['clock', 'credentials']) checks.push({ name, verdict: 'WARN', detail, fix: 'run sluice doctor again after the ban' });
    } else {
      const { spot, futures } = app.client.venueClocks;
      checks.push(await clockCheck('clock', spot, 'venue.spotUrl', config.venue.recvWindowMs));
      // Futures on a host of its own signs with that host's clock: checked too.
      if (futures !== spot) checks.push(await clockCheck('futures clock', futures, 'venue.futuresUrl', config.venue.recvWindowMs));
      checks.push(await credentialsCheck(app.client.executor, config, credentials));
    }
  } finally {
    await app.client.close();
  }
  const daemon = (await daemonStatus(config, httpToken))?.limiter as Usage | undefined;
  checks.push(limitsCheck(config, { now, banUntil: bannedUntil, seen, daemon }));
  checks.push(journal?.check ?? { name: 'journal', verdict: 'OK', detail: `paper mode keeps its journal in memory (journal.path ${config.journal.path} is used in live mode only)` });
  return checks;
}

// ---------- clock ----------

async function clockCheck(name: string, venueClock: { sync(): Promise<{ offsetMs: number; roundTripMs: number }> }, urlField: string, recvWindowMs: number): Promise<Check> {
  let sample;
  try {
    sample = await venueClock.sync();
  } catch (err) {
    return { name, verdict: 'FAIL', detail: `the venue's time endpoint did not answer (${errorText(err)})`, fix: `check ${urlField} and that this machine reaches it (DNS, firewall, proxy)` };
  }
  const offset = Math.round(sample.offsetMs);
  const rtt = Math.round(sample.roundTripMs);
  const where = offset >= 0 ? `${offset} ms ahead of` : `${-offset} ms behind`;
  const detail =
    `venue clock is ${where} this machine's (measured over a ${rtt} ms round trip, so within ${Math.ceil(rtt / 2)} ms); ` +
    `the venue takes timestamps from ${MAX_LEAD_MS} ms ahead of its clock to ${recvWindowMs} ms (venue.recvWindowMs) behind it`;
  const fix = 'turn on time sync (timedatectl set-ntp true, or chrony/ntpd) and run sluice doctor again';
  // offset > 0: our timestamps lag the venue's clock (recvWindow applies); offset < 0: they lead it.
  if (offset > recvWindowMs || -offset >= MAX_LEAD_MS) {
    return { name, verdict: 'FAIL', detail: `${detail}: outside that window. sluice signs with the measured venue time, but a clock this far off is not synchronised and drifts between re-syncs (venue.clockSyncIntervalMs)`, fix };
  }
  if (offset > recvWindowMs / 2 || -offset > MAX_LEAD_MS / 2) return { name, verdict: 'WARN', detail: `${detail}: past half of that window`, fix };
  return { name, verdict: 'OK', detail };
}

// ---------- credentials ----------

type AccountCaller = { call(endpoint: 'spot.account' | 'futures.account', params: Record<string, never>): Promise<unknown> };

async function credentialsCheck(executor: AccountCaller, config: Config, credentials: Credentials | undefined): Promise<Check> {
  const name = 'credentials';
  if (config.mode === 'paper') {
    return { name, verdict: 'OK', detail: 'paper mode uses the built-in simulated exchange and its own key; yours are not used or checked here (set mode: live to check them)' };
  }
  if (!credentials) return { name, verdict: 'FAIL', detail: 'live mode but no API key and secret', fix: `set ${KEY_VAR} and ${SECRET_VAR}, or credentials.file (chmod 600)` };
  const from = process.env[KEY_VAR] ? 'the environment' : `credentials.file ${config.credentials.file}`;
  const endpoint = marketsOf(config).includes('spot') ? 'spot.account' : 'futures.account';
  try {
    await executor.call(endpoint, {});
    return { name, verdict: 'OK', detail: `a signed ${endpoint} call was accepted (key and secret from ${from})` };
  } catch (err) {
    const code = err instanceof AuthError ? err.venue.venueCode : undefined;
    const at = `${endpoint}${code !== undefined ? `, code ${code}` : ''}`;
    if (code === VenueCode.INVALID_SIGNATURE) {
      return { name, verdict: 'FAIL', detail: `the venue refused the signature (${at}): the secret does not belong to this key (from ${from})`, fix: `set ${SECRET_VAR} to the secret issued with this key, exactly as shown (case-sensitive, no spaces or quotes)` };
    }
    if (code === VenueCode.REJECTED_API_KEY || code === VenueCode.UNTRUSTED_IP || code === VenueCode.NO_THIS_COMPANY) {
      return { name, verdict: 'FAIL', detail: `the venue refused the API key (${at}): unknown or deleted key, an IP not on its whitelist, a missing permission, or a key of another platform (from ${from})`, fix: `check ${KEY_VAR}, the key's IP whitelist (this machine's public address), its read and trade permissions, and that venue.spotUrl is the platform that issued it` };
    }
    if (err instanceof AuthError) return { name, verdict: 'FAIL', detail: `the venue refused the credentials (${at}: ${errorText(err)})`, fix: `check ${KEY_VAR} and ${SECRET_VAR}` };
    if (err instanceof ClockSkewError) return { name, verdict: 'FAIL', detail: `the venue refused the timestamp even after a clock re-sync (${at})`, fix: 'see the clock line' };
    if (err instanceof BannedError) return { name, verdict: 'FAIL', detail: `the venue bans this key or address (${errorText(err)})`, fix: 'wait for the ban to end; see the limits line' };
    return { name, verdict: 'FAIL', detail: `the signed ${endpoint} call failed (${errorText(err)})`, fix: 'check venue.spotUrl and the network, then run sluice doctor again' };
  }
}

// ---------- limits ----------

type Usage = Record<string, { inWindow: number; limit: number; queued: number }>;

/**
 * Headroom from the configured limits (the venue sends no usage headers; it answers 429 with
 * Retry-After and 418 when it bans), the polling the config asks for, what the venue said to
 * the doctor's own calls, the journal's ban, and a running daemon's limiter when its ops
 * endpoint answers.
 */
export function limitsCheck(config: Config, facts: { now: number; banUntil: number; seen: readonly CallRecord[]; daemon?: Usage }): Check {
  const name = 'limits';
  const limits = endpointLimits(config.venue.limits, config.venue.limitShare);
  const notes: string[] = [];
  if (config.venue.limitShare < 1) notes.push(`venue.limitShare ${config.venue.limitShare}: this daemon takes that share of every limit (other daemons on this key take the rest)`);
  const venueOwn = endpointLimits();
  const lowered = Object.entries(config.venue.limits).map(([id, n]) => `${id} to ${n} (venue ${venueOwn[id as EndpointId]})`);
  if (lowered.length) notes.push(`venue.limits lowers ${lowered.join(', ')}`);

  const banned = facts.seen.map((r) => r.error).find((e): e is BannedError => e instanceof BannedError);
  const banUntil = Math.max(facts.banUntil, banned?.untilMs ?? 0);
  if (banUntil > facts.now) {
    return { name, verdict: 'FAIL', detail: `the venue bans this key until ${new Date(banUntil).toISOString()} (418 after repeated 429s); sluice waits it out`, fix: 'find what broke the limits (sluice_venue_http_429_total per endpoint) and lower venue.limits or the polling before the ban ends' };
  }
  const warnings: string[] = [];
  if (facts.seen.some((r) => r.error instanceof RateLimitedError)) warnings.push("the venue answered 429 to the doctor's own calls: this key is at its limit right now");

  // Market data: one poll per symbol and feed every marketDataEveryMs (a plugin may not subscribe to every feed).
  const perMarket = symbolsByMarket(config);
  const feeds: Record<Market, EndpointId[]> = { spot: ['spot.ticker', 'spot.depth', 'spot.trades', 'spot.klines'], futures: ['futures.ticker', 'futures.depth', 'futures.klines'] };
  let raise = 0;
  for (const [market, symbols] of Object.entries(perMarket) as [Market, number][]) {
    const limit = Math.min(...feeds[market].map((e) => limits[e]));
    const polls = (symbols * WINDOW_MS) / config.engine.marketDataEveryMs;
    const what = `${market} market data ${fmt(polls)} of ${limit} per 2 s per feed (${symbols} symbol${symbols === 1 ? '' : 's'} every ${config.engine.marketDataEveryMs} ms)`;
    if (polls > limit) {
      warnings.push(`${what}: polls will queue and arrive late`);
      raise = Math.max(raise, Math.ceil((symbols * WINDOW_MS) / limit));
    } else notes.push(what);
  }
  // The interval the engine will use: stretched to keep within reconcile.budgetShare.
  const symbols = Object.values(perMarket).reduce((a, b) => a + b, 0);
  const reconcileMs = reconcileInterval(config.engine.reconcileEveryMs, symbols, Object.keys(perMarket) as Market[], (e) => limits[e as EndpointId], config.reconcile.budgetShare);
  if (symbols > 0) notes.push(`reconcile every ${reconcileMs} ms${reconcileMs > config.engine.reconcileEveryMs ? ` (stretched from engine.reconcileEveryMs ${config.engine.reconcileEveryMs} to stay within reconcile.budgetShare)` : ''}`);

  if (facts.daemon && Object.keys(facts.daemon).length) {
    const busiest = Object.entries(facts.daemon).sort(([, a], [, b]) => b.inWindow / b.limit - a.inWindow / a.limit)[0]!;
    notes.push(`running daemon: busiest ${busiest[0]} ${busiest[1].inWindow} of ${busiest[1].limit} in the current window`);
    for (const [id, u] of Object.entries(facts.daemon)) if (u.queued > 0) warnings.push(`the running daemon has ${u.queued} request${u.queued === 1 ? '' : 's'} queued on ${id}`);
  }
  if (warnings.length) {
    const fix = raise > 0 ? `raise engine.marketDataEveryMs to at least ${raise}, or trade fewer symbols per process` : 'lower the polling (engine.marketDataEveryMs, strategies everyMs) or trade fewer symbols per process';
    return { name, verdict: 'WARN', detail: [...warnings, ...notes].join('; '), fix };
  }
  return { name, verdict: 'OK', detail: [...notes, 'no ban'].join('; ') };
}

// ---------- journal ----------

/** The store's own inspection (the rules the daemon opens it by), with the complete integrity check, and who holds its lock. */
function journalCheck(path: string, now: number): { check: Check; banUntil: number } {
  const name = 'journal';
  // Where it cannot be written, the daemon places nothing: FAIL, whatever the file holds.
  const cannot = writeProblem(path);
  if (cannot) return { check: { name, verdict: 'FAIL', detail: `${path}: ${cannot.problem}`, fix: cannot.fix }, banUntil: 0 };
  const checked = contentCheck(path, now);
  const free = freeBytes(path);
  if (free >= LOW_SPACE_BYTES) return checked;
  const room = `${mb(free)} free on its disk`;
  const fix = 'free space or give the journal a bigger disk: when the disk fills, no order is placed until it has room again (about 1 KB a journaled order)';
  const verdict = free < LOW_SPACE_BYTES / 10 || checked.check.verdict === 'FAIL' ? 'FAIL' : 'WARN';
  return { check: { name, verdict, detail: `${checked.check.detail}; ${room}`, fix: checked.check.fix ? `${checked.check.fix}; and ${fix}` : fix }, banUntil: checked.banUntil };
}

/** What the file holds, by the store's own inspection. */
function contentCheck(path: string, now: number): { check: Check; banUntil: number } {
  const name = 'journal';
  const lock = lockHolder(path);
  const seen = inspectJournal(path, SCHEMA_VERSION, { check: 'full' });
  switch (seen.kind) {
    case 'missing':
      return { check: { name, verdict: 'WARN', detail: `no journal at ${path}`, fix: 'none needed before the first start (the daemon creates it); otherwise journal.path points to the wrong place' }, banUntil: 0 };
    case 'empty':
      return { check: { name, verdict: 'OK', detail: `${path}: empty (a new journal); ${lock}` }, banUntil: 0 };
    case 'unusable':
      return { check: { name, verdict: 'FAIL', detail: `${path}: ${seen.problem}`, fix: seen.fix }, banUntil: 0 };
  }
  if (!seen.wal) return { check: { name, verdict: 'FAIL', detail: `${path}: not in WAL mode (a sluice journal always is)`, fix: 'point journal.path at the sluice journal' }, banUntil: 0 };
  const contents = seen.schema === 0 ? 'no tables yet' : `${seen.orders} orders, ${seen.fills} fills, ${mb(statSync(path).size)}`;
  const ban = seen.banUntil > now ? `, ban until ${new Date(seen.banUntil).toISOString()}` : '';
  const detail = `${path}: schema ${seen.schema}, integrity ok, WAL, ${contents}${ban}; ${lock}`;
  if (seen.schema < SCHEMA_VERSION && seen.schema > 0) {
    return { check: { name, verdict: 'WARN', detail, fix: `the next start migrates it to schema ${SCHEMA_VERSION}: back it up first (see docs/deployment.md)` }, banUntil: seen.banUntil };
  }
  const prune = pruneAdvice(statSync(path).size);
  if (prune) return { check: { name, verdict: 'WARN', detail, fix: prune }, banUntil: seen.banUntil };
  return { check: { name, verdict: 'OK', detail }, banUntil: seen.banUntil };
}

/** Who holds the journal's lock, asked of the kernel through SQLite (store/lock.ts); never taken. */
function lockHolder(path: string): string {
  let state: LockState;
  try {
    state = lockState(path);
  } catch (err) {
    return errorText(err);
  }
  switch (state.kind) {
    case 'none':
      return 'not in use (no lock file)';
    case 'held': {
      const h = state.holder;
      return h ? `in use by a running sluice (pid ${h.pid}) on ${h.host} since ${h.since}; read without disturbing it` : 'in use by a process that has not said which; read without disturbing it';
    }
    case 'free': {
      const h = state.last;
      return h ? `not in use (its last holder, pid ${h.pid} on ${h.host} since ${h.since}, ended without releasing it; the next start takes it)` : 'not in use';
    }
    case 'old':
      return `not in use: the lock file holds an older sluice's "${state.text}", which keeps nobody out (stop any older sluice on this journal); the next start replaces it`;
  }
}

// ---------- helpers ----------

function marketsOf(config: Config): Market[] {
  const markets = new Set(config.strategies.filter((s) => s.enabled).map((s) => s.market));
  return markets.size ? [...markets] : ['spot'];
}

function symbolsByMarket(config: Config): Partial<Record<Market, number>> {
  const sets: Partial<Record<Market, Set<string>>> = {};
  for (const s of config.strategies) if (s.enabled) for (const sym of s.symbols) (sets[s.market] ??= new Set()).add(sym);
  return Object.fromEntries(Object.entries(sets).map(([m, set]) => [m, set.size]));
}

const fmt = (n: number) => String(Math.round(n * 10) / 10);
const mb = (bytes: number) => `${fmt(bytes / 1024 ** 2)} MB`;

