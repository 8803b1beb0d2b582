// The reconciler against the simulator over HTTP: orders sluice did not place (adopted or
// cancelled), an order it had given up on, position drift, and the journal lock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { d, dec } from '../../src/core/decimal.js';
import { JournalError } from '../../src/core/errors.js';
import type { ClientOrderId, VenueOrderId } from '../../src/core/ids.js';
import type { Order } from '../../src/core/types.js';
import { parseConfig } from '../../src/config/index.js';
import { startSimServer, USER } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { createExchangeClient, type ExchangeClient } from '../../src/app/client.js';
import { createLogger } from '../../src/app/logger.js';
import { buildApp, type App } from '../../src/app/build.js';
import { liveApp, passes, untilReconciled } from '../fixtures/app.js';
import { accountReaders } from '../../src/executor/index.js';
import { inspect } from '../../src/app/profiles.js';

type Started = Awaited<ReturnType<typeof startSimServer>>;
let sim: Started | undefined;
let apps: App[] = [];
let hand: ExchangeClient | undefined;
let dir: string | undefined;
afterEach(async () => {
  for (const a of apps) await a.stop().catch(() => undefined);
  await hand?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  apps = [];
  hand = undefined;
  sim = undefined;
});

/** A strategy that trades nothing: it only makes BTCUSDT an active symbol. */
const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });


async function setUp(profile: 'strict' | 'lenient' = 'strict', cancelSettleMs?: number) {
  sim = await startSimServer({ port: 0, seed: 11, profile, ...(cancelSettleMs !== undefined ? { cancelSettleMs } : {}) });
  dir = mkdtempSync(join(tmpdir(), 'sluice-reconcile-'));
  // The account's owner trading by hand, beside sluice.
  hand = createExchangeClient({ spotUrl: sim.url, credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret } });
  await hand.start();
  return { sim, hand, dir };
}

async function startApp(extraYaml: string, journalPath = join(dir!, 'journal.db')) {
  const { app, tap } = await liveApp(sim!, journalPath, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'], everyMs: 1000 }], extraYaml);
  apps.push(app);
  await app.start();
  return { app, tap };
}

/** A resting buy well below the market (`below` times the bid), placed by hand. */
async function handOrder(clientId?: string, below = '0.98') {
  const { bid } = sim!.exchange.top('BTCUSDT');
  const price = dec.truncate(dec.mul(bid!, d(below)), 2);
  const ack = await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01'), price, ...(clientId ? { newClientOrderId: clientId } : {}) });
  return { orderId: ack.orderId, price };
}

describe('orders on the venue that the journal does not know', () => {
  it('adopts them at start-up (foreignOrders: adopt): tracked as open, their fills count, no drift', async () => {
    await setUp();
    const { orderId, price } = await handOrder('manual-1');
    const { app, tap } = await startApp('reconcile: { foreignOrders: adopt }');
    const adopted = app.journal.ordersByVenueId(orderId);
    expect(adopted).toHaveLength(1);
    // The venue lists no client ids in open orders (the strict profile): the venue id names it.
    expect(adopted[0]).toMatchObject({ strategyId: 'adopted', clientOrderId: `venue-${orderId}`, status: 'open', volume: '0.01', price });
    expect(tap.lines.join('\n')).toMatch(/adopted an open order on the venue that the journal did not know/);

    // Someone offers at its price: the adopted order's fill reaches positions, so the venue's BTC
    // balance and our fills still agree.
    sim!.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[price, '1']] });
    await untilReconciled(app, () => app.journal.fills().length === 1);
    expect(app.engine.summary().positions).toMatchObject({ 'spot:BTCUSDT': '0.01' });
    await app.engine.reconciler.holdings.read(new Set(['spot']));
    expect(app.engine.reconciler.driftNow(app.engine.activeSymbols()).map((l) => [l.name, l.difference])).toEqual([['BTC', '0']]);
  });

  it('cancels them when configured (foreignOrders: cancel)', async () => {
    await setUp();
    const { orderId } = await handOrder();
    const { app, tap } = await startApp('reconcile: { foreignOrders: cancel }');
    await tap.waitFor(/sluice did not place: cancelling it/);
    await untilReconciled(app, () => !sim!.exchange.openOrders().spot.some((o) => o.orderId === orderId));
    expect(app.journal.ordersByVenueId(orderId)).toHaveLength(0);
  });

  it('an order we had given up on (marked rejected) that turns up open is tracked again, where the venue echoes client ids', async () => {
    await setUp('lenient');
    const journalPath = join(dir!, 'journal.db');
    // A previous run journaled this order and later concluded it never reached the venue.
    const before = SqliteJournal.open(journalPath);
    const clientOrderId = 'slidle-zz' as ClientOrderId;
    const { bid } = sim!.exchange.top('BTCUSDT');
    const price = dec.truncate(dec.mul(bid!, d('0.98')), 2);
    const order = { clientOrderId, strategyId: 'idle', market: 'spot' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price, executedVolume: d('0'), status: 'pending' as const, createdAt: 1, updatedAt: 1 };
    before.recordIntent({ kind: 'place', intentId: 'i1', strategyId: 'idle', clientOrderId, market: 'spot', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01'), price }, order);
    before.updateOrder({ ...order, status: 'rejected', updatedAt: 2 }, 'never reached the venue');
    before.close();
    const { orderId } = await handOrder(clientOrderId);

    const { app } = await startApp('', journalPath);
    expect(app.journal.order(clientOrderId)).toMatchObject({ status: 'open', venueOrderId: orderId });
  });
});

