// Pure batching (toBatches) and the dispatch decision (planDispatch).
export { batchOf, chunk, groupIntents, groupKey, toBatches, VENUE_BATCH_MAX } from './batches.js';
export { planDispatch, type DispatchCapacity, type DispatchPlan } from './dispatch.js';
