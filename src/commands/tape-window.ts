// --from and --to of backtests and sweeps: a part of a tape by UTC time.
import type { TapeWindow } from '../core/types.js';

// 2026-11-20, 2026-11-20T14:30, 2026-11-20T14:30:05.5, each optionally ending in Z or +01:00.
const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** One end of a window, or the problem with it (named by its option). */
function parseTime(option: string, text: string): number | string {
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text.includes('T') ? text : `${text}T00:00`}Z`;
  const at = TIME.test(text) && realDate(text) ? Date.parse(zoned) : NaN;
  return Number.isFinite(at) ? at : `${option} ${JSON.stringify(text)}: give a time as 2026-11-20 or 2026-11-20T14:30 (UTC unless it ends in a zone, e.g. +01:00)`;
}

/** Whether the date and time written exist (Date.parse rolls 2026-02-30 over to March 2). */
function realDate(text: string): boolean {
  const [y, m, d, h = 0, min = 0, s = 0] = text.split(/[-T:.Z+]/).map(Number);
  const day = new Date(Date.UTC(y!, m! - 1, d!));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m! - 1 && day.getUTCDate() === d && h < 24 && min < 60 && s < 60;
}

/** The window --from and --to ask for (undefined when neither is given), or the problem with them. */
export function parseWindow(opts: { from?: string; to?: string; tape?: string }): { window?: TapeWindow; problem?: string } {
  if (opts.from === undefined && opts.to === undefined) return {};
  if (!opts.tape) return { problem: '--from and --to choose a part of a tape: give --tape T as well (without a tape, --duration sets the length)' };
  const window: TapeWindow = {};
  for (const [option, text] of [['--from', opts.from], ['--to', opts.to]] as const) {
    if (text === undefined) continue;
    const at = parseTime(option, text);
    if (typeof at === 'string') return { problem: at };
    window[option === '--from' ? 'from' : 'to'] = at;
  }
  if (window.from !== undefined && window.to !== undefined && window.to <= window.from) return { problem: `--to ${opts.to} is not after --from ${opts.from}: the window must end after it starts` };
  return { window };
}
