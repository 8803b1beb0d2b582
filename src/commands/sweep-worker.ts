// A sweep's worker thread: backtests of the configs the main thread sends, one at a time, each
// answered with its outcome (figures, or the reason it failed). The thread stays up between
// runs (see ThreadPool).
import { parentPort } from 'node:worker_threads';
import { basename } from 'node:path';
import { runOutcome, type Report, type RunOutcome } from '../report/index.js';
import { backtestOnce } from './backtest.js';
import type { SweepJob, ThreadAnswer } from './sweep-pool.js';

// A thread does not take the main thread's source maps setting (bin/sluice.js): a failing
// plugin's stack, and the reason a run failed, would name its compiled copy in a temp directory.
process.setSourceMapsEnabled(true);

async function run(job: SweepJob): Promise<{ outcome: RunOutcome; report?: Report }> {
  let refusal: string | undefined;
  try {
    const tapeName = job.tapeName ?? (job.tapePath ? basename(job.tapePath) : undefined);
    const result = await backtestOnce({ ...job, source: job.label, tapeName }, false, (message) => (refusal = message));
    if (!result) return { outcome: { status: 'failed', reason: refusal ?? 'the config was refused' } };
    // A run whose strategy was disabled failed (its report is still kept beside the sweep's, locally).
    return { outcome: runOutcome(result.report), report: result.report };
  } catch (err) {
    return { outcome: { status: 'failed', reason: err instanceof Error ? err.message : String(err) } };
  }
}

parentPort!.on('message', (job: SweepJob) => {
  const started = performance.now();
  void run(job).then(({ outcome, report }) => parentPort!.postMessage({ outcome, ranMs: performance.now() - started, ...(report ? { report } : {}) } satisfies ThreadAnswer));
});
