// Sweep runs on a worker thread: backtests of the configs the main thread sends, one at a
// time, each answered as a table row. The worker stays up between runs (see runSweep).
import { parentPort } from 'node:worker_threads';
import { basename } from 'node:path';
import { backtestOnce } from './backtest.js';
import { failedRow, type SweepJob, type SweepRow } from './sweep.js';

async function run(job: SweepJob): Promise<SweepRow> {
  try {
    const result = await backtestOnce({ ...job, source: job.label, tapeName: job.tapePath ? basename(job.tapePath) : undefined }, false);
    if (!result) return failedRow(job.label, 'the config was refused (see above)');
    return {
      label: job.label,
      pnl: result.report.pnl.total ?? '-',
      fees: result.report.pnl.fees,
      fills: result.report.trades.fills,
      winRate: result.report.winRate.value,
      maxDrawdown: result.report.maxDrawdown.amount ?? '-',
      sharpe: result.report.sharpe.value,
      ordersSent: result.report.orders.sent,
    };
  } catch (err) {
    return failedRow(job.label, (err as Error).message);
  }
}

parentPort!.on('message', (job: SweepJob) => {
  void run(job).then((row) => parentPort!.postMessage(row));
});
