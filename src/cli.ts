// The `sluice` command. Each subcommand loads only what it needs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { PACKAGE_ROOT } from './core/package-root.js';

const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
const program = new Command();
program
  .name('sluice')
  .description('A strategy runner that never loses or duplicates an order and never trips a rate limit.')
  .version(version, '-V, --version', 'print the version of sluice');

function integer(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number`);
    return Number(value);
  };
}

const FROM_HELP = 'with --tape: start at this UTC time (2026-11-20 or 2026-11-20T14:30; a zone such as +01:00 may end it); the tape before it sets the market the run starts on';
const TO_HELP = 'with --tape: end at this UTC time (same form as --from)';

/** --from and --to as a window; a problem with them ends the command (exit 1), saying what to give. */
async function tapeWindow(opts: { from?: string; to?: string; tape?: string }) {
  const { parseWindow } = await import('./commands/tape-window.js');
  const { window, problem } = parseWindow(opts);
  if (problem === undefined) return window;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

// The sweep-holdout module's default, without loading it to print the help.
const HOLDOUT_TOP_DEFAULT = 3;

/** --holdout-from/--holdout-to/--holdout-top as a sweep's holdout; a problem with them ends the command (exit 1). */
async function holdoutWindow(opts: { holdoutFrom?: string; holdoutTo?: string; holdoutTop?: number; tape?: string }) {
  const { parseWindow } = await import('./commands/tape-window.js');
  const { window, problem } = parseWindow({ from: opts.holdoutFrom, to: opts.holdoutTo, tape: opts.tape }, { from: '--holdout-from', to: '--holdout-to' });
  const wrong = problem ?? (!window && opts.holdoutTop !== undefined ? '--holdout-top needs --holdout-from or --holdout-to (the part of the tape to run the best runs on again)' : undefined);
  if (wrong === undefined) return window && { window, top: opts.holdoutTop ?? HOLDOUT_TOP_DEFAULT };
  process.stderr.write(`${wrong}\n`);
  process.exit(1);
}

/** --sample and --seed as a random search; --seed alone ends the command (exit 1). */
function sampleOf(opts: { sample?: number; seed?: number }) {
  if (opts.sample !== undefined) return { count: opts.sample, seed: opts.seed ?? 1 };
  if (opts.seed === undefined) return undefined;
  process.stderr.write('--seed chooses the runs --sample draws: give --sample N as well (without it every combination runs)\n');
  process.exit(1);
}

program
  .command('init')
  .description('make a strategy project of your own that depends on sluice: package.json, tsconfig, sluice.yaml, an example strategy with its test, .gitignore')
  .argument('<dir>', 'a new or empty directory')
  .action(async (dir: string) => {
    const { initProject, ScaffoldError } = await import('./commands/scaffold.js');
    try {
      const files = initProject(dir);
      process.stdout.write(`made ${dir}:\n${files.map((f) => `  ${f}`).join('\n')}\nnext: cd ${dir} && npm install && npm test && npm start\n`);
    } catch (err) {
      if (!(err instanceof ScaffoldError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('new-strategy')
  .description('add strategies/NAME (a strategy and its test, from a template) to this project, and an entry for it to the config')
  .argument('<name>', 'lower-case letters, digits and dashes (its id in the config: the name without dashes, cut to 12 characters)')
  .option('-c, --config <file>', 'the config to add it to, when it exists', 'sluice.yaml')
  .action(async (name: string, opts: { config: string }) => {
    const { newStrategy, ScaffoldError } = await import('./commands/scaffold.js');
    try {
      const files = newStrategy(name, process.cwd(), opts.config);
      process.stdout.write(`${files.map((f) => `  ${f}`).join('\n')}\n`);
    } catch (err) {
      if (!(err instanceof ScaffoldError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    }
  });

program
  .command('run')
  .description('run the daemon: mode: paper (the default) trades the built-in simulated exchange, mode: live the venue with SLUICE_API_KEY and SLUICE_API_SECRET')
  .requiredOption('-c, --config <file>', 'YAML config file')
  .action(async (opts: { config: string }) => {
    const { runCommand } = await import('./commands/run.js');
    // Everything is stopped and flushed by now; idle timers (clock resync, limiter give-backs) must not hold the exit.
    process.exit(await runCommand(opts.config));
  });

program
  .command('validate')
  .description('check a config as sluice run will: every problem in one list with its YAML path, line and fix (the config, credentials, plugins and their params), then what the start asks the venue (its symbols, whether it takes the key); the last line says which checks ran')
  .requiredOption('-c, --config <file>', 'YAML config file')
  .option('--offline', 'ask the venue nothing: its symbols and the key go unchecked')
  .action(async (opts: { config: string; offline?: boolean }) => {
    const { validateCommand } = await import('./commands/validate.js');
    const { ok, output } = await validateCommand(opts.config, process.env, process.cwd(), { offline: opts.offline === true });
    (ok ? process.stdout : process.stderr).write(`${output}\n`);
    process.exitCode = ok ? 0 : 1;
  });

program
  .command('plan')
  .description('run one tick of every strategy against the venue and print the batches and risk verdicts; sends nothing')
  .requiredOption('-c, --config <file>', 'YAML config file')
  .action(async (opts: { config: string }) => {
    const { planCommand } = await import('./commands/plan.js');
    process.exit(await planCommand(opts.config));
  });

program
  .command('status')
  .description('show the journal and the venue side by side: positions, open orders, drift (read-only; exit 1 on drift)')
  .requiredOption('-c, --config <file>', 'YAML config file')
  .action(async (opts: { config: string }) => {
    const { statusCommand } = await import('./commands/status.js');
    process.exit(await statusCommand(opts.config));
  });

program
  .command('doctor')
  .description('check the clock against the venue, the credentials, rate-limit headroom and the journal (read-only); OK/WARN/FAIL per line, exit 1 on any FAIL')
  .requiredOption('-c, --config <file>', 'YAML config file')
  .action(async (opts: { config: string }) => {
    const { doctorCommand } = await import('./commands/doctor.js');
    process.exit(await doctorCommand(opts.config));
  });

program
  .command('journal')
  .description('journal maintenance')
  .command('prune')
  .description('delete final orders older than --keep-days with their events and fills (every open order and each strategy\'s latest 1000 stay), then VACUUM; with the daemon stopped (it takes the journal\'s lock)')
  .requiredOption('-c, --config <file>', 'YAML config file (journal.path)')
  .requiredOption('--keep-days <n>', 'keep final orders last updated within this many days', integer('--keep-days'))
  .option('--no-vacuum', 'delete only; the space freed is reused by later writes but the file does not shrink')
  .action(async (opts: { config: string; keepDays: number; vacuum: boolean }) => {
    const { journalPruneCommand } = await import('./commands/journal.js');
    process.exit(await journalPruneCommand(opts.config, { keepDays: opts.keepDays, vacuum: opts.vacuum }));
  });

program
  .command('backtest')
  .description('run strategies on a manual clock against the simulator, driven by a recorded tape; writes a JSON and an HTML report')
  .requiredOption('-c, --config <file>', 'YAML config file (strategies, risk, sim latency, fees, faults and scenario)')
  .option('-t, --tape <file>', 'recorded tape (.jsonl or .jsonl.gz) whose market data drives the simulator')
  .option('-d, --duration <minutes>', 'without a tape: minutes of the simulator\'s own market', integer('--duration'))
  .option('--from <time>', FROM_HELP)
  .option('--to <time>', TO_HELP)
  .option('-o, --out <dir>', 'report directory (default backtest/reports/<config>-<tape>)')
  .option('-s, --sweep <key=a,b,c>', 'run every value (repeat for a grid): the same as sluice sweep on this machine (ranked table, sweep report in --out)', (v: string, all: string[] = []) => [...all, v])
  .option('--cache-dir <dir>', 'where the tape\'s decoded market events are kept for the next run (default $XDG_CACHE_HOME/sluice/events or ~/.cache/sluice/events)')
  .option('--no-cache', 'decode the tape on every run and write no cache')
  .action(async (opts: { config: string; tape?: string; duration?: number; from?: string; to?: string; out?: string; sweep?: string[]; cache: boolean; cacheDir?: string }) => {
    const { backtestCommand } = await import('./commands/backtest.js');
    const { defaultEventCacheDir } = await import('./tape/index.js');
    process.exit(
      await backtestCommand({
        config: opts.config,
        tape: opts.tape,
        durationMs: opts.duration === undefined ? undefined : opts.duration * 60_000,
        window: await tapeWindow(opts),
        out: opts.out,
        sweep: opts.sweep,
        eventCacheDir: opts.cache ? (opts.cacheDir ?? defaultEventCacheDir()) : undefined,
      }),
    );
  });

program
  .command('sweep')
  .description('run a backtest per combination of --sweep values, on local worker threads or, with --queue, on `sluice worker`s through Redis; writes report.json and report.html')
  .option('-c, --config <file>', 'base YAML config of every run')
  .option('-t, --tape <file>', 'recorded tape whose market data drives the simulator (sent to workers by content hash)')
  .option('-d, --duration <minutes>', "without a tape: minutes of the simulator's own market", integer('--duration'))
  .option('--from <time>', FROM_HELP)
  .option('--to <time>', TO_HELP)
  .option('-s, --sweep <key=a,b,c>', 'a dotted config path and its values (repeat for a grid)', (v: string, all: string[] = []) => [...all, v])
  .option('-o, --out <dir>', 'report directory (default backtest/reports/sweep-<id>)')
  .option('-q, --queue <url>', 'redis://HOST:PORT: submit the sweep to the queue instead of running it here')
  .option('--attach <id>', 'with --queue: watch a sweep submitted earlier and write its report')
  .option('--cancel <id>', 'with --queue: cancel a sweep (runs not started are removed, running ones stopped)')
  .option('--detach', 'with --queue: submit and return without watching (re-attach later)')
  .option('--concurrency <n>', 'without --queue: backtests at once on this machine (default one per core)', integer('--concurrency'))
  .addOption(new Option('--rank <figure>', 'the figure the printed table ranks runs by (best first)').choices(['pnl', 'drawdown', 'sharpe', 'fills']).default('pnl'))
  .option('--sample <n>', 'random search: run only this many of the grid\'s combinations, drawn at random (the same ones for the same --seed)', integer('--sample'))
  .option('--seed <n>', 'the seed --sample draws with (default 1)', integer('--seed'))
  .option('--holdout-from <time>', 'with --tape: run the best runs again from this UTC time (same form as --from), out of sample: --from/--to must leave it out')
  .option('--holdout-to <time>', 'with --tape: the holdout ends at this UTC time (default the tape\'s end)')
  .option('--holdout-top <n>', `how many of the best runs (by --rank) go again over the holdout (default ${HOLDOUT_TOP_DEFAULT})`, integer('--holdout-top'))
  .option('--cache-dir <dir>', "where the tape's decoded market events are kept (default $XDG_CACHE_HOME/sluice/events or ~/.cache/sluice/events)")
  .option('--no-cache', 'decode the tape on every run and write no cache')
  .action(async (opts: { config?: string; tape?: string; duration?: number; from?: string; to?: string; sweep?: string[]; out?: string; queue?: string; attach?: string; cancel?: string; detach?: boolean; concurrency?: number; rank: 'pnl' | 'drawdown' | 'sharpe' | 'fills'; holdoutFrom?: string; holdoutTo?: string; holdoutTop?: number; sample?: number; seed?: number; cache: boolean; cacheDir?: string }) => {
    const { sweepCommand } = await import('./commands/sweep-command.js');
    const { defaultEventCacheDir } = await import('./tape/index.js');
    process.exit(
      await sweepCommand({
        config: opts.config,
        tape: opts.tape,
        durationMs: opts.duration === undefined ? undefined : opts.duration * 60_000,
        window: await tapeWindow(opts),
        sweep: opts.sweep,
        out: opts.out,
        queue: opts.queue,
        attach: opts.attach,
        cancel: opts.cancel,
        detach: opts.detach,
        concurrency: opts.concurrency,
        rank: opts.rank,
        holdout: await holdoutWindow(opts),
        sample: sampleOf(opts),
        eventCacheDir: opts.cache ? (opts.cacheDir ?? defaultEventCacheDir()) : undefined,
      }),
    );
  });

program
  .command('worker')
  .description('run the backtests of distributed sweeps from the queue (start as many as you like, on any machine that reaches Redis)')
  .requiredOption('-q, --queue <url>', 'redis://HOST:PORT of the queue')
  .option('--concurrency <n>', 'backtests at once on this machine (default one per core)', integer('--concurrency'))
  .option('--cache-dir <dir>', 'where fetched tapes (DIR/tapes) and their decoded events (DIR/events) are kept (default $XDG_CACHE_HOME/sluice or ~/.cache/sluice)')
  .option('--lock-ms <ms>', "how long a run's lock lasts without renewal: a killed worker's runs go back to the queue within about twice this", integer('--lock-ms'), 30_000)
  .action(async (opts: { queue: string; concurrency?: number; cacheDir?: string; lockMs: number }) => {
    const { workerCommand } = await import('./commands/worker.js');
    process.exit(await workerCommand(opts));
  });

program
  .command('replay')
  .description('re-run a recorded session on a manual clock and fail with a diff at the first request that differs')
  .requiredOption('-t, --tape <file>', 'tape recorded by sluice (record.path)')
  .action(async (opts: { tape: string }) => {
    const { replayCommand } = await import('./commands/backtest.js');
    process.exit(await replayCommand(opts));
  });

program
  .command('sim')
  .description('start the simulated exchange as an HTTP server on 127.0.0.1')
  .option('-p, --port <port>', 'port (0 picks a free one)', integer('--port'), 0)
  .option('-s, --seed <seed>', 'seed of the synthetic market and faults', integer('--seed'), 1)
  .option('--api-key <key>', 'API key the simulator accepts (generated when absent)')
  .option('--api-secret <secret>', 'API secret the simulator accepts (generated when absent)')
  .addOption(new Option('--profile <profile>', "strict: the contract's letter and the live variants; lenient: client-id lookups and client ids in open orders").choices(['strict', 'lenient']).default('strict'))
  .action(async (opts: { port: number; seed: number; apiKey?: string; apiSecret?: string; profile: 'strict' | 'lenient' }) => {
    const { runSimCommand } = await import('./commands/sim.js');
    await runSimCommand(opts);
  });

await program.parseAsync(process.argv);
