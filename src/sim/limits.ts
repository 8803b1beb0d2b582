// Per-endpoint rolling 2 s windows per caller (API key, or remote address for public calls),
// and bans for callers that keep going after 429s. Requests answered 429 or 418 take no slot:
// only requests the venue served count against the window.
import { WINDOW_MS } from '../exchange/endpoints.js';

export interface BanPolicy {
  /** 429s within `violationWindowMs` that earn a ban. */
  violations: number;
  violationWindowMs: number;
  banMs: number;
}

export type Verdict = { ok: true } | { ok: false; kind: 'limited'; retryAfterMs: number } | { ok: false; kind: 'banned'; until: number };

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly violations = new Map<string, number[]>();
  private readonly bans = new Map<string, number>();

  constructor(private policy: BanPolicy) {}

  setPolicy(p: Partial<BanPolicy>): void {
    this.policy = { ...this.policy, ...p };
  }

  /** The end of a ban on any of `ids`, or 0. */
  bannedUntil(ids: readonly string[], now: number): number {
    let until = 0;
    for (const id of ids) {
      const u = this.bans.get(id);
      if (u !== undefined && u > now) until = Math.max(until, u);
      else if (u !== undefined) this.bans.delete(id);
    }
    return until;
  }

  /**
   * Takes a slot for `caller` on `endpoint` if the window has room. Otherwise counts a violation
   * and bans `banIds` when they add up.
   */
  admit(caller: string, endpoint: string, limit: number, now: number, banIds: readonly string[]): Verdict {
    const key = `${caller}\u0000${endpoint}`;
    let times = this.windows.get(key);
    if (!times) this.windows.set(key, (times = []));
    // A slot taken at t is free again at t + WINDOW_MS.
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - WINDOW_MS) drop++;
    if (drop > 0) times.splice(0, drop);
    if (times.length < limit) {
      times.push(now);
      return { ok: true };
    }
    const v = this.violations.get(caller) ?? [];
    v.push(now);
    while (v.length > 0 && v[0]! <= now - this.policy.violationWindowMs) v.shift();
    this.violations.set(caller, v);
    if (v.length > this.policy.violations) {
      const until = now + this.policy.banMs;
      for (const id of banIds) this.bans.set(id, until);
      this.violations.delete(caller);
      return { ok: false, kind: 'banned', until };
    }
    const oldest = times[times.length - limit]!;
    return { ok: false, kind: 'limited', retryAfterMs: oldest + WINDOW_MS - now };
  }

  /** Requests in the current window, for tests and the benchmark. */
  inWindow(caller: string, endpoint: string, now: number): number {
    return (this.windows.get(`${caller}\u0000${endpoint}`) ?? []).filter((t) => t > now - WINDOW_MS).length;
  }
}
