// The account's position book, checkpointed. After each reconcile pass the book's lines are
// journaled with the number of the last fill they cover, so a start restores them and applies
// only the fills journaled after, instead of every fill the journal holds (about 10 µs a fill).
// Consistent because a pass applies each fill it journals before its next await (reconciler/
// poller.ts), so between passes the book is exactly every journaled fill applied in journal
// order. The journal keeps every fill: a checkpoint that cannot be used (unreadable, covering
// fills the journal does not hold, lines at a contract size the venue no longer gives) is set
// aside with a warning and the book is rebuilt from every fill, as without one.
import { amend } from '../core/amend.js';
import { errorText } from '../core/errors.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { BookSnapshotInput, PositionBook } from '../positions/index.js';
import { LEDGER_CHECKPOINT, ledgerCheckpointText, prunedNote, restoreLedger } from './ledger-checkpoint.js';
import type { StrategyLedger } from './ledger.js';

/** The journal cursor that holds the checkpoint. */
export const POSITIONS_CHECKPOINT = 'positions:checkpoint';

interface Checkpoint {
  /** Journal number of the last fill the lines cover. */
  throughFill: number;
  book: BookSnapshotInput;
}

export class PositionsCheckpoint {
  /** The fill number the journal's checkpoint covers, as this process last read or wrote it. */
  private through = -1;
  /** The fill number the journal's checkpoint of the strategies' books covers, as this process last read or wrote it. */
  private booksThrough = -1;

  constructor(
    private readonly journal: Journal,
    private readonly positions: PositionBook,
    private readonly log: Log,
    /** Each strategy's own books, checkpointed in the same commit with the same fill number (ledger-checkpoint.ts). */
    private readonly ledger?: Pick<StrategyLedger, 'checkpoint'>,
  ) {}

  /** The fill number the checkpoint restored (or last written) covers; undefined when none was: the book is every fill's. */
  get covers(): number | undefined {
    return this.through < 0 ? undefined : this.through;
  }

  /** Restores the book (empty) from the journal's checkpoint; returns the number of the last fill it covers, 0 when there is none to use. */
  restore(): number {
    const text = this.journal.cursor(POSITIONS_CHECKPOINT);
    if (text === undefined) return 0;
    try {
      const { throughFill, book } = JSON.parse(text) as Partial<Checkpoint>;
      if (!Number.isSafeInteger(throughFill) || throughFill! < 0) throw new RangeError(`throughFill must be a fill's journal number (got ${String(throughFill)})`);
      const latest = this.journal.lastFillId();
      if (throughFill! > latest) throw new RangeError(`it covers fills up to number ${throughFill}, but the journal's latest is ${latest}`);
      if (typeof book !== 'object' || book === null || !Array.isArray(book.positions)) throw new RangeError('book.positions must be a list');
      this.positions.restore(book);
      return (this.through = throughFill!);
    } catch (err) {
      this.log.warn(amend({ reason: errorText(err) }, prunedNote(this.journal)), 'the positions checkpoint cannot be used: positions are rebuilt from every fill');
      return 0;
    }
  }

  /** The strategies' books were restored from the journal's checkpoint covering fills up to `through`. */
  booksRestored(through: number): void {
    this.booksThrough = through;
  }

  /**
   * Journals the book (the positions table, for people and tools) and its checkpoint, with the
   * strategies' own books once the ledger is loaded, in one commit; nothing when no fill was
   * journaled since the last (only fills change the books).
   */
  save(): void {
    const through = this.journal.lastFillId();
    const books = this.ledger?.checkpoint();
    if (through === this.through && (books === undefined || through === this.booksThrough)) return;
    this.journal.transaction(() => {
      this.journal.savePositions(this.positions.snapshot());
      const checkpoint: Checkpoint = { throughFill: through, book: this.positions.checkpoint() };
      this.journal.setCursor(POSITIONS_CHECKPOINT, JSON.stringify(checkpoint));
      if (books) this.journal.setCursor(LEDGER_CHECKPOINT, ledgerCheckpointText(through, books));
    });
    this.through = through;
    if (books) this.booksThrough = through;
  }
}

/**
 * Positions from their checkpoint and the fills after it; with a ledger, the strategies' own
 * books from theirs when it covers the same fills, else from the first fill: one read of the fills.
 */
export function restoreBooks(parts: { journal: Journal; positions: PositionBook; log: Log }, checkpoint: PositionsCheckpoint, ledger: StrategyLedger | undefined): void {
  const { journal, positions, log } = parts;
  const through = checkpoint.restore();
  const booksThrough = ledger && restoreLedger(journal, ledger, through, log);
  if (booksThrough !== undefined) checkpoint.booksRestored(booksThrough);
  for (const { id, fill, strategyId } of journal.eachFill(ledger ? (booksThrough ?? 0) : through)) {
    if (id > through) positions.apply(fill);
    ledger?.replay(fill, strategyId);
  }
  ledger?.replayed();
}
