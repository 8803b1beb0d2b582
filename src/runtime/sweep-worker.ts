// One sweep run on a worker thread: a backtest of one config, answered as a table row.
import { parentPort, workerData } from 'node:worker_threads';
import { basename } from 'node:path';
import { backtestOnce } from './backtest-command.js';
import type { SweepJob, SweepRow } from './sweep.js';

const job = workerData as SweepJob;
const result = await backtestOnce(job.configText, job.label, job.cwd, job.tapePath, job.tapePath ? basename(job.tapePath) : undefined, job.durationMs, false);
const row: SweepRow = result
  ? {
      label: job.label,
      pnl: result.report.pnl.total ?? '-',
      fees: result.report.pnl.fees,
      fills: result.report.trades.fills,
      winRate: result.report.winRate.value,
      maxDrawdown: result.report.maxDrawdown.amount ?? '-',
      sharpe: result.report.sharpe.value,
      ordersSent: result.report.orders.sent,
    }
  : { label: job.label, pnl: '-', fees: '-', fills: 0, winRate: null, maxDrawdown: '-', sharpe: null, ordersSent: 0, error: 'the config was refused (see above)' };
parentPort!.postMessage(row);
