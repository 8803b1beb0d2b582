// The config schema: shape, types, ranges and defaults in one place. Every leaf carries its
// own message (what is wrong and how to fix it) and never echoes the value it got, because a
// value may have come from the environment and be a secret (load.ts quotes a choice's value when
// it was written in the file). Rules that span fields, and the
// endpoint table, are in rules.ts: zod skips an object's refinements once anything inside it
// failed, and we want every problem reported in one pass.
import { z } from 'zod';
import { dec, DecimalFormatError, PLAIN_RULE, toDecimal, type Decimal } from '../core/decimal.js';
import type { EndpointId } from '../exchange/endpoints.js';
import type { Config, StrategyConfig } from './types.js';

/** Names the kind of a value without showing it. */
export function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return /^-?\d+(\.\d+)?$/.test(v.trim()) ? 'a quoted number' : 'text';
  return `a ${typeof v}`;
}

function expected(what: string, fix?: (input: unknown) => string | undefined) {
  return (iss: { input?: unknown }) => {
    if (iss.input === undefined) return `required: ${what}`;
    const hint = fix?.(iss.input);
    return `must be ${what} (got ${kindOf(iss.input)})${hint ? `; ${hint}` : ''}`;
  };
}

const unquote = (input: unknown) => (kindOf(input) === 'a quoted number' ? 'remove the quotes' : undefined);

