// Distributed sweeps on BullMQ and Redis: the address, tapes by content hash, the submitter's
// flow (submit, watch, cancel) and the worker. Everything the queue carries is in types.ts.
export { checkServer, connect, parseQueueUrl, type QueueAddress } from './connection.js';
export { fetchTape, fileSha256, pruneTapes, TapeMissingError, uploadTape, TAPE_CHUNK_BYTES } from './tapes.js';
export { cancelSweep, submitSweep, SweepNotFoundError, watchSweep, type CancelReport, type SweepCountsSeen, type WatchEnd, type WatchOptions } from './sweeps.js';
export { MAX_STALLED, runIndexOfKey, startQueueWorker, type QueueWorkerHandle, type QueueWorkerOptions, type RunContext } from './worker.js';
export { KEEP_SECONDS, PREFIX, RUNS_QUEUE, SWEEPS_QUEUE, runJobId, type GatheredSweep, type PluginRef, type RunJobData, type RunResult, type SweepJobData, type TapeRef } from './types.js';
