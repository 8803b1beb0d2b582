// Recording and replay of venue traffic: tapes for `record:`, `sluice replay` and backtests.
export {
  TAPE_VERSION,
  REDACTED,
  TapeFormatError,
  redact,
  type RecordedFailure,
  type RecordedRequest,
  type RecordedResponse,
  type Tape,
  type TapeCall,
  type TapeHeader,
  type TapeLine,
} from './format.js';
export { TapeWriter, type TapeWriterOptions } from './writer.js';
export { RecordingTransport } from './recorder.js';
export { isGzipFile, openTape, readTape, streamTape } from './reader.js';
export { ReplayTransport, VOLATILE_PARAMS, diffRequests } from './replay.js';
export { marketEvents, REORDER_MS, streamMarketEvents, type TapeMarketEvent } from './market.js';
export { defaultEventCacheDir, eventCachePath, openMarketEvents, prepareEventCache, type MarketEventSource } from './event-cache.js';
export { TapeFeed, lastEventAt, type FeedSource } from './feed.js';
export { LISTING_WITHIN_MS, recordedListings, type RecordedListings } from './listings.js';
export { incidentsOf, plainSuccess, recordedIncidents } from './incidents.js';
