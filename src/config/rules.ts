// Checks that the schema cannot express field by field: secrets written into YAML, rules that
// span fields, and the endpoint table. They read the YAML value as written (before defaults),
// defensively, so they run even when the schema found problems elsewhere.
import { isLoopback } from '../core/net.js';
import { closest } from '../core/spelling.js';
import { BOOKING_MARGIN_MS } from '../core/venue.js';
import { DEFAULTS, isContainer } from './schema.js';
import { ENDPOINT_IDS, ENDPOINTS, sharedLimit, type EndpointId } from '../exchange/endpoints.js';
import type { Path } from './yaml.js';

export interface RawProblem {
  path: Path;
  message: string;
  /** A choice's value as given, and its options: shown when it was written in the file (load.ts). */
  given?: { value: unknown; options?: readonly unknown[] };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (v: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), v);

/** Key names that mean a credential, after lower-casing and dropping separators. */
function looksSecret(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return k === 'key' || ['secret', 'apikey', 'password', 'passphrase', 'privatekey', 'token'].some((w) => k.includes(w));
}

export const SECRET_FIX =
  'credentials never go in YAML: delete this line and set SLUICE_API_KEY and SLUICE_API_SECRET in the environment, or set credentials.file to a file only you can read (chmod 600)';

/**
 * Reports and removes every key that looks like a credential (outside strategy params, which
 * belong to plugins), so the schema does not report them again as merely unknown.
 */
export function removeSecretKeys(value: unknown, path: Path = []): RawProblem[] {
  const problems: RawProblem[] = [];
  if (Array.isArray(value)) value.forEach((item, i) => problems.push(...removeSecretKeys(item, [...path, i])));
  else if (isObj(value)) {
    for (const key of Object.keys(value)) {
      const here = [...path, key];
      // http.tokenFile names a file, like credentials.file; the token itself never is in YAML.
      const namesAFile = path.length === 1 && path[0] === 'http' && key === 'tokenFile';
      if (looksSecret(key) && !namesAFile) {
        problems.push({ path: here, message: SECRET_FIX });
        delete value[key];
      } else if (!(path.length === 2 && path[0] === 'strategies' && key === 'params')) {
        problems.push(...removeSecretKeys(value[key], here));
      }
    }
  }
  return problems;
}

/**
 * A section whose lines are all commented out is an empty (null) value in YAML; it means
 * "nothing set here", so it is dropped and the defaults apply instead of a type error.
 */
export function dropEmptySections(value: unknown, path: Path = []): void {
  if (Array.isArray(value)) value.forEach((item, i) => dropEmptySections(item, [...path, i]));
  else if (isObj(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (v === null && isContainer([...path, key])) delete value[key];
      else dropEmptySections(v, [...path, key]);
    }
  }
}

export { closest } from '../core/spelling.js';

export function unknownKeyMessage(key: string, known: readonly string[] | undefined): string {
  const guess = known ? closest(key, known) : undefined;
  if (guess) return `unknown key; did you mean ${guess}?`;
  return known ? `unknown key; remove it (known keys here: ${known.join(', ')})` : 'unknown key; remove it';
}

/**
 * The ops endpoint off loopback needs a token: its pages show positions and orders, and its
 * /metrics the account's activity, to anyone who can reach the port.
 */
export function httpProblems(raw: unknown, hasToken: boolean): RawProblem[] {
  const enabled = get(raw, 'http', 'enabled') ?? 'auto';
  const mode = get(raw, 'mode') ?? 'paper';
  const host = get(raw, 'http', 'host') ?? '127.0.0.1';
  const serves = enabled === true || (enabled === 'auto' && mode === 'paper');
  if (!serves || hasToken || typeof host !== 'string' || isLoopback(host.replace(/^\[|\]$/g, ''))) return [];
  return [
    {
      path: ['http', 'host'],
      message: `${host} is not a loopback address, so the ops endpoint needs a token: set SLUICE_HTTP_TOKEN in the environment, or http.tokenFile to a file only you can read (chmod 600) holding one (e.g. openssl rand -hex 32), or set http.host: 127.0.0.1`,
    },
  ];
}

