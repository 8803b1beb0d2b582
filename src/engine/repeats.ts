// Lines that repeat are logged a few times, then counted: a line's group comes back in full at
// most `full` times per `everyMs`, and the first line after that period (or flush(), at the
// engine's stop) says how many were held back. Two uses:
// - failures that repeat (a feed that keeps failing, a symbol whose reconcile keeps failing):
//   once a minute, instead of once a second for as long as the daemon runs (quietRepeats);
// - refused intents: a plugin bug can have thousands refused a second (40,016 lines in one
//   second in a review), and one refused every tick is 86,400 lines a day (intake.ts).
// No timer: a backtest's clock sees no sleeper. Only the log is thinned; what it tells of is
// still journaled, counted and told to whoever it concerns.
import { amend } from '../core/amend.js';
import type { Log } from '../core/log.js';

/** How often a repeating failure is logged again, with its count. */
export const REPEAT_EVERY_MS = 60_000;
/** Past this many groups remembered, those quiet for a whole period are forgotten. */
const KEPT = 1000;

interface Group {
  level: 'warn' | 'error';
  /** When its period started (engine clock). */
  at: number;
  /** Lines logged in full this period. */
  logged: number;
  /** Held back since `at`, and the last of them. */
  more: number;
  last?: { fields: object; msg: string };
}

export class Repeats {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly log: Log,
    private readonly now: () => number,
    private readonly policy: { everyMs: number; full: number },
  ) {}

  /** Logs the line unless its group (`key`) has had its `full` lines this period. */
  line(level: 'warn' | 'error', key: string, fields: object, msg: string): void {
    const t = this.now();
    let g = this.groups.get(key);
    if (g && t - g.at >= this.policy.everyMs) {
      if (g.more > 0) {
        this.log[level](amend(fields, { repeats: g.more }), `${msg} (${g.more} more since ${iso(g.at)})`);
        this.groups.set(key, { level, at: t, logged: 1, more: 0 });
        return;
      }
      g = undefined;
    }
    if (!g) {
      if (this.groups.size >= KEPT) for (const [k, v] of this.groups) if (t - v.at >= this.policy.everyMs) this.tell(k, v);
      this.groups.set(key, (g = { level, at: t, logged: 0, more: 0 }));
    }
    if (g.logged < this.policy.full) {
      g.logged++;
      this.log[level](fields, msg);
    } else {
      g.more++;
      g.last = { fields, msg };
    }
  }

  /** Tells every count still held back, with the last line held (at a stop). */
  flush(): void {
    for (const [k, g] of this.groups) this.tell(k, g);
  }

  private tell(key: string, g: Group): void {
    this.groups.delete(key);
    if (g.more > 0 && g.last) this.log[g.level](amend(g.last.fields, { repeats: g.more }), `${g.last.msg} (${g.more} more since ${iso(g.at)})`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Wraps `log` so that warn and error lines carrying an `err` (failures) repeat quietly: once per
 * `everyMs`. Lines are the same when their message and fields other than `err` are: a
 * different symbol, order or market is a different failure, and is logged at once.
 */
export function quietRepeats(log: Log, now: () => number, everyMs = REPEAT_EVERY_MS): Log {
  const repeats = new Repeats(log, now, { everyMs, full: 1 });
  const quiet = (level: 'warn' | 'error') => (fields: object, msg: string) => {
    if (!('err' in fields)) return log[level](fields, msg);
    const { err: _err, ...rest } = fields as Record<string, unknown>;
    repeats.line(level, `${level}\u0000${msg}\u0000${JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`, fields, msg);
  };
  return {
    debug: (fields, msg) => log.debug(fields, msg),
    info: (fields, msg) => log.info(fields, msg),
    warn: quiet('warn'),
    error: quiet('error'),
  };
}
