// A backtest's fills as CSV (fills.csv beside report.json): one row per fill, for a spreadsheet
// or a dataframe. Money stays as the venue wrote it (decimal text), times in ISO and epoch ms.
import type { Fill } from '../core/types.js';

export const FILLS_CSV_HEADER = ['time', 'timeMs', 'strategy', 'clientOrderId', 'market', 'symbol', 'side', 'price', 'volume', 'fee', 'feeAsset', 'maker', 'tradeId', 'venueOrderId'] as const;

/** `ownerOf`: the strategy and client order id of the order a fill belongs to (empty for none of ours). */
export function fillsCsv(fills: readonly Fill[], ownerOf: (fill: Fill) => { strategy: string; clientOrderId: string } | undefined): string {
  const rows = fills.map((f) => {
    const owner = ownerOf(f);
    return [new Date(f.time).toISOString(), String(f.time), owner?.strategy ?? '', owner?.clientOrderId ?? '', f.market, f.symbol, f.side, f.price, f.volume, f.fee, f.feeAsset, f.isMaker ? 'true' : 'false', f.tradeId, f.venueOrderId];
  });
  return [FILLS_CSV_HEADER as readonly string[], ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

/** RFC 4180: a cell holding a comma, a quote or a line break is quoted, its quotes doubled. */
function cell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