/** Rules across fields. `raw` is the YAML value after interpolation and secret removal. */
export function crossFieldProblems(raw: unknown): RawProblem[] {
  const problems: RawProblem[] = [];
  const mode = get(raw, 'mode') ?? 'paper';

  if (mode === 'live' && (get(raw, 'venue', 'spotUrl') ?? null) === null) {
    problems.push({ path: ['venue', 'spotUrl'], message: 'required in live mode: set the venue origin, e.g. spotUrl: https://openapi.example.com (or use mode: paper)' });
  }

  const base = get(raw, 'venue', 'retry', 'baseDelayMs');
  const max = get(raw, 'venue', 'retry', 'maxDelayMs');
  if (typeof base === 'number' && typeof max === 'number' && max < base) {
    problems.push({ path: ['venue', 'retry', 'maxDelayMs'], message: 'must be >= venue.retry.baseDelayMs: raise maxDelayMs or lower baseDelayMs' });
  }

  const lo = get(raw, 'sim', 'latencyMs', 'min');
  const hi = get(raw, 'sim', 'latencyMs', 'max');
  if (typeof lo === 'number' && typeof hi === 'number' && lo > hi) {
    problems.push({ path: ['sim', 'latencyMs', 'min'], message: 'must be <= sim.latencyMs.max: swap them or raise max' });
  }

  const limits = get(raw, 'venue', 'limits');
  if (isObj(limits)) {
    for (const [id, value] of Object.entries(limits)) {
      const endpoint = (ENDPOINTS as Record<string, (typeof ENDPOINTS)[EndpointId] | undefined>)[id];
      if (!endpoint) {
        const guess = closest(id, ENDPOINT_IDS);
        problems.push({
          path: ['venue', 'limits', id],
          message: `unknown endpoint id${guess ? `; did you mean ${guess}?` : ''} (valid ids: ${ENDPOINT_IDS.join(', ')})`,
        });
      } else if (typeof value === 'number' && value > endpoint.limitPer2s) {
        problems.push({
          path: ['venue', 'limits', id],
          message: `must be at most ${endpoint.limitPer2s}, the venue's own limit for ${id} per 2 s: an override may only lower it`,
        });
      }
    }
  }

  // Leverage is per contract on the venue: one value for each, and only for futures.
  const entries = get(raw, 'strategies');
  if (Array.isArray(entries)) {
    const byContract = new Map<string, number>();
    entries.forEach((s, i) => {
      const leverage = get(s, 'leverage');
      if (typeof leverage !== 'number') return;
      if ((get(s, 'market') ?? 'spot') !== 'futures') {
        problems.push({ path: ['strategies', i, 'leverage'], message: 'is for futures strategies only (spot has no leverage): remove it or set market: futures' });
        return;
      }
      const symbols = get(s, 'symbols');
      for (const sym of Array.isArray(symbols) ? symbols : []) {
        const name = String(sym).toUpperCase();
        const other = byContract.get(name);
        if (other !== undefined && other !== leverage) problems.push({ path: ['strategies', i, 'leverage'], message: `${name} is set to ${other}x by another strategy: the venue keeps one leverage per contract; give both the same` });
        byContract.set(name, leverage);
      }
    });
  }

  const share = get(raw, 'venue', 'limitShare');
  if (typeof share === 'number' && share > 0 && share <= 1) {
    const overrides = isObj(limits) ? limits : {};
    const starved = ENDPOINT_IDS.filter((id) => {
      const limit = overrides[id];
      return sharedLimit(typeof limit === 'number' ? limit : ENDPOINTS[id].limitPer2s, share) < 1;
    });
    if (starved.length > 0) {
      const smallest = Math.min(...starved.map((id) => (typeof overrides[id] === 'number' ? (overrides[id] as number) : ENDPOINTS[id].limitPer2s)));
      problems.push({ path: ['venue', 'limitShare'], message: `leaves ${starved.join(', ')} less than 1 request per 2 s: raise it to at least ${Math.ceil((1 / smallest) * 1000) / 1000}, or run fewer daemons on this key` });
    }
  }

  problems.push(...recvWindowProblems(raw));

  const caps = get(raw, 'risk', 'maxPosition');
  if (isObj(caps)) {
    const seen = new Set<string>();
    for (const symbol of Object.keys(caps)) {
      const upper = symbol.toUpperCase();
      if (seen.has(upper)) problems.push({ path: ['risk', 'maxPosition', symbol], message: 'this symbol is listed twice (symbols are case-insensitive): keep one' });
      seen.add(upper);
    }
  }
  problems.push(...untradedKeys(raw, ['risk', 'maxPosition'], 'cap limits'), ...untradedKeys(raw, ['reconcile', 'drift', 'tolerance'], 'tolerance applies to'));

  const strategies = get(raw, 'strategies');
  if (Array.isArray(strategies)) {
    const firstWithId = new Map<string, number>();
    strategies.forEach((s, i) => {
      const id = get(s, 'id');
      if (typeof id === 'string') {
        const first = firstWithId.get(id);
        if (first === undefined) firstWithId.set(id, i);
        else problems.push({ path: ['strategies', i, 'id'], message: `duplicate id: strategies[${first}] already uses it; every strategy needs its own id (it tags its orders)` });
      }
      const symbols = get(s, 'symbols');
      if (!Array.isArray(symbols)) return;
      const seen = new Set<string>();
      symbols.forEach((sym, j) => {
        if (typeof sym !== 'string') return;
        const upper = sym.trim().toUpperCase();
        if (seen.has(upper)) problems.push({ path: ['strategies', i, 'symbols', j], message: 'listed twice: remove the duplicate' });
        seen.add(upper);
        if ((get(s, 'market') ?? 'spot') === 'spot' && upper.includes('-')) {
          problems.push({ path: ['strategies', i, 'symbols', j], message: 'spot symbols have no dashes (e.g. BTCUSDT); dashed contracts like E-BTC-USDT need market: futures' });
        }
      });
    });
  }
  return problems;
}

