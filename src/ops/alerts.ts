// Webhook alerts: a generic JSON POST any receiver (Slack relay, PagerDuty bridge, a script)
// can take. Alerts are a side channel: send() never throws and never awaits the network. A flood
// is limited per kind and subject (a strategy, a symbol): what the limit holds back is sent as
// one summary once the interval has passed, so no alert is lost for want of a later one.
import { errorText } from '../core/errors.js';
import type { AlertKind } from '../core/types.js';
import type { OpsLog } from './types.js';

export type { AlertKind } from '../core/types.js';

export interface AlertBody {
  kind: AlertKind;
  message: string;
  details: Record<string, unknown>;
  /** Epoch ms when this alert was sent. */
  at: number;
  /** 0 on an alert; on a summary, how many alerts of its kind and subject it reports held back. */
  suppressed: number;
}

/** How many alerts `recent()` keeps for the dashboard. */
export const RECENT_ALERTS = 50;

/**
 * Details that name what an alert is about. Alerts of one kind about different subjects (two
 * strategies disabled) are limited apart, so one never hides the other.
 */
export const SUBJECT_FIELDS = ['strategy', 'symbol', 'by', 'tape'] as const;

/** Held-back alerts a summary lists in full (it counts them all). */
export const HELD_LISTED = 20;

/** How long close() waits for the webhook at shutdown. */
export const CLOSE_BOUND_MS = 10_000;

export type AlertPost = (url: string, body: string) => Promise<void>;

/** What close() saw. */
export interface AlertsClosed {
  /** Whether a webhook was set: without one no alert is sent (the dashboard still lists them). */
  webhook: boolean;
  /** Alerts whose POST failed during the whole run, close() included (each logged as 'alert not delivered'). */
  failed: number;
  /** Alerts still on their way when the bound passed: the process exits without them. */
  undelivered: number;
  boundMs: number;
}

/** The shutdown's last word on the ops endpoint (when one was served) and the alerts, true to the whole run. */
export function closedLine(closed: AlertsClosed, ops: boolean): { level: 'info' | 'warn'; fields: Record<string, unknown>; msg: string } {
  const { failed, undelivered, boundMs } = closed;
  const head = ops ? 'ops endpoint closed' : 'stopped';
  if (!closed.webhook) return { level: 'info', fields: {}, msg: `${head}; no alert webhook set (alerts.webhookUrl), so no alert was sent` };
  if (failed === 0 && undelivered === 0) return { level: 'info', fields: {}, msg: `${head} and every alert delivered` };
  const alerts = (n: number) => `${n} alert${n === 1 ? '' : 's'}`;
  const parts = [
    ...(undelivered > 0 ? [`${alerts(undelivered)} not delivered within the ${boundMs} ms bound: exiting without ${undelivered === 1 ? 'it' : 'them'}`] : []),
    ...(failed > 0 ? [`${alerts(failed)} failed to deliver during the run (each logged as 'alert not delivered')`] : []),
  ];
  return { level: 'warn', fields: { undelivered, failed, boundMs }, msg: `${head}; ${parts.join('; ')}` };
}

export interface AlertsOptions {
  /** Config `alerts.webhookUrl`; null or empty sends nothing. */
  webhookUrl: string | null | undefined;
  /** Config `alerts.minIntervalMs`: at most one POST per kind and subject per this many ms. */
  minIntervalMs: number;
  now: () => number;
  /**
   * The clock's sleep: a summary of held-back alerts goes out when the interval ends. Without
   * it, summaries go out with the next alert of any kind, and at close().
   */
  sleep?: (ms: number) => Promise<void>;
  post?: AlertPost;
  log?: OpsLog;
  /** Values never sent (the API key and secret): replaced wherever they occur in the body. */
  secrets?: readonly string[];
}

const POST_TIMEOUT_MS = 5_000;

/**
 * undici, with short timeouts so a hung receiver cannot pile up sockets. Imported at the first
 * alert sent: a daemon without a webhook (or a paper one, whose venue is in-process) never
 * loads undici, about 10 MB of RSS.
 */
export const postJson: AlertPost = async (url, body) => {
  const { request } = await import('undici');
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    headersTimeout: POST_TIMEOUT_MS,
    bodyTimeout: POST_TIMEOUT_MS,
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`webhook answered HTTP ${res.statusCode}`);
};

interface Held {
  message: string;
  at: number;
  details: Record<string, unknown>;
}

/** The rate limit's memory for one kind and subject. */
interface Limited {
  kind: AlertKind;
  subject: Record<string, unknown>;
  lastSentAt: number;
  /** Alerts held back since lastSentAt: all counted, the first HELD_LISTED kept. */
  count: number;
  held: Held[];
  /** A summary is scheduled on the injected sleep. */
  timed: boolean;
}

export class Alerts {
  private readonly limited = new Map<string, Limited>();
  private readonly inFlight = new Set<Promise<void>>();
  /** POSTs that failed so far in the run. */
  private failures = 0;
  private readonly kept: { kind: AlertKind; message: string; at: number }[] = [];
  private readonly post: AlertPost;
  private readonly secrets: string[];

  constructor(private readonly opts: AlertsOptions) {
    this.post = opts.post ?? postJson;
    // Short strings would scrub ordinary words; the logger uses the same floor.
    this.secrets = (opts.secrets ?? []).filter((s) => s.length >= 4);
  }

