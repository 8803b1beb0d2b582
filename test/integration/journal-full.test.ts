// A journal that stops taking writes while the daemon trades (a full disk), through the whole
// engine on a SQLite journal: nothing is sent unjournaled, the strategy is not blamed (it runs
// on), health and an alert say why, and placing resumes by itself once writes work again.
import type { Database } from '../../src/store/driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../src/core/decimal.js';
import type { ClientOrderId } from '../../src/core/ids.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { drive, engineApp, loaded, type EngineApp } from '../fixtures/engine-parts.js';

const yaml = `
mode: paper
engine:
  marketDataEveryMs: 100
  reconcileEveryMs: 500
  summaryEveryMs: 600000
  shutdown: { queued: drop, cancelOpenOrders: false }
risk:
  maxOrdersPerSecond: 100
  maxOpenOrders: 1000
`;

let running: EngineApp | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (running) await drive(running.clock, running.app.stop());
  running = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Rests a small bid about 3% under the market every tick; keeps what it was told. */
function bidder() {
  const placed: ClientOrderId[] = [];
  const rejected: { id: string; reason: string }[] = [];
  const definition = defineStrategy({
    apiVersion: 2,
    name: 'bidder',
    params: z.object({}),
    create: (ctx) => ({
      onTick() {
        const last = ctx.lastPrice('BTCUSDT');
        if (!last) return;
        // A cent lower each time: risk refuses a repeat of the same order within a second.
        const price = dec.sub(ctx.roundPrice('BTCUSDT', dec.mul(last, d('0.97')), 'BUY'), d((placed.length / 100).toFixed(2)));
        placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: '0.001', price }));
      },
      onOrderEvent(e) {
        if (e.kind === 'rejected') rejected.push({ id: e.clientOrderId, reason: e.reason });
      },
    }),
  });
  return { definition, placed, rejected };
}

/** SQLite's own page cap, the way to make a disk full for one file: writes past it fail with SQLITE_FULL. */
function capPages(journal: SqliteJournal, pages: number | 'now'): void {
  const db = (journal as unknown as { db: Database.Database }).db;
  const cap = pages === 'now' ? (db.pragma('page_count', { simple: true }) as number) : pages;
  db.pragma(`max_page_count = ${cap}`);
}

describe('the journal stops taking writes while the daemon trades', () => {
  it('sends nothing unjournaled, keeps the strategy enabled, says so in health and an alert, and places again once writes work', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-full-'));
    const journal = SqliteJournal.open(join(dir, 'journal.db'), { now: () => running?.clock.now() ?? 0 });
    const b = bidder();
    const alerts: { kind: string; message: string; details: Record<string, unknown> }[] = [];
    const seen: Array<() => boolean> = [];
    const when = (ok: () => boolean) => new Promise<void>((resolve) => seen.push(() => (ok() ? (resolve(), true) : false)));
    running = await engineApp(yaml, [loaded('bidder', b.definition)], {
      journal,
      alert: (kind, message, details) => {
        alerts.push({ kind, message, details });
        for (const check of seen.splice(0)) if (!check()) seen.push(check);
      },
    });
    const e = running;
    const venueOrders = () => e.sim.orderLog().length;
    const placedOpen = () => e.app.journal.orders({ openOnly: true }).filter((o) => o.status === 'open').length;

    const opened = new Promise<void>((resolve) => e.app.engine.events.on('order', () => placedOpen() >= 3 && resolve()));
    void e.app.start();
    await drive(e.clock, opened, 20_000);

    capPages(journal, 'now');
    await drive(e.clock, when(() => alerts.some((a) => a.kind === 'journal')), 20_000);
    const failure = journal.writeFailure()!;
    expect(failure.message).toMatch(/^journal .*journal\.db: \w+ failed, the disk is full: free space/);
    expect(alerts.map((a) => a.kind)).toEqual(['journal']);
    expect(alerts[0]!.details).toEqual({ since: failure.since });
    expect(alerts[0]!.message).toBe(`the journal takes no writes (${failure.message}): no order is placed until it does; cancels still go`);
    expect(e.app.engine.disabledStrategies()).toEqual([]);

    // Ticks go on for 2 s. A full disk may still take a small write that fits a page already
    // there, so some intents may go through; every one that did not is refused to the strategy
    // with the reason, never journaled, never sent, and the venue holds no order we did not journal.
    const refusedBefore = b.rejected.length;
    const until = e.clock.now() + 2000;
    await drive(e.clock, e.clock.sleep(until - e.clock.now()), 20_000);
    const notSent = b.rejected.slice(refusedBefore).filter((r) => r.reason.startsWith('not sent: '));
    expect(notSent.length).toBeGreaterThanOrEqual(10);
    for (const r of notSent) expect(r.reason).toMatch(/^not sent: journal .*journal\.db: \w+ failed, the disk is full/);
    const atVenue = new Set(e.sim.orderLog().map((o) => o.clientOrderId));
    for (const r of notSent) {
      expect(e.app.journal.order(r.id)).toBeUndefined();
      expect(atVenue.has(r.id)).toBe(false);
    }
    for (const o of e.sim.orderLog()) expect(e.app.journal.ordersByVenueId(o.orderId).map((j) => j.strategyId)).toEqual(['bidder']);
    expect(e.app.engine.disabledStrategies()).toEqual([]);

    // Space is freed: orders are journaled and sent again, and the last alert says so.
    capPages(journal, 1_000_000);
    const sentBefore = venueOrders();
    await drive(e.clock, new Promise<void>((resolve) => e.app.engine.events.on('order', () => venueOrders() >= sentBefore + 5 && resolve())), 20_000);
    expect(journal.writeFailure()).toBeUndefined();
    expect(alerts.at(-1)).toMatchObject({ kind: 'journal', message: 'the journal takes writes again: orders are placed again', details: { recovered: true } });
    expect(e.app.engine.disabledStrategies()).toEqual([]);
  });
});
