// Pure batching (toBatches) and the dispatch decision (planDispatch; planRound for all kinds at once).
export { batchOf, chunk, groupIntents, groupKey, toBatches, VENUE_BATCH_MAX } from './batches.js';
export { mostPerRound, planDispatch, planRound, type DispatchCapacity, type DispatchPlan } from './dispatch.js';