/**
 * The venue may take a signed request up to venue.recvWindowMs after its timestamp, and an order
 * whose answer was lost is looked up by client order id only once that (plus the clock's error and
 * BOOKING_MARGIN_MS) has passed. Given up as never placed sooner (reconcile.unknownTimeoutMs), it
 * could still be taken by the venue after its strategy was told it was rejected and may have sent
 * another. A value the schema refuses is left to the schema; one not written is the default.
 */
function recvWindowProblems(raw: unknown): RawProblem[] {
  const value = (at: [string, string], fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = get(raw, ...at);
    if (v === undefined) return fallback;
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max ? v : undefined;
  };
  const recvWindow = value(['venue', 'recvWindowMs'], DEFAULTS.venue.recvWindowMs, 1, 60000);
  const timeout = value(['reconcile', 'unknownTimeoutMs'], DEFAULTS.reconcile.unknownTimeoutMs, 1000);
  if (recvWindow === undefined || timeout === undefined || recvWindow + BOOKING_MARGIN_MS < timeout) return [];
  const why =
    'the venue may take a signed request up to venue.recvWindowMs after its timestamp, so an order whose answer was lost could be given up as never placed ' +
    '(after reconcile.unknownTimeoutMs; its strategy is told it was rejected and may send another) and then be taken by the venue';
  // Point at the field the file set: the timeout when only it was written, else the window.
  return get(raw, 'reconcile', 'unknownTimeoutMs') !== undefined && get(raw, 'venue', 'recvWindowMs') === undefined
    ? [{ path: ['reconcile', 'unknownTimeoutMs'], message: `must be more than venue.recvWindowMs + ${BOOKING_MARGIN_MS} ms: ${why}; raise reconcile.unknownTimeoutMs (default ${DEFAULTS.reconcile.unknownTimeoutMs}) or lower venue.recvWindowMs` }]
    : [{ path: ['venue', 'recvWindowMs'], message: `must be less than reconcile.unknownTimeoutMs - ${BOOKING_MARGIN_MS} ms: ${why}; lower venue.recvWindowMs (default ${DEFAULTS.venue.recvWindowMs}) or raise reconcile.unknownTimeoutMs above it + ${BOOKING_MARGIN_MS} ms` }];
}

/** Every symbol the strategies list (disabled ones too), as the schema writes them; undefined when a list cannot be read. */
function tradedSymbols(raw: unknown): string[] | undefined {
  const entries = get(raw, 'strategies') ?? [];
  if (!Array.isArray(entries)) return undefined;
  const traded = new Set<string>();
  for (const s of entries) {
    const symbols = get(s, 'symbols');
    if (!Array.isArray(symbols)) return undefined;
    for (const sym of symbols) if (typeof sym === 'string') traded.add(sym.trim().toUpperCase());
  }
  return [...traded];
}

/**
 * Per-symbol maps are looked up by the traded symbol, and one not listed is uncapped (or held to
 * tolerance 0): a key naming no traded symbol, a typo most likely, would leave the symbol meant
 * unguarded without a word. Skipped while a strategy's symbols cannot be read (reported anyway).
 */
function untradedKeys(raw: unknown, at: string[], what: string): RawProblem[] {
  const map = get(raw, ...at);
  const traded = tradedSymbols(raw);
  if (!isObj(map) || !traded) return [];
  const problems: RawProblem[] = [];
  for (const key of Object.keys(map)) {
    const symbol = key.trim().toUpperCase();
    if (traded.includes(symbol)) continue;
    const guess = closest(symbol, traded);
    const fix = traded.length === 0
      ? 'no strategy is configured: remove it, or add the strategy that trades it'
      : guess
        ? `did you mean ${guess}?`
        : `fix it to a symbol a strategy trades (${traded.join(', ')}), or remove it`;
    problems.push({ path: [...at, key], message: `no strategy trades ${symbol}, so this ${what} nothing; ${fix}` });
  }
  return problems;
}
