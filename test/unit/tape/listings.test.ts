// The instruments a tape's venue listed, read as the live client reads them, and the simulator's
// instruments a backtest makes of them.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simInstruments } from '../../../src/app/recorded-instruments.js';
import { encodeLine } from '../../../src/tape/format.js';
import { LISTING_WITHIN_MS, recordedListings, TAPE_VERSION, type Tape } from '../../../src/tape/index.js';
import { call, T0, tempDir } from './helpers.js';

const header = { tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} } as const;
const contract = (symbol: string, more: object) => ({ symbol, contractId: 7, pricePrecision: 2, side: 1, multiplier: '0.10000000', multiplierCoin: 'SOL', minOrderVolume: 1, status: 1, ...more });

describe('recordedListings', () => {
  it('takes the first listing the client can read, in the live variants, and passes over an error answered with a 200', async () => {
    const tape: Tape = {
      header,
      calls: [
        call(0, 'spot', 'GET', '/sapi/v1/symbols', { at: T0, response: '{"code":-1000,"msg":"busy"}' }),
        call(1, 'spot', 'GET', '/sapi/v1/symbols', { at: T0 + 5, response: '{"symbols":[{"symbol":"solusdt","baseAsset":"sol","quoteAsset":"usdt","pricePrecision":3,"quantityPrecision":2,"limitVolumeMin":0.01000000,"marketBuyMin":"5"}]}' }),
        call(2, 'futures', 'GET', '/fapi/v1/contracts', {
          at: T0 + 9,
          response: JSON.stringify({ code: '0', msg: 'success', data: [contract('E-SOL-USDT', {}), contract('E-BTC-USD', { side: 0 }), contract('E-ETH-USDT', { status: 0 })] }),
        }),
        call(3, 'spot', 'GET', '/sapi/v1/symbols', { at: T0 + 20, response: '{"symbols":[]}' }),
      ],
    };
    const listings = await recordedListings({ tape });
    expect(listings.symbols?.items.map((s) => [s.symbol, s.baseAsset, s.quoteAsset, s.limitVolumeMin, s.limitPriceMin])).toEqual([['SOLUSDT', 'SOL', 'USDT', '0.01', undefined]]);
    expect(listings.contracts?.items.map((c) => c.symbol)).toEqual(['E-SOL-USDT', 'E-BTC-USD', 'E-ETH-USDT']);

    const { symbols, contracts } = simInstruments(listings);
    expect(symbols).toEqual([
      expect.objectContaining({ symbol: 'SOLUSDT', pricePrecision: 3, quantityPrecision: 2, limitVolumeMin: '0.01', limitPriceMin: '0.001', marketBuyMin: '5', marketSellMin: '0.01', market: expect.objectContaining({ levels: 0, tradeRate: 0 }) }),
    ]);
    // The inverse contract and the one not open for trading are left out, as live leaves them out.
    expect(contracts).toEqual([expect.objectContaining({ symbol: 'E-SOL-USDT', underlying: 'SOLUSDT', marginCoin: 'USDT', multiplier: '0.1', minOrderVolume: '1', leverage: 10 })]);
  });

  it('finds nothing in a tape with no listing near its start; a market not listed keeps the simulator’s own', async () => {
    const late: Tape = { header, calls: [call(0, 'spot', 'GET', '/sapi/v1/time', { at: T0 }), call(1, 'spot', 'GET', '/sapi/v1/symbols', { at: T0 + LISTING_WITHIN_MS + 1, response: '{"symbols":[]}' })] };
    expect(await recordedListings({ tape: late })).toEqual({});
    expect(simInstruments({})).toEqual({});
  });

  describe('from a file', () => {
    let tmp: ReturnType<typeof tempDir> | undefined;
    afterEach(() => tmp?.cleanup());
    const symbols = (name: string) => `{"symbols":[{"symbol":"${name}","baseAsset":"sol","quoteAsset":"usdt","pricePrecision":3,"quantityPrecision":2}]}`;
    const tapeFile = (lines: string[]) => {
      tmp = tempDir();
      const path = tmp.path('t.jsonl');
      writeFileSync(path, `${[encodeLine(header), ...lines].join('\n')}\n`);
      return path;
    };
    const listed = (name: string, at: number) => encodeLine(call(1, 'spot', 'GET', '/sapi/v1/symbols', { at, response: symbols(name) }));

    it('parses only the lines that may be a listing, within the first 10 minutes', async () => {
      // A line that is no listing is not parsed: one that would not parse is passed over.
      const path = tapeFile([encodeLine(call(0, 'spot', 'GET', '/sapi/v1/time', { at: T0 })), '{"kind":"call","seq":1,"at":1 not json', listed('SOLUSDT', T0 + 9)]);
      expect((await recordedListings({ tapePath: path })).symbols?.items.map((s) => s.symbol)).toEqual(['SOLUSDT']);
      const late = tapeFile([encodeLine(call(0, 'spot', 'GET', '/sapi/v1/time', { at: T0 })), listed('SOLUSDT', T0 + LISTING_WITHIN_MS + 1)]);
      expect(await recordedListings({ tapePath: late })).toEqual({});
    });

    it('with the first spot account answer the client can read: what the account held as the recording started', async () => {
      const account = (body: string, at: number) => encodeLine(call(2, 'spot', 'GET', '/sapi/v1/account', { at, response: body }));
      const path = tapeFile([
        account('{"code":"-1000","msg":"busy"}', T0 + 1),
        listed('SOLUSDT', T0 + 9),
        account('{"balances":[{"asset":"sol","free":"40","locked":"2"},{"asset":"USDT","free":"1","locked":"0"}]}', T0 + 20),
        account('{"balances":[{"asset":"SOL","free":"1","locked":"0"}]}', T0 + 40),
      ]);
      const found = await recordedListings({ tapePath: path });
      expect(found.balances).toEqual({ items: [{ asset: 'SOL', free: '40', locked: '2' }, { asset: 'USDT', free: '1', locked: '0' }], skipped: [] });
      expect(found.symbols?.items.map((s) => s.symbol)).toEqual(['SOLUSDT']);
    });

    it('keeps what it found beside the event cache: the next run does not read the tape', async () => {
      const path = tapeFile([listed('SOLUSDT', T0 + 9)]);
      const cacheDir = join(tmp!.dir, 'cache');
      expect((await recordedListings({ tapePath: path, eventCacheDir: cacheDir })).symbols?.items.map((s) => s.symbol)).toEqual(['SOLUSDT']);
      const kept = readdirSync(cacheDir).filter((n) => n.endsWith('.listings'));
      expect(kept).toHaveLength(1);
      // What the sidecar says is what the next run lists (the tape, unchanged, is not read again).
      writeFileSync(join(cacheDir, kept[0]!), JSON.stringify({ version: 2, payload: { symbols: { items: [{ symbol: 'KEPTUSDT' }], skipped: [] } } }));
      expect((await recordedListings({ tapePath: path, eventCacheDir: cacheDir })).symbols?.items.map((s) => s.symbol)).toEqual(['KEPTUSDT']);
      // A sidecar of another version is found again from the tape.
      writeFileSync(join(cacheDir, kept[0]!), JSON.stringify({ version: 0, payload: {} }));
      expect((await recordedListings({ tapePath: path, eventCacheDir: cacheDir })).symbols?.items.map((s) => s.symbol)).toEqual(['SOLUSDT']);
    });
  });
});
