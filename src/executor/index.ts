export { Executor, DEFAULT_RECV_WINDOW_MS, DEFAULT_RETRY, type CallRecord, type Credentials, type ExecutorOptions, type RetryPolicy } from './executor.js';
export { VenueClock, type OffsetSample } from './venue-clock.js';
export { OrderGateway, endpointForBatch, ORDER_ENDPOINTS, type CancelOutcome, type CancelResult, type PlaceOutcome, type PlaceResult } from './gateway.js';
export { accountReaders, marketReaders, notServed, pageComplete, pageFull, DEFAULT_PAGE, MAX_PAGE } from './readers.js';
export { DryRunGateway } from './dry-run.js';
