// What a stop signal asks of the daemon. Ctrl-C under `npm start` or `npx sluice run` reaches
// sluice twice within milliseconds: the terminal signals the whole process group, and npm
// forwards the SIGINT it got too. Taken at its word the second would hurry every such stop.

/** A repeat of the first stop signal within this many ms is the same request. */
export const SAME_REQUEST_MS = 1000;

export type StopVerdict = 'stop' | 'same' | 'hurry';

/**
 * `first`: the signal that began the stop and when, if one did. The same signal again within
 * SAME_REQUEST_MS is that request delivered twice; later, or another signal (SIGTERM after
 * SIGINT), is someone asking again: hurry.
 */
export function stopVerdict(first: { signal: string; at: number } | undefined, signal: string, now: number): StopVerdict {
  if (!first) return 'stop';
  return signal === first.signal && now - first.at < SAME_REQUEST_MS ? 'same' : 'hurry';
}
