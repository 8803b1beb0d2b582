// Journal marks of each run's start and clean stop (epoch ms), and what a start makes of them.
import type { Logger } from 'pino';
import type { Journal, Pacer } from '../core/ports.js';
import { WINDOW_MS } from '../exchange/endpoints.js';

const RUN_STARTED = 'run:startedAt';
const RUN_STOPPED = 'run:stoppedAt';

export function markRunStarted(journal: Journal, now: number): void {
  journal.setCursor(RUN_STARTED, String(now));
}

export function markRunStopped(journal: Journal, now: number): void {
  journal.setCursor(RUN_STOPPED, String(now));
}

/**
 * The venue still counts the last run's requests for a window after they left, and a new
 * limiter starts empty. A run that stopped cleanly sent nothing after its stop mark; one that
 * did not (killed, crashed) may have sent anything up to now, on any endpoint. Every endpoint
 * then waits until those requests have left the window (plus `safetyMarginMs`). Reads come
 * first at start-up, so no order could leave sooner anyway.
 */
export function holdWindowsOfLastRun(journal: Journal, pacer: Pacer, now: number, safetyMarginMs: number, log: Logger): void {
  const started = Number(journal.cursor(RUN_STARTED) ?? NaN);
  if (Number.isNaN(started)) return; // no run before this one
  const stopped = Number(journal.cursor(RUN_STOPPED) ?? NaN);
  const lastSent = Number.isNaN(stopped) || stopped < started ? now : stopped;
  const waitMs = lastSent + WINDOW_MS + safetyMarginMs - now;
  if (waitMs <= 0) return;
  // A wait for the window, not a refusal: no probing after it.
  for (const endpoint of Object.keys(pacer.usage())) pacer.pauseEndpoint(endpoint, waitMs, { probe: false });
  log.info({ waitMs, lastRun: lastSent === now ? 'did not stop cleanly' : 'stopped moments ago' }, "waiting for the venue's rate windows to forget the last run's requests");
}