  /** Queues an alert and returns at once; failures are logged, never thrown. */
  send(kind: AlertKind, message: string, details: Record<string, unknown> = {}): void {
    try {
      // Every alert shows on the dashboard, webhook or not, and none is folded away there.
      this.kept.unshift({ kind, message: this.scrub(message), at: this.opts.now() });
      this.kept.length = Math.min(this.kept.length, RECENT_ALERTS);
    } catch (err) {
      this.warn(kind, err);
    }
    if (!this.opts.webhookUrl) return;
    try {
      const at = this.opts.now();
      this.flush(at, false);
      const subject = subjectOf(details);
      const key = JSON.stringify([kind, subject]);
      const limit = this.limited.get(key);
      if (limit && at - limit.lastSentAt < this.opts.minIntervalMs) {
        this.hold(limit, { message, at, details });
        return;
      }
      this.limited.set(key, { kind, subject, lastSentAt: at, count: 0, held: [], timed: false });
      this.deliver({ kind, message, details, at, suppressed: 0 });
    } catch (err) {
      this.warn(kind, err);
    }
  }

  /** The latest alerts, newest first, whether a webhook took them or not. */
  recent(): { kind: AlertKind; message: string; at: number }[] {
    return this.kept.map((a) => ({ ...a }));
  }

  /** Resolves when every alert sent so far has been delivered or has failed (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * At shutdown: sends every summary still held back, interval or not, then waits for delivery,
   * at most `boundMs` when a sleep was given. Says how many failed in the whole run and how many
   * were still on their way at the bound (closedLine words it).
   */
  async close(boundMs = CLOSE_BOUND_MS): Promise<AlertsClosed> {
    try {
      this.flush(this.opts.now(), true);
    } catch (err) {
      this.warn('held-back summaries', err);
    }
    const done = this.idle();
    await (this.opts.sleep ? Promise.race([done, this.opts.sleep(boundMs)]) : done);
    return { webhook: Boolean(this.opts.webhookUrl), failed: this.failures, undelivered: this.inFlight.size, boundMs };
  }

  private hold(limit: Limited, alert: Held): void {
    limit.count++;
    if (limit.held.length < HELD_LISTED) limit.held.push(alert);
    this.schedule(limit);
  }

  /** Whether or not another alert comes, the held ones go out when the interval ends. */
  private schedule(limit: Limited): void {
    const sleep = this.opts.sleep;
    if (!sleep || limit.timed) return;
    limit.timed = true;
    sleep(limit.lastSentAt + this.opts.minIntervalMs - this.opts.now())
      .then(() => {
        limit.timed = false;
        this.flush(this.opts.now(), false);
        // A send at the interval's end may have summarised before this timer woke, and held a
        // new alert: that one waits for a timer of its own.
        if (limit.count > 0) this.schedule(limit);
      })
      .catch((err: unknown) => this.warn(limit.kind, err));
  }

  /** Sends a summary for each subject whose interval has passed (every one when `all`), and forgets quiet ones. */
  private flush(at: number, all: boolean): void {
    for (const [key, limit] of this.limited) {
      const due = at - limit.lastSentAt >= this.opts.minIntervalMs;
      if (limit.count === 0) {
        if (due && !limit.timed) this.limited.delete(key);
        continue;
      }
      if (!due && !all) continue;
      const { kind, count, held } = limit;
      const more = count > held.length ? ` | and ${count - held.length} more not listed` : '';
      const message = `${count} more ${kind} alert${count === 1 ? '' : 's'} held back: ${held.map((h) => h.message).join(' | ')}${more}`;
      const details = Object.assign({}, limit.subject, { heldBack: held });
      limit.lastSentAt = at;
      limit.count = 0;
      limit.held = [];
      this.deliver({ kind, message, details, at, suppressed: count });
    }
  }

  /** The POST is started here and only watched: trading never waits on a webhook. */
  private deliver(body: AlertBody): void {
    const url = this.opts.webhookUrl!;
    const text = this.scrub(serialize(body));
    const p = Promise.resolve()
      .then(() => this.post(url, text))
      .catch((err: unknown) => {
        this.failures++;
        this.warn(body.kind, err);
      })
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private scrub(text: string): string {
    let out = text;
    // A secret may appear raw or JSON-escaped (if it holds a quote or backslash).
    for (const s of this.secrets) for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) out = out.split(form).join('[REDACTED]');
    return out;
  }

  private warn(kind: string, err: unknown): void {
    try {
      // The webhook URL often embeds a token: name only its origin.
      let origin = '(invalid url)';
      try {
        origin = new URL(this.opts.webhookUrl ?? '').origin;
      } catch {}
      const error = this.scrub(errorText(err));
      this.opts.log?.warn({ alert: kind, webhook: origin, error }, 'alert not delivered');
    } catch {
      // Logging itself failed; an alert is never worth an exception in the caller.
    }
  }
}

/** The details' subject fields that are plain values. */
function subjectOf(details: Record<string, unknown>): Record<string, unknown> {
  const subject: Record<string, unknown> = {};
  for (const f of SUBJECT_FIELDS) {
    const v = details[f];
    if (typeof v === 'string' || typeof v === 'number') subject[f] = v;
  }
  return subject;
}

/** JSON that survives details a caller did not think about: bigints, errors, cycles. */
function serialize(body: AlertBody): string {
  const plain = (value: unknown): unknown =>
    typeof value === 'bigint' ? value.toString() : value instanceof Error ? { name: value.name, message: value.message } : value;
  try {
    return JSON.stringify(body, (_key, value: unknown) => plain(value));
  } catch {
    // A cycle: drop every object seen before (this also drops repeated references, which is
    // fine for an alert).
    const seen = new WeakSet<object>();
    return JSON.stringify(body, (_key, value: unknown) => {
      const v = plain(value);
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[circular]';
        seen.add(v);
      }
      return v;
    });
  }
}
