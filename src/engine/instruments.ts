// The instrument catalog: what the venue lists for each market a strategy trades, read once at
// start-up and shared (risk sizes orders by it, positions take their quote asset and contract
// size from it). Start-up is refused, naming the config field, for a strategy's symbol the
// venue does not list, a feed its market does not serve or one it cannot serve as asked:
// otherwise the daemon would run and fail at it every second.
import { ConfigError, errorText, type ConfigProblem } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { SymbolInfo } from '../core/market.js';
import type { MarketReader } from '../core/ports.js';
import { closest } from '../core/spelling.js';
import type { Market } from '../core/types.js';
import { feedProblem, notServed } from '../executor/readers.js';
import type { EntryFields, LoadedStrategy, MarketSubscription } from '../strategy/index.js';

const key = (market: Market, symbol: string) => `${market}:${symbol}`;

/** Feeds the venue's REST API does not serve, per market (executor/readers.ts refuses them). */
const UNSERVED: Record<Market, readonly MarketSubscription['kind'][]> = { spot: [], futures: ['trades'] };
/** Symbols listed in a refusal, at most: a venue may list hundreds. */
const LISTED_SHOWN = 30;

/** What start-up requires of the venue, each named by the config field that asks for it. */
export interface Requirements {
  symbols: { path: string; market: Market; symbol: string }[];
  feeds: { path: string; market: Market; kind: MarketSubscription['kind']; plugin: string }[];
  /** Subscriptions the venue cannot serve as asked (a page too large, an interval it lacks). */
  pages: { path: string; plugin: string; problem: string }[];
  /** Strategies with a loss limit: their symbols must share one quote currency (one amount bounds one currency). */
  lossLimits?: { path: string; market: Market; symbols: readonly string[] }[];
}

/**
 * The strategies' symbols and subscriptions, at their config paths (`entries` is the config's
 * strategies list, whose objects the loaded strategies carry). An entry whose market or symbols
 * the config got wrong (absent) asks for nothing there; the config's problem says why.
 */
export function requirementsOf(entries: readonly unknown[], strategies: readonly LoadedStrategy<EntryFields>[]): Requirements {
  const req: Requirements = { symbols: [], feeds: [], pages: [] };
  for (const s of strategies) {
    const i = entries.indexOf(s.entry);
    const at = i >= 0 ? `strategies[${i}]` : `strategies (id ${s.entry.id ?? '?'})`;
    const market = s.entry.market;
    if (market === undefined) continue;
    if (s.entry.lossLimit && s.entry.symbols) (req.lossLimits ??= []).push({ path: `${at}.lossLimit`, market, symbols: s.entry.symbols });
    s.entry.symbols?.forEach((symbol, j) => req.symbols.push({ path: `${at}.symbols[${j}]`, market, symbol }));
    let subscriptions: MarketSubscription[];
    try {
      subscriptions = s.definition.subscribe?.(s.params as never) ?? [{ kind: 'ticker' }];
    } catch {
      continue; // its host disables it at start, with the reason
    }
    for (const kind of new Set(subscriptions.map((x) => x.kind))) req.feeds.push({ path: `${at}.market`, market, kind, plugin: s.definition.name });
    for (const problem of new Set(subscriptions.map((x) => feedProblem(market, x)))) if (problem) req.pages.push({ path: `${at}.params`, plugin: s.definition.name, problem });
  }
  return req;
}

/** What the strategies ask of a market that it cannot serve, known without asking the venue (the REST API's feeds and page sizes). */
export function feedProblems(req: Requirements): ConfigProblem[] {
  const problems: ConfigProblem[] = req.feeds
    .filter((f) => UNSERVED[f.market].includes(f.kind))
    .map((f) => ({ path: f.path, message: `${f.market}: the plugin ${f.plugin} subscribes to ${f.kind}, which this market cannot poll (${notServed(f.kind as 'trades')})` }));
  for (const p of req.pages) problems.push({ path: p.path, message: `the plugin ${p.plugin} subscribes to ${p.problem}` });
  return problems;
}

