// What travels through Redis. Job data is read by every worker and kept for days, so it holds
// no secret: a run's config text without its credentials, alerts and recording sections, a tape
// by content hash, plugin paths with the hash of the file the submitter meant.
import type { TapeWindow } from '../core/types.js';

/** Every key sluice writes starts with this (BullMQ's own keys too, as its prefix). */
export const PREFIX = 'sluice';
/** The queue of runs (children) and the queue of sweeps (their parents, which gather). */
export const RUNS_QUEUE = 'runs';
export const SWEEPS_QUEUE = 'sweeps';
/** Set while a sweep is cancelled, so a worker skips its runs; also published to stop running ones. */
export const cancelKey = (sweepId: string) => `${PREFIX}:cancel:${sweepId}`;
export const CANCEL_CHANNEL = `${PREFIX}:cancel`;
/** Tapes, finished sweeps and cancel flags are kept this long (seconds). */
export const KEEP_SECONDS = 7 * 24 * 3600;

export const runJobId = (sweepId: string, index: number) => `${sweepId}-${index}`;

/** A tape in Redis: by the sha256 of its bytes. */
export interface TapeRef {
  sha256: string;
  /** The file name on the submitter, for the report only. */
  name: string;
  bytes: number;
}

/** A plugin a run loads, as the config names it, and the sha256 of the file on the submitter (null where it had none). */
export interface PluginRef {
  use: string;
  sha256: string | null;
}

export interface RunJobData {
  sweepId: string;
  index: number;
  label: string;
  configText: string;
  tape: TapeRef | null;
  durationMs: number | null;
  /** Only this part of the tape (--from, --to). */
  window?: TapeWindow;
  plugins: PluginRef[];
}

export interface SweepJobData {
  sweepId: string;
  /** The base config's file name. */
  config: string;
  tape: TapeRef | null;
  durationMs: number | null;
  window?: TapeWindow;
  /** A random search: `count` of the grid's `of` combinations, drawn with `seed`. */
  sample?: { count: number; seed: number; of: number };
  axes: { key: string; values: string[] }[];
  runs: { index: number; label: string; params: Record<string, string> }[];
  /** Milliseconds since the epoch, on the submitter's clock. */
  submittedAt: number;
}

/** A child's return value: the run's outcome (opaque to the queue) and when it ran where. */
export interface RunResult<O = unknown> {
  index: number;
  outcome: O;
  /** host:pid of the worker process. */
  worker: string;
  /** Epoch ms on the worker's clock: the processor started, the backtest's own time, the processor ended. */
  startedAt: number;
  ranMs: number;
  finishedAt: number;
}

/** The parent's return value: every child's result, and the children BullMQ failed (a worker died under them too often). */
export interface GatheredSweep<O = unknown> {
  results: RunResult<O>[];
  lost: { index: number; reason: string }[];
  /** Epoch ms on the gathering worker's clock. */
  gatheredAt: number;
}
