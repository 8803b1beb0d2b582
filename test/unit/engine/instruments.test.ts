// InstrumentCatalog against hand-written readers, with the log kept in memory.
import { describe, expect, it } from 'vitest';
import { d, type Decimal } from '../../../src/core/decimal.js';
import type { SymbolInfo } from '../../../src/core/market.js';
import type { MarketReader } from '../../../src/core/ports.js';
import type { Market } from '../../../src/core/types.js';
import type { Listing } from '../../../src/core/venue.js';
import { ConfigError } from '../../../src/core/errors.js';
import { InstrumentCatalog, type Requirements } from '../../../src/engine/instruments.js';
import { feedProblem } from '../../../src/executor/readers.js';
import { BTCUSDT, EBTC, MemoryLog } from '../../fixtures/engine-parts.js';

const ETHUSDT: SymbolInfo = { ...BTCUSDT, symbol: 'ETHUSDT', baseAsset: 'ETH' };
const EETH: SymbolInfo = { ...EBTC, symbol: 'E-ETH-USDT', baseAsset: 'ETH', multiplier: d('0.01') };

/** A reader whose only answer is its listing; the rest is never asked by the catalog. */
function listingReader(market: Market, listing: Listing<SymbolInfo> | Error, asked: Market[]): MarketReader {
  const never = () => Promise.reject(new Error('not asked by the catalog'));
  return {
    market,
    instruments: () => {
      asked.push(market);
      return listing instanceof Error ? Promise.reject(listing) : Promise.resolve(listing);
    },
    ticker: never,
    depth: never,
    trades: never,
    klines: never,
  };
}

function rig(spot: Listing<SymbolInfo> | Error, futures: Listing<SymbolInfo> | Error, contractSize?: (symbol: string, multiplier: Decimal) => void, required?: Requirements) {
  const asked: Market[] = [];
  const log = new MemoryLog();
  const sizes: Array<[string, string]> = [];
  const catalog = new InstrumentCatalog({ spot: listingReader('spot', spot, asked), futures: listingReader('futures', futures, asked) }, log, contractSize ?? ((symbol, m) => void sizes.push([symbol, m])), required);
  return { catalog, log, asked, sizes };
}