describe('catching up at start-up', () => {
  it('more than a page of trades made while sluice was down: every fill is journaled before any strategy runs', async () => {
    await setUp();
    const journalPath = join(dir!, 'journal.db');
    const { bid } = sim!.exchange.top('BTCUSDT');
    const price = dec.truncate(dec.mul(bid!, d('0.98')), 2);
    const N = 1100; // myTrades pages hold 1000
    const before = SqliteJournal.open(journalPath);
    before.setCursor('trades:spot:BTCUSDT', '1');
    before.transaction(() => {
      for (let i = 0; i < N; i++) {
        const clientOrderId = `slidle-${i.toString(36)}` as ClientOrderId;
        const placed = sim!.exchange.spot.place(USER, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, volume: d('0.001'), clientOrderId }, sim!.exchange.now());
        const intent = { kind: 'place' as const, intentId: `i${i}`, strategyId: 'idle', clientOrderId, market: 'spot' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.001'), price };
        before.recordIntent(intent, { ...intent, executedVolume: d('0'), status: 'open', venueOrderId: placed.orderId as VenueOrderId, createdAt: 1, updatedAt: 1 });
      }
    });
    before.close();
    // While sluice is down, someone sells into all of them.
    sim!.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[price, '5']] });
    expect(sim!.exchange.openOrders().spot).toHaveLength(0);

    const { app } = await startApp('', journalPath);
    expect(app.journal.fills()).toHaveLength(N);
    expect(app.engine.summary().positions).toMatchObject({ 'spot:BTCUSDT': '1.1' });
  });
});

