// Trades no order of ours claims: one summary line per pass, each trade's detail at debug.
import { describe, expect, it } from 'vitest';
import type { Log } from '../../../src/core/log.js';
import { reportUnclaimed, type UnclaimedTrade } from '../../../src/reconciler/unclaimed.js';

function collecting(): { log: Log; lines: [string, Record<string, unknown>, string][] } {
  const lines: [string, Record<string, unknown>, string][] = [];
  const at = (level: string) => (fields: object, msg: string) => void lines.push([level, fields as Record<string, unknown>, msg]);
  return { log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

const trade = (symbol: string, tradeId: string, time: number, history: boolean): UnclaimedTrade => ({ market: 'spot', symbol, tradeId, venueOrderId: `o${tradeId}`, time, history });

describe('reportUnclaimed', () => {
  it('history in one info line, others in one warning, with count, symbols and span; each trade at debug', () => {
    const { log, lines } = collecting();
    reportUnclaimed(log, [trade('ETHUSDT', '7', 3_000, true), trade('BTCUSDT', '5', 1_000, true), trade('BTCUSDT', '6', 2_000, true), trade('BTCUSDT', '9', 60_000, false)]);
    expect(lines.filter(([level]) => level === 'debug').map(([, f]) => [f.symbol, f.tradeId, f.venueOrderId, f.time])).toEqual([
      ['ETHUSDT', '7', 'o7', 3_000],
      ['BTCUSDT', '5', 'o5', 1_000],
      ['BTCUSDT', '6', 'o6', 2_000],
      ['BTCUSDT', '9', 'o9', 60_000],
    ]);
    expect(lines.filter(([level]) => level !== 'debug')).toEqual([
      [
        'info',
        { trades: 3, symbols: ['spot:BTCUSDT', 'spot:ETHUSDT'], from: '1970-01-01T00:00:01.000Z', to: '1970-01-01T00:00:03.000Z' },
        '3 trades of this account from before this journal match no order sluice knows: its history, not counted toward positions (each at debug)',
      ],
      [
        'warn',
        { trades: 1, symbols: ['spot:BTCUSDT'], from: '1970-01-01T00:01:00.000Z', to: '1970-01-01T00:01:00.000Z' },
        '1 trade of this account matches no order sluice knows (placed by hand or by another program?): not counted toward positions (each at debug)',
      ],
    ]);
  });

  it('says nothing for a pass that found none', () => {
    const { log, lines } = collecting();
    reportUnclaimed(log, []);
    expect(lines).toEqual([]);
  });
});
