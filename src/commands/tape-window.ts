// --from and --to of backtests and sweeps: a part of a tape by UTC time.
import type { TapeWindow } from '../core/types.js';

// 2026-11-20, 2026-11-20T14:30, 2026-11-20T14:30:05.5, each optionally ending in Z or +01:00.
const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** One end of a window, or the problem with it (named by its option). */
function parseTime(option: string, text: string): number | string {
  const form = 'give a time as 2026-11-20 or 2026-11-20T14:30 (UTC unless it ends in a zone, e.g. +01:00)';
  if (!TIME.test(text)) return `${option} ${JSON.stringify(text)}: ${form}`;
  if (!realDate(text)) return `${option} ${JSON.stringify(text)}: no such date or time (a month has up to 31 days, February 28 or 29; hours 0-23, minutes and seconds 0-59)`;
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text.includes('T') ? text : `${text}T00:00`}Z`;
  const at = Date.parse(zoned);
  return Number.isFinite(at) ? at : `${option} ${JSON.stringify(text)}: ${form}`;
}

/** Whether the date and time written exist (Date.parse rolls 2026-02-30 over to March 2). */
function realDate(text: string): boolean {
  const [y, m, d, h = 0, min = 0, s = 0] = text.split(/[-T:.Z+]/).map(Number);
  const day = new Date(Date.UTC(y!, m! - 1, d!));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m! - 1 && day.getUTCDate() === d && h < 24 && min < 60 && s < 60;
}

/** The option names a window is written with: --from/--to, or a sweep's --holdout-from/--holdout-to. */
export interface WindowOptions {
  from: string;
  to: string;
}

const FROM_TO: WindowOptions = { from: '--from', to: '--to' };

/** The window --from and --to (or `names`) ask for (undefined when neither is given), or the problem with it. */
export function parseWindow(opts: { from?: string; to?: string; tape?: string }, names: WindowOptions = FROM_TO): { window?: TapeWindow; problem?: string } {
  if (opts.from === undefined && opts.to === undefined) return {};
  if (!opts.tape) return { problem: `${names.from} and ${names.to} choose a part of a tape: give --tape T as well (without a tape, --duration sets the length)` };
  const window: TapeWindow = {};
  for (const [end, text] of [['from', opts.from], ['to', opts.to]] as const) {
    if (text === undefined) continue;
    const at = parseTime(names[end], text);
    if (typeof at === 'string') return { problem: at };
    window[end] = at;
  }
  if (window.from !== undefined && window.to !== undefined && window.to <= window.from) return { problem: `${names.to} ${opts.to} is not after ${names.from} ${opts.from}: the window must end after it starts` };
  return { window };
}

/** Whether two windows share any time (an end not given runs to that end of the tape). */
export function windowsOverlap(a: TapeWindow, b: TapeWindow): boolean {
  const before = (end: number | undefined, start: number | undefined) => end !== undefined && start !== undefined && end <= start;
  return !before(a.to, b.from) && !before(b.to, a.from);
}
