// Kill -9 restart benchmark: the harness of test/integration/restart.test.ts with more cycles.
// The daemon (a child process, live mode) trades the churn strategy against the simulator with
// faults on, is killed with SIGKILL at seeded random moments and restarted on the same journal;
// a final run reconciles with trading halted and stops on SIGTERM; the venue then judges.
// Run: npm run bench -- restart [cycles=60] [seed=7] [--write]
// --write replaces the "## Kill -9 restarts" section of bench/RESULTS.md (other sections are left alone).
import { describeReport, KILL_MODES, quantile, runRestartSuite } from '../test/fixtures/restart/harness.js';
import { writeSection } from './results.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const CYCLES = Number(args[0] ?? 60);
const SEED = Number(args[1] ?? 7);

const report = await runRestartSuite({ seed: SEED, cycles: CYCLES, log: (l) => console.log(l) });
console.log(describeReport(report));

const v = report.verdict;
const duplicatedOrders = v.duplicated.reduce((n, x) => n + x.count - 1, 0);
const ms = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(0));
const byMode = KILL_MODES.map((m) => {
  const c = report.cycles.filter((x) => x.mode === m);
  return `${m} ${c.length}${c.some((x) => x.trigger === 'fallback') ? ` (${c.filter((x) => x.trigger === 'fallback').length} fell back to a timed kill)` : ''}`;
});
const ok = (n: number) => (n === 0 ? '0' : `**${n}**`);
const lines = [
  '## Kill -9 restarts',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on this machine (2 cores, Node ${process.version}), while other work may have been running on it. Run: \`npm run bench -- restart ${CYCLES} ${SEED} --write\`.`,
  'The daemon runs as a child process (`node bin/sluice.js run`, live mode) against the simulator in the bench process (seeded; 3% lost responses, 3% 503s, 20% late fills after 300 ms, 2-25 ms latency each way), trading test/fixtures/restart/churn.ts (every 150 ms: singles, a 14-order burst every fourth tick, marketable orders so fills happen, cancels).',
  'Each cycle kills it with SIGKILL at a seeded random moment (inside a write the venue acted on with the answer held back, mid-batch, between fills and their journal writes, in start-up reconciliation, or at random) and restarts it on the same journal; a final run reconciles with the kill switch halted and stops on SIGTERM. The venue (order log, trades, balances, open orders) judges the journal.',
  '',
  '| figure | value |',
  '|---|---|',
  `| kill -9 cycles | ${report.cycles.length} |`,
  `| cycles survived (the next run came up) | ${report.survived} |`,
  `| orders placed on the venue | ${report.ordersPlaced} |`,
  `| orders duplicated (must be 0) | ${ok(duplicatedOrders)} |`,
  `| venue trades of ours / journal fills | ${report.venueTrades} / ${report.journalFills} |`,
  `| fills lost (must be 0) | ${ok(v.lostFills.length)} |`,
  `| fills double-counted | ${ok(v.doubleFills.length + v.phantomFills.length)} |`,
  `| BTC position: journal fills / venue balance change | ${v.journalPosition} / ${v.venuePosition} |`,
  `| venue open orders unknown to the journal (after each kill + at the end) | ${ok(report.cycles.reduce((n, c) => n + c.unknownOpenAfterKill, 0) + v.openUnknownToJournal.length)} |`,
  `| journal orders never settled (still pending or unknown at the end) | ${ok(v.stuckInJournal.length)} |`,
  `| restart to first order sent, median / p95 (ms, n=${report.restartToFirstOrderMs.length}) | ${ms(quantile(report.restartToFirstOrderMs, 0.5))} / ${ms(quantile(report.restartToFirstOrderMs, 0.95))} |`,
  `| restart to "running" logged, median / p95 (ms) | ${ms(quantile(report.restartToRunningMs, 0.5))} / ${ms(quantile(report.restartToRunningMs, 0.95))} |`,
  `| faults injected: lost responses / 503s / late fills; 429s | ${report.faults.lostResponses} / ${report.faults.errors5xx} / ${report.faults.lateFills}; ${report.faults.rateLimited} |`,
  `| orders placed by the final run, whose kill switch is halted (must be 0) | ${ok(report.final.ordersPlaced)} |`,
  `| final run came to rest | ${report.final.settled ? `yes, in ${report.final.settleMs} ms` : `no (stopped after ${report.final.settleMs} ms)`}; exit ${report.final.exitCode} |`,
  `| wall time | ${(report.durationMs / 1000).toFixed(0)} s |`,
  '',
  `Kills by moment: ${byMode.join(', ')}.`,
  'Restart to first order is from the spawn of `node bin/sluice.js` to the first place request reaching the venue: Node start-up (from the JavaScript build), config and plugin load (esbuild compiles it), journal open, instruments, the start-up reconcile, the first ticker poll and the first tick.',
  ...(v.lostFills.length && v.lostFillOrders.every((x) => x.includes('journal pending'))
    ? [
        '',
        `Lost fills belong to orders the journal still has as \`pending\` (their placement answer died with the process, and the order filled before the next run reconciled): the reconciler never settles a \`pending\` order (\`src/reconciler/diff.ts\` skips them), so their trades are treated as foreign. First ones: ${v.lostFillOrders.slice(0, 3).join('; ')}.`,
      ]
    : []),
  ...(report.final.ordersPlaced
    ? [
        '',
        'The final run places orders although its kill switch is `halted`: once position drift lasts past `reconcile.drift.graceMs`, the engine sets the kill switch to `reconcile.drift.action` (`reduce_only`), which is looser than `halted` (`src/engine/engine.ts`, onDrift).',
      ]
    : []),
  '',
];
const section = lines.join('\n');
console.log(section);
if (process.argv.includes('--write')) console.log(`wrote the Kill -9 restarts section of ${writeSection('Kill -9 restarts', section)}`);
