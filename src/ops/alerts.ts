// Webhook alerts: a generic JSON POST any receiver (Slack relay, PagerDuty bridge, a script)
// can take. Alerts are a side channel: send() never throws, never awaits the network, and a
// flood of one kind is folded into a count carried by the next alert of that kind.
import { errorText } from '../core/errors.js';
import type { OpsLog } from './types.js';

export type AlertKind = 'ban' | 'halt' | 'drift' | 'plugin_disabled' | 'recording' | 'journal';

export interface AlertBody {
  kind: AlertKind;
  message: string;
  details: Record<string, unknown>;
  /** Epoch ms when this alert was sent. */
  at: number;
  /** Alerts of this kind dropped by the rate limit since the previous one was sent. */
  suppressed: number;
}

/** How many alerts `recent()` keeps for the dashboard. */
export const RECENT_ALERTS = 50;

export type AlertPost = (url: string, body: string) => Promise<void>;

export interface AlertsOptions {
  /** Config `alerts.webhookUrl`; null or empty sends nothing. */
  webhookUrl: string | null | undefined;
  /** Config `alerts.minIntervalMs`: at most one alert of each kind per this many ms. */
  minIntervalMs: number;
  now: () => number;
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

export class Alerts {
  private readonly lastSentAt = new Map<AlertKind, number>();
  private readonly suppressed = new Map<AlertKind, number>();
  private readonly inFlight = new Set<Promise<void>>();
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
    const url = this.opts.webhookUrl;
    if (!url) return;
    try {
      const at = this.opts.now();
      const last = this.lastSentAt.get(kind);
      if (last !== undefined && at - last < this.opts.minIntervalMs) {
        this.suppressed.set(kind, (this.suppressed.get(kind) ?? 0) + 1);
        return;
      }
      const body: AlertBody = { kind, message, details, at, suppressed: this.suppressed.get(kind) ?? 0 };
      this.lastSentAt.set(kind, at);
      this.suppressed.set(kind, 0);
      const text = this.scrub(serialize(body));
      // The promise is started here and only watched: trading never waits on a webhook.
      const p = Promise.resolve()
        .then(() => this.post(url, text))
        .catch((err: unknown) => this.warn(kind, err))
        .finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
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

  private scrub(text: string): string {
    let out = text;
    // A secret may appear raw or JSON-escaped (if it holds a quote or backslash).
    for (const s of this.secrets) for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) out = out.split(form).join('[REDACTED]');
    return out;
  }

  private warn(kind: AlertKind, err: unknown): void {
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