describe('InstrumentCatalog', () => {
  it('loads the listings of the markets traded, keyed by market and symbol', async () => {
    const r = rig({ items: [BTCUSDT, ETHUSDT], skipped: [] }, { items: [EBTC], skipped: [] });
    await r.catalog.load(new Set<Market>(['spot']), [{ market: 'spot', symbol: 'BTCUSDT' }]);
    expect(r.asked).toEqual(['spot']);
    expect([...r.catalog.byKey.keys()]).toEqual(['spot:BTCUSDT', 'spot:ETHUSDT']);
    expect(r.catalog.get('spot', 'ETHUSDT')).toEqual(ETHUSDT);
    expect(r.catalog.get('futures', 'BTCUSDT')).toBeUndefined();
    expect(r.log.lines).toEqual([]);
  });

  it('tells each futures contract size to the callback, and nothing for spot symbols', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [] }, { items: [EBTC, EETH], skipped: [] });
    await r.catalog.load(new Set<Market>(['spot', 'futures']), []);
    expect(r.asked).toEqual(['spot', 'futures']);
    expect(r.sizes).toEqual([
      ['E-BTC-USDT', '0.001'],
      ['E-ETH-USDT', '0.01'],
    ]);
    expect(r.catalog.get('futures', 'E-ETH-USDT')?.multiplier).toBe('0.01');
  });

  it('leaves out an unreadable item with a warning, and loads the rest', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [{ path: 'body.symbols[1]', problem: 'pricePrecision must be a whole number', key: 'DOGEUSDT' }] }, { items: [], skipped: [] });
    await r.catalog.load(new Set<Market>(['spot']), []);
    expect([...r.catalog.byKey.keys()]).toEqual(['spot:BTCUSDT']);
    expect(r.log.lines).toEqual([
      { level: 'warn', fields: { market: 'spot', symbol: 'DOGEUSDT', problem: 'pricePrecision must be a whole number' }, msg: 'an instrument the venue listed could not be read or traded; it is left out' },
    ]);
  });

  it('a contract-size callback that throws is logged, and loading goes on', async () => {
    const told: string[] = [];
    const r = rig({ items: [], skipped: [] }, { items: [EBTC, EETH], skipped: [] }, (symbol) => {
      told.push(symbol);
      if (symbol === 'E-BTC-USDT') throw new Error('contract size 0.001 differs from 0.01 used by journaled fills');
    });
    await r.catalog.load(new Set<Market>(['futures']), [{ market: 'futures', symbol: 'E-ETH-USDT' }]);
    expect(told).toEqual(['E-BTC-USDT', 'E-ETH-USDT']);
    expect([...r.catalog.byKey.keys()]).toEqual(['futures:E-BTC-USDT', 'futures:E-ETH-USDT']);
    expect(r.log.lines).toEqual([
      { level: 'warn', fields: { symbol: 'E-BTC-USDT', reason: 'contract size 0.001 differs from 0.01 used by journaled fills' }, msg: 'contract size not taken; its PnL is counted per contract' },
    ]);
  });

  it('warns for each traded symbol the venue does not list in its market', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [] }, { items: [EBTC], skipped: [] });
    await r.catalog.load(new Set<Market>(['spot', 'futures']), [
      { market: 'spot', symbol: 'BTCUSDT' },
      { market: 'spot', symbol: 'SOLUSDT' },
      // Listed, but on the other market.
      { market: 'futures', symbol: 'BTCUSDT' },
      { market: 'futures', symbol: 'E-BTC-USDT' },
    ]);
    expect(r.log.lines).toEqual([
      { level: 'warn', fields: { market: 'spot', symbol: 'SOLUSDT' }, msg: 'the venue does not list this symbol; its orders will be rejected' },
      { level: 'warn', fields: { market: 'futures', symbol: 'BTCUSDT' }, msg: 'the venue does not list this symbol; its orders will be rejected' },
    ]);
  });

  it('a listing that cannot be read at all fails the load', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [] }, new Error('futures.contracts: 503'));
    await expect(r.catalog.load(new Set<Market>(['spot', 'futures']), [])).rejects.toThrow('futures.contracts: 503');
    // What was read before stays.
    expect([...r.catalog.byKey.keys()]).toEqual(['spot:BTCUSDT']);
  });

  it('refuses every required symbol the venue does not list, naming its field, a likely typo and what is listed', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ ...BTCUSDT, symbol: `C${String(i).padStart(2, '0')}USDT` }));
    const required: Requirements = {
      symbols: [
        { path: 'strategies[0].symbols[0]', market: 'spot', symbol: 'BTCUSDT' },
        { path: 'strategies[0].symbols[1]', market: 'spot', symbol: 'ETHUSTD' },
        { path: 'strategies[1].symbols[0]', market: 'futures', symbol: 'BTCUSDT' },
      ],
      feeds: [],
      pages: [],
    };
    const r = rig({ items: [BTCUSDT, ETHUSDT], skipped: [] }, { items: [EBTC], skipped: [] }, undefined, required);
    const err = (await r.catalog.load(new Set<Market>(['spot', 'futures']), []).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      { path: 'strategies[0].symbols[1]', message: "ETHUSTD is not listed by the venue's spot market: did you mean ETHUSDT? fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)" },
      { path: 'strategies[1].symbols[0]', message: "BTCUSDT is not listed by the venue's futures market: it is a spot symbol: set market: spot (the venue's futures market lists E-BTC-USDT)" },
    ]);

    const big = rig({ items: many, skipped: [] }, { items: [], skipped: [] }, undefined, { symbols: [{ path: 'strategies[0].symbols[0]', market: 'spot', symbol: 'DOGEUSDT' }], feeds: [], pages: [] });
    const long = (await big.catalog.load(new Set<Market>(['spot']), []).catch((e: unknown) => e)) as ConfigError;
    expect(long.problems[0]!.message).toMatch(/lists C00USDT, C01USDT, .*, C29USDT and 10 more\)$/);
  });

  it('refuses a loss limit over symbols of different quote currencies, naming the field and the fix; one quote passes', async () => {
    const ETHBTC: SymbolInfo = { ...BTCUSDT, symbol: 'ETHBTC', baseAsset: 'ETH', quoteAsset: 'BTC' };
    const required = (symbols: string[]): Requirements => ({ symbols: [], feeds: [], pages: [], lossLimits: [{ path: 'strategies[2].lossLimit', market: 'spot', symbols }] });
    const mixed = rig({ items: [BTCUSDT, ETHUSDT, ETHBTC], skipped: [] }, { items: [], skipped: [] }, undefined, required(['BTCUSDT', 'ETHBTC']));
    const err = (await mixed.catalog.load(new Set<Market>(['spot']), []).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toEqual([
      {
        path: 'strategies[2].lossLimit',
        message: 'one amount cannot bound losses in USDT and BTC (BTCUSDT, ETHBTC): give the limit to a strategy whose symbols share one quote currency, or split it into one strategy per quote currency',
      },
    ]);
    const same = rig({ items: [BTCUSDT, ETHUSDT, ETHBTC], skipped: [] }, { items: [], skipped: [] }, undefined, required(['BTCUSDT', 'ETHUSDT']));
    await expect(same.catalog.load(new Set<Market>(['spot']), [])).resolves.toBeUndefined();
  });

  it('refuses, with the symbols and feeds, every subscription the venue cannot serve as asked', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [] }, { items: [], skipped: [] }, undefined, {
      symbols: [{ path: 'strategies[0].symbols[0]', market: 'spot', symbol: 'DOGEUSDT' }],
      feeds: [],
      pages: [{ path: 'strategies[1].params', plugin: 'warm', problem: 'klines history 500: one request gives at most 300 candles, the forming one among them; ask for 299 or fewer' }],
    });
    const err = (await r.catalog.load(new Set<Market>(['spot']), []).catch((e: unknown) => e)) as ConfigError;
    expect(err.problems).toEqual([
      { path: 'strategies[1].params', message: 'the plugin warm subscribes to klines history 500: one request gives at most 300 candles, the forming one among them; ask for 299 or fewer' },
      { path: 'strategies[0].symbols[0]', message: "DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT)" },
    ]);
  });

  it('a required symbol the venue lists but the reader left out says why, not "not listed"', async () => {
    const r = rig({ items: [BTCUSDT], skipped: [{ path: 'symbols[1]', problem: 'symbols[1].pricePrecision must be an integer, got nothing', key: 'ethusdt' }] }, { items: [], skipped: [{ path: 'contracts[E-BTC-USD]', problem: 'an inverse contract (side 0): sluice values futures as linear contracts only', key: 'E-BTC-USD' }] }, undefined, {
      symbols: [
        { path: 'strategies[0].symbols[0]', market: 'spot', symbol: 'ETHUSDT' },
        { path: 'strategies[1].symbols[0]', market: 'futures', symbol: 'E-BTC-USD' },
      ],
      feeds: [],
      pages: [],
    });
    const err = (await r.catalog.load(new Set<Market>(['spot', 'futures']), []).catch((e: unknown) => e)) as ConfigError;
    expect(err.problems).toEqual([
      { path: 'strategies[0].symbols[0]', message: "ETHUSDT is listed by the venue's spot market, but sluice cannot use it: symbols[1].pricePrecision must be an integer, got nothing" },
      { path: 'strategies[1].symbols[0]', message: "E-BTC-USD is listed by the venue's futures market, but sluice cannot use it: an inverse contract (side 0): sluice values futures as linear contracts only" },
    ]);
  });

  it('names what spot cannot serve as asked: pages over the venue\'s most, a warm-up longer than a page, an interval it lacks', () => {
    expect(feedProblem('spot', { kind: 'ticker' })).toBeUndefined();
    expect(feedProblem('spot', { kind: 'depth', limit: 100 })).toBeUndefined();
    expect(feedProblem('spot', { kind: 'depth', limit: 101 })).toBe('depth limit 101: the venue gives 1 to 100 a request; ask for 100 or fewer');
    expect(feedProblem('spot', { kind: 'trades', limit: 1000 })).toBeUndefined();
    expect(feedProblem('spot', { kind: 'trades', limit: 0 })).toBe('trades limit 0: the venue gives 1 to 1000 a request; ask for 1000 or fewer');
    expect(feedProblem('spot', { kind: 'klines', interval: '1h', limit: 300, history: 299 })).toBeUndefined();
    expect(feedProblem('spot', { kind: 'klines', interval: '1min', limit: 2.5 })).toMatch(/^klines limit 2.5: /);
    expect(feedProblem('spot', { kind: 'klines', interval: '1min', history: 300 })).toBe('klines history 300: one request gives at most 300 candles, the forming one among them; ask for 299 or fewer');
    expect(feedProblem('spot', { kind: 'klines', interval: '4h' })).toBe('klines interval 4h: spot serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month');
  });

  it('names what futures cannot serve as asked, as for spot: klines in the intervals of the notes (the hour as 1h or 60min), one page of warm-up', () => {
    for (const interval of ['1min', '5min', '15min', '30min', '1h', '60min', '1day', '1week', '1month'] as const) expect(feedProblem('futures', { kind: 'klines', interval, history: 299 })).toBeUndefined();
    expect(feedProblem('futures', { kind: 'klines', interval: '4h' })).toBe('klines interval 4h: futures serves 1min, 5min, 15min, 30min, 60min, 1h, 1day, 1week, 1month');
    expect(feedProblem('futures', { kind: 'klines', interval: '1min', history: 300 })).toBe('klines history 300: one request gives at most 300 candles, the forming one among them; ask for 299 or fewer');
    expect(feedProblem('futures', { kind: 'depth', limit: 101 })).toBe('depth limit 101: the venue gives 1 to 100 a request; ask for 100 or fewer');
  });

  it('refuses each feed the market cannot poll (futures trades), and no other (futures klines are served)', async () => {
    const r = rig({ items: [], skipped: [] }, { items: [EBTC], skipped: [] }, undefined, {
      symbols: [],
      feeds: [
        { path: 'strategies[2].market', market: 'futures', kind: 'ticker', plugin: 'mm' },
        { path: 'strategies[2].market', market: 'futures', kind: 'klines', plugin: 'mm' },
        { path: 'strategies[2].market', market: 'futures', kind: 'trades', plugin: 'mm' },
        { path: 'strategies[3].market', market: 'spot', kind: 'klines', plugin: 'mm' },
        { path: 'strategies[3].market', market: 'spot', kind: 'trades', plugin: 'mm' },
      ],
      pages: [],
    });
    const err = (await r.catalog.load(new Set<Market>(['futures']), []).catch((e: unknown) => e)) as ConfigError;
    expect(err.problems).toEqual([
      { path: 'strategies[2].market', message: "futures: the plugin mm subscribes to trades, which this market cannot poll (futures trades are not served by the venue's REST API; subscribe to ticker, depth or klines)" },
    ]);
  });
});
