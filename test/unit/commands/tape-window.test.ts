// --from / --to: the times a trader writes, read as UTC unless they name a zone; every problem
// names the option and the form to give.
import { describe, expect, it } from 'vitest';
import { parseWindow } from '../../../src/commands/tape-window.js';

describe('parseWindow', () => {
  it('reads dates and times as UTC unless a zone ends them', () => {
    expect(parseWindow({ tape: 't', from: '2026-01-01' })).toEqual({ window: { from: Date.UTC(2026, 0, 1) } });
    expect(parseWindow({ tape: 't', from: '2026-01-01T00:10', to: '2026-01-01T00:20:30.5' })).toEqual({ window: { from: Date.UTC(2026, 0, 1, 0, 10), to: Date.UTC(2026, 0, 1, 0, 20, 30, 500) } });
    expect(parseWindow({ tape: 't', to: '2026-01-01T01:00+01:00' })).toEqual({ window: { to: Date.UTC(2026, 0, 1) } });
    expect(parseWindow({ tape: 't', to: '2026-01-01T00:00:00Z' })).toEqual({ window: { to: Date.UTC(2026, 0, 1) } });
    expect(parseWindow({ tape: 't' })).toEqual({});
  });

  it('names the option and the form for anything else', () => {
    const form = 'give a time as 2026-11-20 or 2026-11-20T14:30 (UTC unless it ends in a zone, e.g. +01:00)';
    expect(parseWindow({ tape: 't', from: 'yesterday' })).toEqual({ problem: `--from "yesterday": ${form}` });
    expect(parseWindow({ tape: 't', to: '1767225600000' })).toEqual({ problem: `--to "1767225600000": ${form}` });
    const none = 'no such date or time (a month has up to 31 days, February 28 or 29; hours 0-23, minutes and seconds 0-59)';
    expect(parseWindow({ tape: 't', from: '2026-13-01' })).toEqual({ problem: `--from "2026-13-01": ${none}` });
    // Not rolled over to March 2, nor to the next day.
    expect(parseWindow({ tape: 't', to: '2026-02-30' })).toEqual({ problem: `--to "2026-02-30": ${none}` });
    expect(parseWindow({ tape: 't', to: '2026-01-01T24:30' })).toEqual({ problem: `--to "2026-01-01T24:30": ${none}` });
    expect(parseWindow({ tape: 't', to: '2028-02-29T23:59:59.999-05:00' })).toEqual({ window: { to: Date.UTC(2028, 2, 1, 4, 59, 59, 999) } });
    expect(parseWindow({ tape: 't', from: '2026-01-01T00:20', to: '2026-01-01T00:10' })).toEqual({ problem: '--to 2026-01-01T00:10 is not after --from 2026-01-01T00:20: the window must end after it starts' });
    expect(parseWindow({ from: '2026-01-01' })).toEqual({ problem: '--from and --to choose a part of a tape: give --tape T as well (without a tape, --duration sets the length)' });
  });

  it("a sweep's holdout is read the same way, its problems named by its own options", () => {
    const names = { from: '--holdout-from', to: '--holdout-to' };
    expect(parseWindow({ tape: 't', from: '2026-01-01T00:20' }, names)).toEqual({ window: { from: Date.UTC(2026, 0, 1, 0, 20) } });
    expect(parseWindow({ tape: 't', from: 'soon' }, names).problem).toMatch(/^--holdout-from "soon": give a time as/);
    expect(parseWindow({ tape: 't', from: '2026-01-02', to: '2026-01-01' }, names)).toEqual({ problem: '--holdout-to 2026-01-01 is not after --holdout-from 2026-01-02: the window must end after it starts' });
    expect(parseWindow({ to: '2026-01-01' }, names).problem).toMatch(/^--holdout-from and --holdout-to choose a part of a tape: give --tape T/);
  });
});
