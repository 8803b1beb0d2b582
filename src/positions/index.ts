// The position book: fills in (idempotent by trade id), positions and PnL out.
export { malformed, PositionBook, type PositionBookOptions } from './book.js';
export { averageEntry, chargeFee, emptyEntry, toPosition, toStrategyPosition, trade, unrealizedOf } from './entry.js';
export type { ApplyOutcome, BookEntry, BookJSON, BookSnapshotInput, QuoteAssetOf } from './types.js';
