// `sluice backtest` and `sluice replay`: load and check at the door, run on a manual clock,
// write the report. Everything below the door is app/backtest.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { systemClock } from '../core/clock.js';
import type { TapeWindow } from '../core/types.js';
import { ConfigError, SluiceError, TapeEventError, TapeMismatchError } from '../core/errors.js';
import { parseConfig, type Config, type LoadedConfig, locatedError } from '../config/index.js';
import { durationText, shownFees } from '../core/display.js';
import { disabledLines, exitsLine, lossLimitLines, fillsCsv, incidentsLine, Progress, refusalsLine, renderHtml, SHARPE_ANNUALISE_MIN_MS, type Report, type ReportInput } from '../report/index.js';
import { loadStrategies } from '../strategy/index.js';
import { openTape, readTape, TapeFormatError } from '../tape/index.js';
import { runBacktest, runReplay } from '../app/backtest.js';
import pino from 'pino';
import { createLogger } from '../app/logger.js';

export interface BacktestCommandOptions {
  config: string;
  tape?: string;
  durationMs?: number;
  /** Only this part of the tape (--from, --to). */
  window?: TapeWindow;
  out?: string;
  sweep?: string[];
  /** Where decoded tape events are cached; undefined decodes the tape every run. */
  eventCacheDir?: string;
}

const printRefusal = (message: string) => void process.stderr.write(`${message}\n`);

/** Config text and its checked form; problems go to `refused` and undefined is returned. */
async function loadText(configText: string, source: string, refused: (message: string) => void): Promise<LoadedConfig | undefined> {
  try {
    // Backtests trade the simulator only: credentials are never read.
    return await parseConfig(configText, { source, backtest: true });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    refused(err.message);
    return undefined;
  }
}

/**
 * One backtest in this thread, the tape streamed from its file: the report, or an exception for
 * the caller to print. A config refused at the door is told to `refused` (stderr by default).
 */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export async function backtestOnce(
  job: { configText: string; source: string; cwd: string; tapePath?: string; tapeName?: string; durationMs?: number; window?: TapeWindow; eventCacheDir?: string; strategyLogs?: boolean },
  progress: boolean,
  refused: (message: string) => void = printRefusal,
): Promise<{ report: Report; input: ReportInput; untaped: string[]; fills: string } | undefined> {
  const { configText, source, cwd, tapePath } = job;
  const loaded = await loadText(configText, source, refused);
  if (!loaded) return undefined;
  const strategies = await loadStrategies(loaded.config.strategies, cwd, loaded.fromEnvironment);
  if (strategies.length === 0) {
    refused(`${source}: no enabled strategy to backtest`);
    return undefined;
  }
  // The engine's lines go to stderr stamped with the run's virtual time, which the run hands to
  // pluginLog below: a single run's warnings (a refused intent with its rule and fix, an order
  // whose answer was lost) with its strategies' lines; a sweep run's errors only, named by run
  // (its threads' lines interleave), its strategies' lines with them. stdout keeps the table.
  let virtualNow: () => number = () => 0;
  const engineLevel = LEVELS.indexOf(loaded.config.log.level) > LEVELS.indexOf('warn') ? loaded.config.log.level : 'warn';
  const stderrLog = (level: string, now: () => number) => createLogger({ level, pretty: false, secrets: [], now, destination: pino.destination(2) });
  const log = job.strategyLogs ? stderrLog(engineLevel, () => virtualNow()) : stderrLog('error', () => virtualNow()).child({ run: source });
  const bar = progress && tapePath ? new Progress(process.stderr, { total: 1, now: systemClock.now, label: 'backtest' }) : undefined;
  const result = await runBacktest({
    config: loaded.config,
    strategies,
    log,
    tapePath,
    tapeName: job.tapeName,
    durationMs: job.durationMs,
    window: job.window,
    eventCacheDir: job.eventCacheDir,
    // A single run shows what its strategies log (ctx.log, at log.level); a sweep run only their errors.
    pluginLog: (now: () => number) => {
      virtualNow = now;
      return job.strategyLogs ? stderrLog(loaded.config.log.level, now) : log;
    },
    onProgress: bar ? (done) => bar.update(done) : undefined,
  });
  bar?.finish();
  const { journal } = result.app;
  const fills = fillsCsv(result.input.fills, (f) => {
    const order = journal.ordersByVenueId(f.venueOrderId).find((o) => o.market === f.market && o.symbol === f.symbol);
    return order && { strategy: order.strategyId, clientOrderId: order.clientOrderId };
  });
  return { report: result.report, input: result.input, untaped: result.untaped, fills };
}

