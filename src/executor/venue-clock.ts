// The venue's clock, estimated from its time endpoint. X-CH-TS must satisfy
// ts < serverTime + 1000 and serverTime - ts <= recvWindow, so we sign with local time plus
// the measured offset, corrected for half the round trip.
import type { Clock } from '../core/clock.js';

const noop = () => undefined;

export interface OffsetSample {
  offsetMs: number;
  roundTripMs: number;
}

export class VenueClock {
  private offset = 0;
  private errorBound = 0;
  private syncing: Promise<OffsetSample> | undefined;
  private recovering: Promise<void> | undefined;
  private lastSyncAt: number | undefined;
  private running = false;
  private stopping: AbortController | undefined;

  constructor(
    private readonly local: Clock,
    private readonly fetchServerTime: () => Promise<number>,
    private readonly samples = 3,
  ) {}

  /** Venue time now, in ms. */
  now(): number {
    return Math.round(this.local.now() + this.offset);
  }

  /**
   * Venue time now at the earliest: our clock plus the offset, less its error bound; undefined
   * before the first sync. What may be decided only once the venue's clock has passed a moment.
   */
  earliestNow(): number | undefined {
    return this.lastSyncAt === undefined ? undefined : this.local.now() + this.offset - this.errorBound;
  }

  offsetMs(): number {
    return this.offset;
  }

  /** How far off the offset may be: half the round trip of the sample it came from. */
  errorMs(): number {
    return this.errorBound;
  }

  lastSync(): number | undefined {
    return this.lastSyncAt;
  }

  /** Takes a few samples and keeps the offset of the one with the shortest round trip; concurrent callers share one. */
  sync(): Promise<OffsetSample> {
    this.syncing ??= this.measure().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /**
   * After a -1021: one re-sync for every caller that met it, and signed requests wait for it
   * (settled()) instead of signing with an offset known to be wrong. A failed sync keeps the
   * last offset; the caller's retry then tells.
   */
  recover(): Promise<void> {
    if (!this.recovering) {
      // A sync already running may have sampled before the jump: measure again after it.
      const fresh = this.syncing ? this.syncing.then(noop, noop).then(() => this.sync()) : this.sync();
      this.recovering = fresh.then(noop, noop).finally(() => {
        this.recovering = undefined;
      });
    }
    return this.recovering;
  }

  /** Resolves once no recovery is in flight (at once, usually). */
  settled(): Promise<void> {
    return this.recovering ?? Promise.resolve();
  }

  private async measure(): Promise<OffsetSample> {
    let best: OffsetSample | undefined;
    for (let i = 0; i < this.samples; i++) {
      const sent = this.local.now();
      const serverTime = await this.fetchServerTime();
      const received = this.local.now();
      const sample = { offsetMs: serverTime - (sent + received) / 2, roundTripMs: received - sent };
      if (!best || sample.roundTripMs < best.roundTripMs) best = sample;
    }
    this.offset = best!.offsetMs;
    this.errorBound = Math.ceil(best!.roundTripMs / 2);
    this.lastSyncAt = this.local.now();
    return best!;
  }

  /** Re-syncs every `intervalMs` until stop(); a failed sync keeps the last offset. */
  start(intervalMs: number, onError: (err: unknown) => void): void {
    if (this.running) return;
    this.running = true;
    const stopped = (this.stopping = new AbortController()).signal;
    void (async () => {
      while (this.running) {
        await this.local.sleep(intervalMs, stopped);
        if (!this.running) break;
        await this.sync().catch(onError);
      }
    })();
  }

  /** Ends the re-syncs at once: the wait for the next one is dropped, so a closed client holds no process open. */
  stop(): void {
    this.running = false;
    this.stopping?.abort();
  }
}
