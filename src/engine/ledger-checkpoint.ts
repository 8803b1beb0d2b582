// Each strategy's own book (its position, realised PnL and fees: ctx.ownPosition()), checkpointed
// with the account's (positions-checkpoint.ts): the same commit, the same fill number. A start
// restores both and replays only the fills journaled after them, so neither costs a read of every
// fill ever journaled, and the journal may be pruned below them (store/prune.ts). A checkpoint
// that cannot be used (unreadable, covering fills the journal does not hold, of another version,
// not taken with the positions', lines at a contract size the venue no longer gives) is set aside
// with a warning and the books are rebuilt from every fill, as without one. The strategies'
// bounded history (their latest fills and orders) is not in it: the ledger reads it from the
// journal (ledger.ts).
import { amend } from '../core/amend.js';
import { errorText } from '../core/errors.js';
import { PRUNED_KEY } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { Journal } from '../core/ports.js';
import type { LedgerBooks, StrategyLedger } from './ledger.js';

/**
 * What a warning about a checkpoint set aside adds when the journal was pruned: the rebuild then
 * lacks the pruned fills, so the positions are short of them (`sluice status` shows the drift).
 */
export function prunedNote(journal: Journal): { pruned?: string } {
  const text = journal.cursor(PRUNED_KEY);
  if (text === undefined) return {};
  return { pruned: `the journal was pruned (${text}): the fills pruned are not in the rebuild, so these positions lack them; compare with the venue (sluice status) before trading on them` };
}

/** The journal cursor that holds the checkpoint. */
export const LEDGER_CHECKPOINT = 'ledger:checkpoint';
/** The checkpoint's layout; one of another is set aside. */
export const LEDGER_CHECKPOINT_VERSION = 1;

export interface LedgerCheckpointRecord {
  version: number;
  /** Journal number of the last fill the books cover: the positions checkpoint's. */
  throughFill: number;
  strategies: LedgerBooks;
}

/** The checkpoint's text for the books covering fills up to `throughFill`. */
export function ledgerCheckpointText(throughFill: number, strategies: LedgerBooks): string {
  const record: LedgerCheckpointRecord = { version: LEDGER_CHECKPOINT_VERSION, throughFill, strategies };
  return JSON.stringify(record);
}

/**
 * The journal's checkpoint read and checked, or why it cannot be used; undefined when there is
 * none. `positionsThrough` is the fill number the positions checkpoint restored covers.
 */
export function readLedgerCheckpoint(journal: Journal, positionsThrough: number): LedgerCheckpointRecord | { problem: string } | undefined {
  const text = journal.cursor(LEDGER_CHECKPOINT);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<LedgerCheckpointRecord>;
    if (record.version !== LEDGER_CHECKPOINT_VERSION) throw new RangeError(`it is of version ${String(record.version)}, and this sluice reads version ${LEDGER_CHECKPOINT_VERSION}`);
    const { throughFill } = record;
    if (!Number.isSafeInteger(throughFill) || throughFill! < 0) throw new RangeError(`throughFill must be a fill's journal number (got ${String(throughFill)})`);
    const latest = journal.lastFillId();
    if (throughFill! > latest) throw new RangeError(`it covers fills up to number ${throughFill}, but the journal's latest is ${latest}`);
    if (throughFill !== positionsThrough) throw new RangeError(`it covers fills up to number ${throughFill}, but the positions restored cover fills up to number ${positionsThrough}`);
    if (!Array.isArray(record.strategies)) throw new RangeError('strategies must be a list');
    return record as LedgerCheckpointRecord;
  } catch (err) {
    return { problem: errorText(err) };
  }
}

/**
 * Restores the ledger's books from the journal's checkpoint when it covers the same fills as the
 * positions restored (`positionsThrough`); returns the number of the last fill they cover, from
 * which the start replays, or undefined when the books are to be rebuilt from every fill.
 */
export function restoreLedger(journal: Journal, ledger: StrategyLedger, positionsThrough: number, log: Log): number | undefined {
  const read = readLedgerCheckpoint(journal, positionsThrough);
  if (read === undefined) return undefined;
  try {
    if ('problem' in read) throw new Error(read.problem);
    ledger.restore(read.strategies);
    return read.throughFill;
  } catch (err) {
    log.warn(amend({ reason: errorText(err) }, prunedNote(journal)), "the strategies' own checkpoint cannot be used: their positions are rebuilt from every fill");
    return undefined;
  }
}