function int(min?: number, max?: number) {
  const what =
    min === undefined ? 'a whole number' : max === undefined ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`;
  return z
    .number({ error: expected(what, unquote) })
    .refine((n) => Number.isSafeInteger(n) && (min === undefined || n >= min) && (max === undefined || n <= max), { error: `must be ${what}` });
}

function rate() {
  return z.number({ error: expected('a number from 0 to 1', unquote) }).refine((n) => n >= 0 && n <= 1, { error: 'must be a number from 0 to 1 (a probability)' });
}

function bool() {
  return z.boolean({ error: expected('true or false') });
}

/**
 * A choice names its options only: load.ts adds the value given (`(got "lve")`), as it alone
 * knows whether that value came from the environment and may be a secret.
 */
function choice(what: string) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? `required: ${what}` : `must be ${what}`);
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: choice(`one of ${values.join(' | ')}`) });
}

function text() {
  return z.string({ error: expected('text') }).min(1, { error: 'must not be empty' });
}

/** Path-like strings: null means "not set". */
function optionalText() {
  return z.string({ error: expected('text or null') }).min(1, { error: 'must not be empty; write null to leave it unset' }).nullable();
}

/**
 * Money and prices are quoted decimal strings: a YAML number is a binary float, and floats
 * never carry money. `sign` says which values make sense for the field.
 */
export function decimal(example: string, sign: 'positive' | 'nonNegative') {
  return z.unknown().transform((v, ctx): Decimal => {
    if (typeof v === 'number') {
      ctx.addIssue({ code: 'custom', message: `write money as a quoted decimal string, e.g. "${example}" (a bare YAML number is a float)` });
      return z.NEVER;
    }
    let value: Decimal;
    try {
      value = toDecimal(v, 'value');
    } catch (err) {
      // "1e-3" or "+5": a number, but money is written as plain digits; show them where they fit.
      const hint = err instanceof DecimalFormatError ? err.hint : undefined;
      const message = hint
        ? `${PLAIN_RULE}; write ${hint.plain !== undefined ? `"${hint.plain}"` : `the digits out, e.g. "${example}" (that exponent is beyond any amount)`}`
        : v === undefined
          ? `required: a quoted decimal string, e.g. "${example}"`
          : `must be a decimal string like "${example}" (got ${kindOf(v)})`;
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    const negative = value.startsWith('-');
    const zero = /^-?0$/.test(value);
    if (negative || (sign === 'positive' && zero)) {
      ctx.addIssue({ code: 'custom', message: `must be ${sign === 'positive' ? 'greater than 0' : '0 or more'}, e.g. "${example}"` });
      return z.NEVER;
    }
    return value;
  });
}

/**
 * A percentage of a price, as a quoted decimal above 0; `under100` names a field that must
 * also stay below 100 (a stop 100% or more away from the price never fires on a long).
 */
function percent(example: string, under100?: string) {
  const pct = decimal(example, 'positive');
  if (!under100) return pct;
  return pct.refine((v) => dec.lt(v, '100' as Decimal), { error: `must be below 100 (a percentage of the price: ${under100} "100" would need the price to reach 0), e.g. "${example}"` });
}

/** http(s) origin, normalised without a trailing slash; user:password in a URL is refused (a secret). */
function origin() {
  return z
    .string({ error: expected('an http(s) origin such as https://openapi.example.com, or null') })
    .transform((s, ctx) => {
      let url: URL;
      try {
        url = new URL(s);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a URL such as https://openapi.example.com' });
        return z.NEVER;
      }
      if (url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password: credentials come from SLUICE_API_KEY/SLUICE_API_SECRET' });
        return z.NEVER;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        ctx.addIssue({ code: 'custom', message: 'must start with https:// (or http:// for a local simulator)' });
        return z.NEVER;
      }
      if (url.pathname !== '/' || url.search || url.hash) {
        ctx.addIssue({ code: 'custom', message: 'must be an origin only (scheme, host, optional port), e.g. https://openapi.example.com: endpoint paths are added by sluice' });
        return z.NEVER;
      }
      return url.origin;
    })
    .nullable();
}

/** An http(s) URL that receives alert POSTs; its path may carry the receiver's token. */
function webhookUrl() {
  return z
    .string({ error: expected('an http(s) URL such as https://hooks.example.com/sluice, or null') })
    .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { error: 'must be an http(s) URL such as https://hooks.example.com/sluice' })
    .nullable();
}

/** A mapping of known keys; unknown keys are problems; absent means all defaults. */
function section<T extends z.core.$ZodLooseShape>(shape: T) {
  // prefault (not default) runs {} through the object, so every inner default applies. The cast
  // is needed only because TypeScript cannot see that a generic shape of defaults accepts {}.
  return z.strictObject(shape, { error: expected('a mapping of key: value lines') }).prefault({} as never);
}

const SYMBOL = /^[A-Z0-9]+(?:-[A-Z0-9]+)*$/;
const symbol = z
  .string({ error: expected('a symbol such as BTCUSDT') })
  .transform((s) => s.trim().toUpperCase())
  .refine((s) => SYMBOL.test(s), { error: 'must be letters and digits, e.g. BTCUSDT (futures contracts like E-BTC-USDT)' });

const asset = z
  .string({ error: expected('an asset such as USDT') })
  .transform((s) => s.trim().toUpperCase())
  .refine((s) => /^[A-Z0-9]+$/.test(s), { error: 'must be letters and digits, e.g. USDT' });

export const STRATEGY_ID = /^[a-z0-9]{1,12}$/;

const strategy = z.strictObject(
  {
    id: z
      .string({ error: expected('1-12 lower-case letters or digits, e.g. grid1') })
      .refine((s) => STRATEGY_ID.test(s), {
        error: 'must be 1-12 lower-case letters or digits (a-z, 0-9; no dashes or capitals): it becomes part of every client order id',
      }),
    use: z
      .string({ error: expected('the plugin module path, e.g. strategies/grid/index.ts') })
      .min(1, { error: 'must be the plugin module path, e.g. strategies/grid/index.ts' }),
    enabled: bool().default(true),
    market: oneOf(['spot', 'futures']).default('spot'),
    symbols: z
      .array(symbol, { error: expected('a list of symbols, e.g. [BTCUSDT]') })
      .min(1, { error: 'must list at least one symbol, e.g. [BTCUSDT]' }),
    everyMs: int(50).default(1000),
    /** Futures: the leverage sluice sets on each of the strategy's contracts at start-up (the venue's own otherwise). */
    leverage: int(1, 125).optional(),
    /** Protective exits sluice enforces on the strategy's own position (README: exits). */
    exits: z
      .strictObject(
        {
          stopLossPct: percent('2', 'stopLossPct').optional(),
          takeProfitPct: percent('5').optional(),
          trailingStopPct: percent('1.5', 'trailingStopPct').optional(),
          cooldownMs: int(0).default(0),
        },
        { error: expected('a mapping such as { stopLossPct: "2", takeProfitPct: "5", trailingStopPct: "1.5", cooldownMs: 60000 }') },
      )
      .optional(),
    /** Most the strategy may lose in a UTC day, in its symbols' quote currency (README: loss limit). */
    lossLimit: z.strictObject({ daily: decimal('250', 'positive') }, { error: expected('a mapping such as { daily: "250" } (quote currency lost in one UTC day)') }).optional(),
    params: z.record(z.string(), z.unknown(), { error: expected('a mapping (the plugin validates its contents)') }).default({}),
  },
  { error: expected('a mapping with id, use and symbols') },
);

export const configSchema = z.strictObject(
  {
    mode: oneOf(['paper', 'live']).default('paper'),
    venue: section({
      spotUrl: origin().default(null),
      futuresUrl: origin().default(null),
      recvWindowMs: int(1, 60000).default(5000),
      clockSyncIntervalMs: int(1000).default(60000),
      safetyMarginMs: int(0, 2000).default(10),
      timeouts: section({ connectMs: int(100).default(5000), headersMs: int(100).default(10000), bodyMs: int(100).default(10000), totalMs: int(100).default(20000) }),
      maxResponseBytes: int(1024).default(4 * 1024 * 1024),
      connections: int(1, 1024).default(64),
      retry: section({ retries: int(0, 10).default(4), baseDelayMs: int(1).default(200), maxDelayMs: int(1).default(5000) }),
      // Several daemons on one API key share the venue's limits (they are per key): each takes
      // this share of every endpoint's budget, rounded down, so shares summing to 1 never exceed them.
      limitShare: z
        .number({ error: expected('a number above 0 and at most 1, e.g. 0.5 for one of two daemons on one key', unquote) })
        .refine((n) => n > 0 && n <= 1, { error: 'must be above 0 and at most 1 (this daemon\'s share of the key\'s limits, e.g. 0.5 for one of two daemons)' })
        .default(1),
      // Endpoint ids and each endpoint's ceiling are checked in rules.ts, with the list of valid ids.
      limits: z
        .record(z.string(), int(1), { error: expected('a mapping of endpoint id to requests per 2 s, e.g. { spot.order: 80 }') })
        .transform((r) => r as Partial<Record<EndpointId, number>>)
        .default({}),
    }),
    credentials: section({ file: optionalText().default(null) }),
    sim: section({
      profile: oneOf(['strict', 'lenient']).default('strict'),
      seed: int().default(1),
      latencyMs: section({ min: int(0).default(0), max: int(0).default(0) }),
      faults: section({
        error5xxRate: rate().default(0),
        resetRate: rate().default(0),
        lostResponseRate: rate().default(0),
        timeoutRate: rate().default(0),
        errorAfterActRate: rate().default(0),
        lateFillRate: rate().default(0),
        lateFillDelayMs: int(0).default(3000),
        clockSkewMs: int().default(0),
      }),
      banMs: int(0).default(120000),
      futuresPositionModel: z.union([z.literal(1), z.literal(2)], { error: choice('1 (net: one position per contract) or 2 (hedge: long and short apart)') }).default(2),
      fees: section({ maker: decimal('0.001', 'nonNegative').default('0.001' as Decimal), taker: decimal('0.002', 'nonNegative').default('0.002' as Decimal) }),
      // The simulated account's starting money (paper and backtests); a listed asset not named starts at 0.
      balances: z
        .record(asset, decimal('1000', 'nonNegative'), { error: expected('a mapping of asset to amount, e.g. { USDT: "10000", SOL: "50" }') })
        .default({ USDT: '100000', BTC: '2', ETH: '20' } as unknown as Record<string, Decimal>),
      futuresBalance: decimal('100000', 'nonNegative').default('100000' as Decimal),
      scenario: z
        .array(
          z.strictObject(
            {
              kind: oneOf(['rate_limit_storm', 'ban', 'clock_jump']),
              atMs: int(0),
              durationMs: int(1),
              /** clock_jump only: how far the venue's clock moves (ms, either sign) for durationMs. */
              skewMs: int().default(0),
            },
            { error: expected('a mapping with kind, atMs and durationMs (and skewMs for a clock_jump), e.g. { kind: ban, atMs: 60000, durationMs: 30000 }') },
          ),
          { error: expected('a list of timed venue troubles, e.g. [{ kind: rate_limit_storm, atMs: 60000, durationMs: 10000 }]') },
        )
        .default([]),
      // A backtest of a tape plays the venue's troubles the tape recorded (tape/incidents.ts).
      recordedFaults: bool().default(true),
      recordedBalances: bool().default(false),
    }),
    strategies: z.array(strategy, { error: expected('a list of strategies (- id: ...)') }).default([]),
    risk: section({
      maxPosition: z
        .record(symbol, decimal('0.5', 'nonNegative'), { error: expected('a mapping of symbol to quantity, e.g. { BTCUSDT: "0.5" }') })
        .default({}),
      maxOpenOrders: int(1).default(50),
      maxNotionalPerOrder: decimal('10000', 'positive').default('10000' as Decimal),
      maxNotionalPerMinute: decimal('100000', 'positive').default('100000' as Decimal),
      priceBandPct: decimal('5', 'positive').default('5' as Decimal),
      feeAllowance: decimal('0.002', 'nonNegative').default('0.002' as Decimal),
      maxOrdersPerSecond: int(1).default(50),
      duplicateWindowMs: int(0).default(1000),
      killSwitch: section({ mode: oneOf(['off', 'halted', 'reduce_only']).default('off'), file: optionalText().default(null) }),
    }),
    engine: section({
      summaryEveryMs: int(100).default(10000),
      marketDataEveryMs: int(50).default(1000),
      reconcileEveryMs: int(100).default(2000),
      maxQueueMs: int(100).default(5000),
      handlerTimeoutMs: int(1).default(10000),
      shutdown: section({ queued: oneOf(['flush', 'drop']).default('drop'), cancelOpenOrders: bool().default(true) }),
      onStrategyFailure: oneOf(['cancel', 'leave']).default('cancel'),
      heap: oneOf(['fast', 'small']).default('fast'),
    }),
    reconcile: section({
      budgetShare: z
        .number({ error: expected('a number above 0 and at most 1', unquote) })
        .refine((n) => n > 0 && n <= 1, { error: 'must be above 0 and at most 1 (the share of the openOrders and myTrades budgets)' })
        .default(0.5),
      foreignOrders: oneOf(['adopt', 'cancel']).default('adopt'),
      unknownTimeoutMs: int(1000).default(30000),
      drift: section({
        tolerance: z
          .record(symbol, decimal('0.001', 'nonNegative'), { error: expected('a mapping of symbol to quantity, e.g. { BTCUSDT: "0.001" }') })
          .default({}),
        action: oneOf(['reduce_only', 'halted']).default('reduce_only'),
        graceMs: int(0).default(10000),
      }),
    }),
    journal: section({ path: text().default('.sluice/journal.db') }),
    log: section({
      level: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
      pretty: z.union([z.literal('auto'), z.boolean()], { error: choice('auto, true or false') }).default('auto'),
    }),
    record: section({ path: optionalText().default(null), gzip: bool().default(false) }),
    http: section({
      enabled: z.union([z.literal('auto'), z.boolean()], { error: choice('auto, true or false') }).default('auto'),
      host: text().default('127.0.0.1'),
      port: int(0, 65535).default(9464),
      tokenFile: optionalText().default(null),
    }),
    alerts: section({ webhookUrl: webhookUrl().default(null), minIntervalMs: int(0).default(60000) }),
  },
  { error: expected('a mapping of key: value lines') },
);

/**
 * Each strategies entry as written, field by field: a field that fits its schema is there (with
 * its default), one that does not is absent. A config with problems elsewhere still has its
 * plugins checked from these, each check skipping only what needs a field the config got wrong.
 */
export function strategyFields(raw: unknown): Partial<StrategyConfig>[] {
  const list = (raw as { strategies?: unknown } | null)?.strategies;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const out: Record<string, unknown> = {};
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return out;
    for (const [key, field] of Object.entries(strategy.shape)) {
      const r = (field as z.ZodType).safeParse((item as Record<string, unknown>)[key]);
      if (r.success && r.data !== undefined) out[key] = r.data;
    }
    return out as Partial<StrategyConfig>;
  });
}

// Compile-time proof that what the schema produces is a Config.
type Parsed = z.output<typeof configSchema>;
export const asConfig = (parsed: Parsed): Config => parsed;

/** Strips defaults, optionals, nullables and transforms down to the structural schema. */
function structural(node: z.ZodType): z.ZodType {
  for (;;) {
    if (node instanceof z.ZodDefault || node instanceof z.ZodPrefault || node instanceof z.ZodNullable || node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
    else if (node instanceof z.ZodPipe) node = node.in as z.ZodType;
    else return node;
  }
}

/** The structural schema for the value at `path`, if the schema describes one. */
function schemaAt(path: readonly (string | number)[]): z.ZodType | undefined {
  let node = structural(configSchema);
  for (const seg of path) {
    if (node instanceof z.ZodObject) {
      const next = (node.shape as Record<string, z.ZodType | undefined>)[String(seg)];
      if (!next) return undefined;
      node = structural(next);
    } else if (node instanceof z.ZodArray) node = structural(node.element as z.ZodType);
    else return undefined;
  }
  return node;
}

/** The keys a mapping at `path` may hold, for "did you mean" hints; undefined for free-form mappings. */
export function knownKeys(path: readonly (string | number)[]): string[] | undefined {
  const node = schemaAt(path);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : undefined;
}

/** True when `path` holds a mapping or a list, where an empty YAML value can only mean "none given". */
export function isContainer(path: readonly (string | number)[]): boolean {
  const node = schemaAt(path);
  return node instanceof z.ZodObject || node instanceof z.ZodRecord || node instanceof z.ZodArray;
}

/** Every default, as the schema gives it for an empty file. */
export const DEFAULTS: Config = deepFreeze(asConfig(configSchema.parse({})));

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