describe("the account's trades that no order of ours claims", () => {
  it('a new journal on an account with trade history says so in one info line (count, symbols, span); a later trade by hand in one warning', async () => {
    await setUp();
    // The account's history, before this journal: trades made by hand on two symbols.
    for (let i = 0; i < 3; i++) await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.01') });
    for (let i = 0; i < 2; i++) await hand!.executor.call('spot.order', { symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', volume: d('0.1') });
    const reader = accountReaders(hand!.executor).spot;
    const history = [...(await reader.trades('BTCUSDT')).items, ...(await reader.trades('ETHUSDT')).items];
    expect(history).toHaveLength(5);
    const times = history.map((t) => t.time);

    // graceMs 0: a trade is judged unclaimed on the pass that reads it.
    const { app, tap } = await liveApp(sim!, join(dir!, 'journal.db'), [{ id: 'idle', definition: idle, symbols: ['BTCUSDT', 'ETHUSDT'] }], 'reconcile: { drift: { graceMs: 0 } }');
    apps.push(app);
    await app.start();
    const told = () => tap.lines.map((l) => JSON.parse(l) as { level: number; msg: string; trades?: number; symbols?: string[]; from?: string; to?: string }).filter((l) => /no order sluice knows/.test(l.msg));
    expect(told()).toEqual([
      expect.objectContaining({
        level: 30,
        msg: '5 trades of this account from before this journal match no order sluice knows: its history, not counted toward positions (each at debug)',
        trades: 5,
        symbols: ['spot:BTCUSDT', 'spot:ETHUSDT'],
        from: new Date(Math.min(...times)).toISOString(),
        to: new Date(Math.max(...times)).toISOString(),
      }),
    ]);

    // Someone trades the account by hand while sluice runs: a warning, once.
    await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.01') });
    await tap.waitFor(/"level":40.*placed by hand or by another program/);
    await passes(app, 2);
    expect(told().map((l) => [l.level, l.trades, l.symbols])).toEqual([
      [30, 5, ['spot:BTCUSDT', 'spot:ETHUSDT']],
      [40, 1, ['spot:BTCUSDT']],
    ]);
  });
});

describe('position drift', () => {
  it('a trade made by hand moves the balance without a fill of ours: reduce-only with an alert, listed with its numbers', async () => {
    await setUp();
    const { app, tap } = await startApp('reconcile: { drift: { action: reduce_only, graceMs: 0, tolerance: { BTCUSDT: "0.0001" } } }');
    expect(app.riskGate.killSwitch()).toBe('off');
    await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.01') });
    const line = JSON.parse(await tap.waitFor(/"alert":"drift"/)) as { msg: string; killSwitch: string };
    expect(line.killSwitch).toBe('reduce_only');
    expect(line.msg).toMatch(/^position drift: BTC balance on the venue is [\d.]+, our fills explain [\d.]+ \(difference -0\.01, tolerance 0\.0001\); trading is reduce_only until it is resolved$/);
    expect(app.riskGate.killSwitch()).toBe('reduce_only');
  });
});

describe('position drift never loosens the kill switch', () => {
  it('a daemon configured halted stays halted when drift asks for reduce-only', async () => {
    await setUp();
    const { app, tap } = await startApp('risk: { killSwitch: { mode: halted } }\nreconcile: { drift: { action: reduce_only, graceMs: 0 } }');
    await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.01') });
    const line = JSON.parse(await tap.waitFor(/"alert":"drift"/)) as { msg: string; killSwitch: string };
    expect(line.killSwitch).toBe('halted');
    expect(line.msg).toMatch(/trading is halted until it is resolved$/);
    expect(app.riskGate.killSwitch()).toBe('halted');
  });
});

describe('sluice status', () => {
  it('shows journal and venue side by side without writing to the journal, and flags drift', async () => {
    await setUp();
    const journalPath = join(dir!, 'journal.db');
    const { orderId } = await handOrder('manual-2');
    const { app } = await startApp('', journalPath);
    await app.stop();
    apps = [];
    // While sluice is down, the owner sells by hand and places another order.
    await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.02') });
    const { orderId: later } = await handOrder('manual-3');

    const journal = SqliteJournal.open(journalPath);
    const before = JSON.stringify([journal.orders({}), journal.fills(), journal.cursor('baseline:spot:BTC')]);
    const { config, credentials } = await parseConfig(`mode: live\nvenue: { spotUrl: ${sim!.url} }\njournal: { path: ${journalPath} }\nstrategies: [{ id: idle, use: inline, symbols: [BTCUSDT] }]\n`, {
      env: { SLUICE_API_KEY: sim!.apiKey, SLUICE_API_SECRET: sim!.apiSecret },
    });
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const viewer = buildApp({ config, credentials, strategies: [{ entry: config.strategies[0]!, definition: idle, params: {} }], profile: inspect(config, 'read-only'), journal, log: createLogger({ level: 'warn', pretty: false, secrets: [], destination: quiet }) });
    await viewer.client.start();
    const { statusReport } = await import('../../src/app/status.js');
    const { text, drift } = await statusReport(viewer);
    await viewer.client.close();

    expect(drift).toBe(true);
    expect(text).toMatch(/DRIFT BTC balance on the venue is [\d.]+, our fills explain 2 \(difference -0\.02, tolerance 0\)/);
    expect(text).toContain('spot BTCUSDT: 1 open in the journal, 2 open on the venue');
    expect(text).toMatch(new RegExp(`both +venue-${orderId} #${orderId} BUY LIMIT 0.01 @ [\\d.]+ open`));
    expect(text).toMatch(new RegExp(`venue only +- #${later} BUY LIMIT 0.01`));
    expect(JSON.stringify([journal.orders({}), journal.fills(), journal.cursor('baseline:spot:BTC')])).toBe(before);
    journal.close();
  });
});

describe('sluice status beside a running daemon', () => {
  /**
   * Resolves once the daemon's reconcile loop has run its first pass, the one right after the
   * start-up's (call before start()). With reconcileEveryMs an hour, the daemon then reconciles
   * only when the test calls engine.reconcile().
   */
  function afterFirstLoopPass(app: App): Promise<void> {
    return new Promise((resolve) => {
      const on = () => {
        if (!app.engine.ready) return; // a start-up pass
        app.engine.events.off('reconciled', on);
        resolve();
      };
      app.engine.events.on('reconciled', on);
    });
  }

  /** `sluice status` on the journal at `journalPath` (graceMs 5000): its exit code and output; `wait` runs between its two looks. */
  async function status(journalPath: string, wait: (ms: number) => Promise<void>) {
    const configPath = join(dir!, 'status.yaml');
    writeFileSync(configPath, `mode: live\nvenue: { spotUrl: ${sim!.url} }\njournal: { path: ${journalPath} }\nreconcile: { drift: { graceMs: 5000 } }\nstrategies: [{ id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT] }]\n`);
    const { statusCommand } = await import('../../src/commands/status.js');
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((t) => (out.push(String(t)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((t) => (err.push(String(t)), true));
    vi.stubEnv('SLUICE_API_KEY', sim!.apiKey);
    vi.stubEnv('SLUICE_API_SECRET', sim!.apiSecret);
    try {
      const code = await statusCommand(configPath, { wait });
      return { code, out: out.join(''), err: err.join('') };
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    }
  }

  /** A viewer of a journal holding one order sent and not yet answered, as a running daemon's journal does between intent and answer. */
  async function viewerWithOrderInFlight(clientOrderId: string) {
    const journalPath = join(dir!, 'inflight.db');
    const { app } = await liveApp(sim!, journalPath, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }]);
    apps.push(app);
    const intent = { kind: 'place' as const, intentId: 'i', strategyId: 'idle', clientOrderId: clientOrderId as ClientOrderId, market: 'spot' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price: d('20000') };
    app.journal.recordIntent(intent, { ...intent, executedVolume: d('0'), status: 'pending', createdAt: 1, updatedAt: 1 });
    await app.client.start();
    const { statusReport } = await import('../../src/app/status.js');
    return { app, report: () => statusReport(app) };
  }

  it('an order in flight, and a venue order that may be it, are not a disagreement (strict venue: no client ids listed)', async () => {
    await setUp('strict');
    const { report } = await viewerWithOrderInFlight('slidle-p1');
    const { orderId } = await handOrder();
    const r = await report();
    expect(r.text).toMatch(/in flight +slidle-p1 #\? BUY LIMIT 0\.01 @ 20000 pending/);
    expect(r.text).toMatch(new RegExp(`venue only\\? +- #${orderId} BUY LIMIT 0.01 @ [\\d.]+ executed 0 \\(maybe one of ours in flight\\)`));
    expect(r.ordersDisagree).toBe(false);
  });

  it('the command looks again after graceMs before it calls a difference one, and exits 1 when it lasts', async () => {
    await setUp('strict');
    const journalPath = join(dir!, 'gone.db');
    const journal = SqliteJournal.open(journalPath);
    const intent = { kind: 'place' as const, intentId: 'i', strategyId: 'grid1', clientOrderId: 'slgrid1-zz' as ClientOrderId, market: 'spot' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.01'), price: d('20000') };
    journal.recordIntent(intent, { ...intent, executedVolume: d('0'), status: 'open', venueOrderId: '424242' as VenueOrderId, createdAt: 1, updatedAt: 1 });
    journal.close();
    const waited: number[] = [];
    const { code, out, err } = await status(journalPath, async (ms) => void waited.push(ms));
    expect(code).toBe(1);
    expect(waited).toEqual([5000]);
    expect(err).toBe('status: the journal and the venue differ; looking again in 5 s (reconcile.drift.graceMs), as a running daemon may not have journaled a fill or an answer yet\n');
    expect(out).toMatch(/journal only +slgrid1-zz #424242 BUY LIMIT 0\.01 @ 20000 open\n/);
  });

  it('a venue ban the journal records: nothing is sent before it ends, exit 1 saying until when', async () => {
    await setUp('strict');
    const journalPath = join(dir!, 'banned.db');
    const journal = SqliteJournal.open(journalPath);
    const until = Date.now() + 600_000;
    journal.setBanUntil(until);
    journal.close();
    const arrived = sim!.exchange.arrivals().length;
    const { code, out, err } = await status(journalPath, async () => undefined);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(`status: the venue was not asked: the journal records a venue ban until ${new Date(until).toISOString()}, and nothing is sent before it ends; run sluice status again after it\n`);
    expect(sim!.exchange.arrivals()).toHaveLength(arrived);
  });

  it('a venue that does not answer: a clear error naming what to check, exit 1, not a crash', async () => {
    await setUp('strict');
    const journalPath = join(dir!, 'down.db');
    const journal = SqliteJournal.open(journalPath);
    journal.close();
    // The helper writes the simulator's URL and keys; nothing listens there any more.
    await sim!.close();
    try {
      const { code, out, err } = await status(journalPath, async () => undefined);
      expect(code).toBe(1);
      expect(out).toBe('');
      expect(err).toMatch(/^status: the venue did not answer \(spot\.time: .*ECONNREFUSED.*\), so the journal cannot be compared with it: try again, or run sluice doctor \(venue\.spotUrl, the network, the credentials\)\n$/);
    } finally {
      sim = undefined; // closed already
    }
  });

  it('a busy daemon: what differs in the first look is journaled before the second, and what differs in the second is new; neither counts, exit 0', async () => {
    await setUp('strict');
    const first = await handOrder();
    const second = await handOrder(undefined, '0.97');
    const journalPath = join(dir!, 'busy.db');
    // The daemon adopts both orders; it reconciles only when the test says (reconcileEveryMs: an hour).
    const { app } = await liveApp(sim!, journalPath, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }], 'reconcile: { foreignOrders: adopt, drift: { graceMs: 0 } }\nengine: { reconcileEveryMs: 3600000 }');
    apps.push(app);
    const looped = afterFirstLoopPass(app);
    await app.start();
    await looped;
    expect(app.journal.orders({ openOnly: true }).map((o) => o.venueOrderId).sort()).toEqual([first.orderId, second.orderId].sort());
    const fill = (price: string) => sim!.exchange.applyMarketEvent({ type: 'book', symbol: 'BTCUSDT', bids: [], asks: [[price, '0.01']] });
    // The first fills before status looks; the daemon journals it on its next pass.
    fill(first.price);
    const { code, out } = await status(journalPath, async () => {
      // Between the looks the daemon's pass journals the first fill, and the second order fills.
      await app.engine.reconcile();
      expect(app.journal.order(`venue-${first.orderId}`)?.status).toBe('filled');
      fill(second.price);
    });
    expect(out).toMatch(/late +BTC balance on the venue is [\d.]+, our fills explain [\d.]+ \(difference 0\.0099\d*, tolerance 0\) \(not counted: fills journaled since explain the first look's difference\)\n/);
    expect(out).toMatch(new RegExp(`journal only venue-${second.orderId} #${second.orderId} BUY LIMIT 0\\.01 @ ${second.price} open \\(not counted: new since the first look\\)\\n`));
    expect(out).not.toMatch(/DRIFT/);
    expect(code).toBe(0);
  });

  it('a drift that lasts both looks, unexplained by the fills journaled between them, is DRIFT, exit 1', async () => {
    await setUp('strict');
    const journalPath = join(dir!, 'hand.db');
    const { app } = await liveApp(sim!, journalPath, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }], 'reconcile: { drift: { graceMs: 0 } }\nengine: { reconcileEveryMs: 3600000 }');
    apps.push(app);
    const looped = afterFirstLoopPass(app);
    await app.start();
    await looped;
    await hand!.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', volume: d('0.01') });
    const { code, out } = await status(journalPath, async () => void (await app.engine.reconcile()));
    expect(out).toMatch(/DRIFT BTC balance on the venue is [\d.]+, our fills explain [\d.]+ \(difference -0\.01, tolerance 0\)\n/);
    expect(code).toBe(1);
  });

  it('an order whose cancel the venue took, not yet settled in the journal (pending_cancel), is in flight, not a disagreement', async () => {
    await setUp('strict', 0);
    // Once told to, places one resting buy and cancels it once it is open.
    let go = false;
    const flip = defineStrategy({
      apiVersion: 1,
      name: 'flip',
      params: z.object({}),
      create: (ctx) => {
        let placed = false;
        return {
          onTick() {
            const last = ctx.lastPrice('BTCUSDT');
            if (!go || placed || !last) return;
            placed = true;
            ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: dec.truncate(dec.mul(last, d('0.97')), 2), volume: '0.001' });
          },
          onOrderUpdate(order) {
            if (order.status === 'open') ctx.cancel(order.clientOrderId);
          },
        };
      },
    });
    const journalPath = join(dir!, 'cancelling.db');
    const { app } = await liveApp(sim!, journalPath, [{ id: 'flip', definition: flip, symbols: ['BTCUSDT'] }], 'reconcile: { drift: { graceMs: 0 } }\nengine: { reconcileEveryMs: 3600000 }');
    apps.push(app);
    const cancelling = new Promise<Order>((resolve) => app.engine.events.on('order', (o: Order) => o.status === 'pending_cancel' && resolve(o)));
    const looped = afterFirstLoopPass(app);
    await app.start();
    // No pass runs from here on: the journal keeps the order pending_cancel after the venue drops it.
    await looped;
    go = true;
    const order = await cancelling;
    const { code, out } = await status(journalPath, async () => undefined);
    expect(app.journal.order(order.clientOrderId)?.status).toBe('pending_cancel');
    expect(sim!.exchange.openOrders().spot).toEqual([]);
    expect(out).toMatch(new RegExp(`in flight +${order.clientOrderId} #${order.venueOrderId} BUY LIMIT 0\\.001 @ [\\d.]+ pending_cancel\\n`));
    expect(code).toBe(0);
  });

  it('a venue order listed with the client id of one in flight is ours (lenient venue: client ids listed)', async () => {
    await setUp('lenient');
    const { report } = await viewerWithOrderInFlight('slidle-p2');
    const { orderId } = await handOrder('slidle-p2');
    const r = await report();
    expect(r.text).toMatch(new RegExp(`venue \\(ours\\) slidle-p2 #${orderId} BUY LIMIT`));
    expect(r.ordersDisagree).toBe(false);
    // Another order the journal cannot explain still is one.
    const other = await handOrder('manual-9');
    const again = await report();
    expect(again.text).toMatch(new RegExp(`venue only +manual-9 #${other.orderId} BUY LIMIT`));
    expect(again.ordersDisagree).toBe(true);
  });
});

describe('journal lock', () => {
  it('a second daemon on the same journal is refused while the first runs', async () => {
    await setUp();
    await startApp('');
    await expect(startApp('')).rejects.toThrow(JournalError);
    await expect(startApp('')).rejects.toThrow(/is in use by another sluice \(pid \d+/);
  });
});