export async function backtestCommand(opts: BacktestCommandOptions): Promise<number> {
  let configText: string;
  try {
    configText = readFileSync(opts.config, 'utf8');
  } catch (err) {
    process.stderr.write(`cannot read ${opts.config} (${(err as NodeJS.ErrnoException).code}): check the --config path\n`);
    return 1;
  }
  // Only the header is read here, so a bad tape stops before anything runs; the backtest streams the rest.
  if (opts.tape) {
    try {
      await (await openTape(opts.tape)).calls.return(undefined);
    } catch (err) {
      return tapeUnreadable(opts.tape, err);
    }
  }
  const tapeName = opts.tape ? basename(opts.tape) : undefined;
  if (!opts.tape && opts.durationMs === undefined) {
    process.stderr.write('give --tape T (a recorded market) or --duration (the simulator\'s own market), e.g. --tape backtest/tapes/sample.jsonl.gz\n');
    return 1;
  }

  // A sweep is `sluice sweep` on this machine's threads: one way to sweep, one report.
  if (opts.sweep && opts.sweep.length > 0) {
    const { sweepCommand } = await import('./sweep-command.js');
    return sweepCommand({ config: opts.config, tape: opts.tape, durationMs: opts.durationMs, window: opts.window, sweep: opts.sweep, out: opts.out, eventCacheDir: opts.eventCacheDir });
  }

  let result;
  try {
    result = await backtestOnce(
      { configText, source: opts.config, cwd: process.cwd(), tapePath: opts.tape, tapeName, durationMs: opts.durationMs, window: opts.window, eventCacheDir: opts.eventCacheDir, strategyLogs: true },
      Boolean(process.stderr.isTTY),
    );
  } catch (err) {
    // A config the venue refuses at start-up (a symbol it does not list), with its YAML lines.
    if (err instanceof ConfigError) {
      process.stderr.write(`${locatedError(err, configText, opts.config).message}\n`);
      return 1;
    }
    // A tape broken past its header, or one the simulator's instruments cannot replay.
    if (err instanceof TapeFormatError || err instanceof TapeEventError) {
      process.stderr.write(`backtest stopped: ${err.message}\n`);
      return 1;
    }
    // The simulated venue failed a request the run cannot go on without (the start's clock sync)
    // through every retry: its configured faults, or the tape's recorded troubles.
    if (err instanceof SluiceError) {
      process.stderr.write(`backtest stopped: ${err.message} (the simulated venue failed it through every retry: lower sim.faults, or set sim.recordedFaults: false to leave the tape's recorded troubles out)\n`);
      return 1;
    }
    throw err;
  }
  if (!result) return 1;
  const { report, input } = result;
  for (const s of result.untaped) process.stderr.write(`warning: the tape holds no market data for ${s}: it traded the simulator's own synthetic market there, not recorded reality (record a tape of it: README, Record your own tape)\n`);
  const out = opts.out ?? join('backtest', 'reports', `${basename(opts.config).replace(/\.ya?ml$/, '')}${tapeName ? `-${tapeName.replace(/\.jsonl(\.gz)?$/, '')}` : ''}`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'report.html'), renderHtml(report, input));
  writeFileSync(join(out, 'fills.csv'), result.fills);
  const notes = [...disabledLines(report), incidentsLine(report), refusalsLine(report), exitsLine(report), ...lossLimitLines(report)].filter((l) => l !== undefined).map((l) => `${l}\n`).join('');
  process.stdout.write(`${summaryLine(report)}\n${notes}report: ${join(out, 'report.json')}, ${join(out, 'report.html')}, ${join(out, 'fills.csv')}\n`);
  return 0;
}

/** The report's headline as one line; its money is already rounded (report/build.ts), and Sharpe says what it is. */
export function summaryLine(r: Report): string {
  const win = r.winRate.value === null ? '-' : `${(r.winRate.value * 100).toFixed(1)}%`;
  const s = r.sharpe;
  const sharpe =
    s.value === null ? '-' : s.annualised ? `${s.value.toFixed(3)} annualised` : `${s.value.toFixed(3)} ${s.basis} (not annualised: ${durationText(s.spanMs)} of samples, under ${durationText(SHARPE_ANNUALISE_MIN_MS)})`;
  const disabled = r.disabledStrategies ?? [];
  // A result a strategy did not live to the end of says so first (the lines after it say when and why).
  const died = disabled.length > 0 ? `${disabled.length === 1 ? 'strategy' : 'strategies'} ${disabled.map((x) => x.strategy).join(', ')} disabled during the run; ` : '';
  return `${died}pnl ${r.pnl.total ?? '-'} ${r.quoteAsset} (${r.pnl.totalPct ?? '-'}%), fees ${shownFees(r.pnl.fees, r.fees.otherAssets, r.quoteAsset)}, fills ${r.trades.fills}, win rate ${win}, max drawdown ${r.maxDrawdown.amount ?? '-'}, sharpe ${sharpe}, orders sent ${r.orders.sent} (and ${r.orders.cancelsSent} cancels)`;
}

/** A tape that cannot be opened or read: says which and how to go on. */
function tapeUnreadable(path: string, err: unknown): number {
  if (err instanceof TapeFormatError) process.stderr.write(`${err.message}\n`);
  else if ((err as NodeJS.ErrnoException).code) process.stderr.write(`cannot read ${path} (${(err as NodeJS.ErrnoException).code}): check the --tape path\n`);
  else throw err;
  return 1;
}

export async function replayCommand(opts: { tape: string }): Promise<number> {
  let tape;
  try {
    tape = await readTape(opts.tape);
  } catch (err) {
    return tapeUnreadable(opts.tape, err);
  }
  const recorded = tape.header.meta.config as Config | undefined;
  if (!recorded) {
    process.stderr.write(`${opts.tape} holds no config in its header: only tapes recorded by sluice (record.path) can be replayed\n`);
    return 1;
  }
  // A daemon's tape ran on the wall clock: its timers fired when the machine let them, which a
  // replay on a manual clock cannot repeat, so it would differ within seconds without any change.
  if (typeof tape.header.meta.stopAt !== 'number') {
    process.stderr.write(
      `${opts.tape} was recorded by a daemon (sluice run) on the wall clock, which a replay cannot repeat exactly: replay re-runs tapes a backtest recorded (record: in a backtest's config). A daemon's tape is for backtests: sluice backtest --tape ${opts.tape}\n`,
    );
    return 1;
  }
  const strategies = await loadStrategies(recorded.strategies, process.cwd());
  const log = createLogger({ level: 'fatal', pretty: false, secrets: [] });
  try {
    const { requests } = await runReplay({ config: recorded, strategies, log, tape });
    process.stdout.write(`replay of ${opts.tape}: all ${requests} recorded requests matched\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof TapeMismatchError)) throw err;
    process.stderr.write(`replay of ${opts.tape} differs from the recording:\n${err.message}\n`);
    return 1;
  }
}