export class InstrumentCatalog {
  /** By `market:symbol`. */
  readonly byKey = new Map<string, SymbolInfo>();

  constructor(
    private readonly readers: Readonly<Record<Market, MarketReader>>,
    private readonly log: Log,
    /** Told each futures contract's size: positions value contracts at it. */
    private readonly contractSize: (symbol: string, multiplier: NonNullable<SymbolInfo['multiplier']>) => void,
    /** Refused at load when not met (none for a read-only look, e.g. sluice status). */
    private readonly required: Requirements = { symbols: [], feeds: [], pages: [] },
  ) {}

  get(market: Market, symbol: string): SymbolInfo | undefined {
    return this.byKey.get(key(market, symbol));
  }

  /**
   * Reads the venue's instruments of `markets`. Throws ConfigError, every problem at once, for a
   * required symbol the venue does not list or a feed its market cannot poll; warns for any other
   * traded symbol it does not list.
   */
  async load(markets: ReadonlySet<Market>, traded: readonly { market: Market; symbol: string }[]): Promise<void> {
    const problems = feedProblems(this.required);
    const leftOut = new Map<string, string>();
    for (const market of markets) {
      const listing = await this.readers[market].instruments();
      for (const bad of listing.skipped) {
        this.log.warn({ market, symbol: bad.key, problem: bad.problem }, 'an instrument the venue listed could not be read or traded; it is left out');
        if (bad.key !== undefined) leftOut.set(key(market, bad.key.toUpperCase()), bad.problem);
      }
      for (const info of listing.items) {
        this.byKey.set(key(market, info.symbol), info);
        if (!info.multiplier) continue;
        // An odd listing (a size of 0, or one that changed under journaled fills) must not stop start-up.
        try {
          this.contractSize(info.symbol, info.multiplier);
        } catch (err) {
          this.log.warn({ symbol: info.symbol, reason: errorText(err) }, 'contract size not taken; its PnL is counted per contract');
        }
      }
    }
    for (const r of this.required.symbols) {
      if (this.byKey.has(key(r.market, r.symbol))) continue;
      const why = leftOut.get(key(r.market, r.symbol));
      problems.push({ path: r.path, message: why ? `${r.symbol} is listed by the venue's ${r.market} market, but sluice cannot use it: ${why}` : this.unlisted(r.market, r.symbol) });
    }
    for (const l of this.required.lossLimits ?? []) {
      const quotes = [...new Set(l.symbols.map((sym) => this.byKey.get(key(l.market, sym))?.quoteAsset).filter((q) => q !== undefined))];
      if (quotes.length > 1) {
        problems.push({ path: l.path, message: `one amount cannot bound losses in ${quotes.join(' and ')} (${l.symbols.join(', ')}): give the limit to a strategy whose symbols share one quote currency, or split it into one strategy per quote currency` });
      }
    }
    if (problems.length > 0) throw new ConfigError(problems, 'strategies');
    for (const { market, symbol } of traded) {
      if (!this.byKey.has(key(market, symbol))) this.log.warn({ market, symbol }, 'the venue does not list this symbol; its orders will be rejected');
    }
  }

  /** Why `symbol` cannot be traded on `market`, with what the venue lists there. */
  private unlisted(market: Market, symbol: string): string {
    const listed = [...this.byKey.keys()].filter((k) => k.startsWith(`${market}:`)).map((k) => k.slice(market.length + 1));
    const other: Market = market === 'spot' ? 'futures' : 'spot';
    const fix = this.byKey.has(key(other, symbol)) ? `it is a ${other} symbol: set market: ${other}` : `${closest(symbol, listed) ? `did you mean ${closest(symbol, listed)}? ` : ''}fix or remove it`;
    const shown = listed.length > LISTED_SHOWN ? `${listed.slice(0, LISTED_SHOWN).join(', ')} and ${listed.length - LISTED_SHOWN} more` : listed.join(', ') || 'nothing';
    return `${symbol} is not listed by the venue's ${market} market: ${fix} (the venue's ${market} market lists ${shown})`;
  }
}
