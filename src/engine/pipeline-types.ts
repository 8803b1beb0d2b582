// What the order pipeline sends through, and what it counts.
import type { Batch, CancelIntent, PlaceIntent } from '../core/types.js';
import type { CancelResult, PlaceResult } from '../executor/index.js';

export interface Gateway {
  place(batch: Batch<PlaceIntent>): Promise<PlaceResult[]>;
  cancel(batch: Batch<CancelIntent>): Promise<CancelResult[]>;
}

export interface PipelineStats {
  /** Orders (place intents) sent, and cancels sent. */
  sent: number;
  cancelsSent: number;
  accepted: number;
  rejected: number;
  unknown: number;
  /** Intents dropped unsent after maxQueueMs. */
  expired: number;
  /** ms from an intent's arrival to its request leaving, per sent intent, the latest INTENT_TO_WIRE_KEPT at least (a daemon runs for months). */
  intentToWire: number[];
}
export const INTENT_TO_WIRE_KEPT = 10_000;
