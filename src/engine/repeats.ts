// A failure that repeats (a feed that keeps failing, a symbol whose reconcile keeps failing) is
// logged once, then counted: the same line comes back at most once per `everyMs`, saying how
// many were held back since, instead of once a second for as long as the daemon runs.
import { amend } from '../core/amend.js';
import type { Log } from '../core/log.js';

/** How often a repeating failure is logged again, with its count. */
export const REPEAT_EVERY_MS = 60_000;
/** Past this many distinct failures remembered, those quiet for a whole period are forgotten. */
const KEPT = 1000;

interface Seen {
  /** When it was last logged (engine clock). */
  at: number;
  /** Held back since. */
  more: number;
}

/**
 * Wraps `log` so that warn and error lines carrying an `err` (failures) repeat quietly. Lines are
 * the same when their message and fields other than `err` are: a different symbol, order or
 * market is a different failure, and is logged at once.
 */
export function quietRepeats(log: Log, now: () => number, everyMs = REPEAT_EVERY_MS): Log {
  const seen = new Map<string, Seen>();
  const iso = (ms: number) => new Date(ms).toISOString();
  const quiet = (level: 'warn' | 'error') => (fields: object, msg: string) => {
    if (!('err' in fields)) return log[level](fields, msg);
    const { err: _err, ...rest } = fields as Record<string, unknown>;
    const key = `${level}\u0000${msg}\u0000${JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
    const t = now();
    const s = seen.get(key);
    if (s && t - s.at < everyMs) {
      s.more++;
      return;
    }
    if (s && s.more > 0) log[level](amend(fields, { repeats: s.more }), `${msg} (${s.more} more since ${iso(s.at)})`);
    else log[level](fields, msg);
    if (seen.size >= KEPT) for (const [k, v] of seen) if (t - v.at >= everyMs) seen.delete(k);
    seen.set(key, { at: t, more: 0 });
  };
  return {
    debug: (fields, msg) => log.debug(fields, msg),
    info: (fields, msg) => log.info(fields, msg),
    warn: quiet('warn'),
    error: quiet('error'),
  };
}
