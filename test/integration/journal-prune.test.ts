// `sluice journal prune` on a journal the engine wrote (two strategies trading on the simulator,
// a SQLite file in a temp dir, manual clock): the positions and each strategy's own books after a
// restart on the pruned journal equal those before; the pruned orders' trades that the venue
// shows again (its latest page, read on a full scan every fifth pass) are not booked or reported
// again; the file shrinks; and the command refuses while the journal's lock is held, and on a
// journal with no checkpoint of the strategies' books.
import { statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPruneCommand } from '../../src/commands/journal.js';
import { LEDGER_CHECKPOINT } from '../../src/engine/ledger-checkpoint.js';
import { lockJournal } from '../../src/store/lock.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { cleanUp, deleteCursors, restartOn, tradeThenStop } from '../fixtures/ledger-trading.js';

afterEach(cleanUp);

function configFor(path: string): string {
  const file = join(dirname(path), 'sluice.yaml');
  writeFileSync(file, `mode: paper\njournal:\n  path: ${JSON.stringify(path)}\n`);
  return file;
}

const rows = (path: string) => {
  const j = SqliteJournal.open(path, { readOnly: true });
  const counts = { orders: j.orders().length, fills: j.lastFillId() === 0 ? 0 : j.fills().length };
  j.close();
  return counts;
};

describe('sluice journal prune', () => {
  it('leaves positions and every strategy\'s own books as they were, books no pruned trade again, and shrinks the file', async () => {
    const { one, path, before, account } = await tradeThenStop(20_000);
    const rowsBefore = rows(path);
    const sizeBefore = statSync(path).size;
    const lines: string[] = [];
    // Everything final ended before now; each strategy keeps its latest 10 orders and the orders of its latest 10 fills.
    const code = await journalPruneCommand(configFor(path), { keepDays: 0, vacuum: true, now: one.clock.now() + 1, keepLatest: 10, out: (l) => lines.push(l) });
    expect(code, lines.join('\n')).toBe(0);
    const rowsAfter = rows(path);
    expect(rowsAfter.orders).toBeLessThan(rowsBefore.orders / 3);
    expect(rowsAfter.fills).toBeLessThan(rowsBefore.fills / 3);
    expect(statSync(path).size).toBeLessThan(sizeBefore);
    expect(lines.some((l) => /^journal prune: deleted \d+ orders, \d+ order events, \d+ intents, \d+ fills$/.test(l))).toBe(true);
    expect(lines.some((l) => /^journal prune: rows: orders \d+ -> \d+, order_events \d+ -> \d+, intents \d+ -> \d+, fills \d+ -> \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^journal prune: vacuuming: .*needs about/.test(l))).toBe(true);
    expect(lines.some((l) => /^journal prune: size \(file and -wal\): .* -> /.test(l))).toBe(true);

    // A restart on it that reconciles for 6 s (12 passes: full scans of the latest trades page among them).
    const after = await restartOn(one, path, 6000);
    expect(after.account).toEqual(account);
    for (const id of ['alpha', 'beta'] as const) {
      expect(after.own[id].position).toEqual(before[id].position);
      // Its latest fills and orders: those the journal kept, the latest of before's.
      const fills = after.own[id].fills;
      expect(fills.length).toBeGreaterThanOrEqual(10);
      expect(fills).toEqual(before[id].fills.slice(-fills.length));
      const orders = after.own[id].orders.map((o) => o.clientOrderId);
      expect(orders.length).toBeGreaterThanOrEqual(10);
      expect(orders).toEqual(before[id].orders.map((o) => o.clientOrderId).slice(-orders.length));
    }
    // The venue showed the pruned orders' trades again: none was journaled, none taken for someone else's.
    expect(after.fillsJournaled).toBe(0);
    expect(after.logs.lines.filter((l) => String(l.msg).includes('no order sluice knows'))).toEqual([]);
    expect(after.logs.withMsg("the strategies' own checkpoint cannot be used: their positions are rebuilt from every fill")).toEqual([]);
  }, 60_000);

  it('refuses while the journal\'s lock is held (a daemon runs), and on a journal without a checkpoint of the strategies\' books, changing nothing', async () => {
    const { one, path } = await tradeThenStop(3000);
    const rowsBefore = rows(path);
    const lines: string[] = [];
    const lock = lockJournal(path);
    try {
      const code = await journalPruneCommand(configFor(path), { keepDays: 0, vacuum: true, now: one.clock.now() + 1, keepLatest: 1, out: (l) => lines.push(l) });
      expect(code).toBe(1);
    } finally {
      lock.release();
    }
    expect(lines).toEqual([expect.stringMatching(/^journal prune: refused: journal .* is in use by another sluice \(pid \d+ on .*\): stop it first.*Prune with the daemon stopped/)]);
    expect(rows(path)).toEqual(rowsBefore);

    deleteCursors(path, [LEDGER_CHECKPOINT]);
    lines.length = 0;
    const code = await journalPruneCommand(configFor(path), { keepDays: 0, vacuum: true, now: one.clock.now() + 1, keepLatest: 1, out: (l) => lines.push(l) });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^journal prune: refused: the journal holds no checkpoint of the strategies' own positions .*: start the daemon of this sluice once/)]);
    expect(rows(path)).toEqual(rowsBefore);
  }, 60_000);
});
