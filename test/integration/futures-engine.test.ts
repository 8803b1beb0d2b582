// Futures through the whole engine, over real HTTP against the simulator on 127.0.0.1: orders
// on /fapi/v1 one per request, fills into positions the venue agrees with, opening and closing,
// drift against the venue's futures positions (and `sluice status`), spot and futures on the
// same symbol name, and risk on futures. The venue is the judge: expectations read the simulator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec, type Decimal } from '../../src/core/decimal.js';
import { parseClientOrderId } from '../../src/core/ids.js';
import type { Market, Order } from '../../src/core/types.js';
import { PositionBook } from '../../src/positions/index.js';
import { DEFAULT_CONTRACTS, DEFAULT_SYMBOLS, startSimServer, USER, type SimServer, type SimServerOptions } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z, type OrderRequest, type StrategyContext, type StrategyHandlers } from '../../src/strategy/api.js';
import { createLogger } from '../../src/app/logger.js';
import { statusReport } from '../../src/app/status.js';
import { buildApp, type App } from '../../src/app/build.js';
import { liveApp, untilReconciled } from '../fixtures/app.js';
import { inspect } from '../../src/app/profiles.js';

const SEED = 5;
const BTC_PERP = 'E-BTC-USDT';

let sims: SimServer[] = [];
let apps: App[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const a of apps) await a.stop().catch(() => undefined);
  for (const s of sims) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  apps = [];
  sims = [];
  dir = undefined;
});

async function venue(opts: SimServerOptions = {}): Promise<SimServer> {
  const sim = await startSimServer({ port: 0, seed: SEED, ...opts });
  sims.push(sim);
  return sim;
}


interface Plugin {
  id: string;
  market: Market;
  symbols: string[];
  create(ctx: StrategyContext<Record<string, never>>): StrategyHandlers;
}

async function startApp(opts: { spot: SimServer; futures?: SimServer; plugins: Plugin[]; yaml?: string }) {
  dir ??= mkdtempSync(join(tmpdir(), 'sluice-futures-'));
  const journalPath = join(dir, 'journal.db');
  const venue = { ...opts.spot, futuresUrl: (opts.futures ?? opts.spot).url };
  const inline = opts.plugins.map((p) => ({ id: p.id, market: p.market, symbols: p.symbols, everyMs: 100, definition: defineStrategy({ apiVersion: 1, name: p.id, params: z.object({}), create: p.create }) }));
  const { app, tap, config, credentials, strategies } = await liveApp(venue, journalPath, inline, opts.yaml ?? '');
  apps.push(app);
  await app.start();
  return { app, tap, config, credentials, journalPath, strategies };
}


/** Waits for `n` more reconcile passes: after the second, an account read made after now has been checked for drift. */
async function passes(app: App, n: number): Promise<void> {
  for (let k = 0; k < n; k++) await new Promise<void>((resolve) => app.engine.events.once('reconciled', resolve));
}

/** The venue's net futures position in a contract: longs minus shorts, in contracts. */
function venuePosition(sim: SimServer, contract: string): Decimal {
  return dec.sum(
    sim.exchange
      .futuresState()
      .positions.filter((p) => p.contract === contract)
      .map((p) => (p.side === 'BUY' ? d(String(p.lots)) : dec.neg(d(String(p.lots))))),
  );
}

/** The venue's average entry price of its one open position in a contract. */
function venueAvgEntry(sim: SimServer, contract: string): Decimal {
  const [p] = sim.exchange.futuresState().positions.filter((x) => x.contract === contract);
  return dec.div(p!.openValue, d(String(p!.lots)));
}

// Generous limits keep the notional checks out of the way of the tests about other things (the last test checks them).
const HIGH_NOTIONAL = 'risk: { maxNotionalPerOrder: "1000000", maxNotionalPerMinute: "10000000", maxOrdersPerSecond: 100 }';

describe('a futures strategy through the engine', () => {
  /**
   * Runs a strategy that opens a long of 10 contracts with three marketable limit buys, then
   * closes 4 at the market once the 10 are in its position. Calls `onOpened` at 10 (before the
   * close is placed) and returns when the position is 6.
   */
  async function openThenReduce(onOpened: (sim: SimServer, app: App) => void = () => undefined) {
    const sim = await venue();
    let closed!: () => void;
    const closedPart = new Promise<void>((r) => (closed = r));
    let app!: App;
    const perp: Plugin = {
      id: 'perp',
      market: 'futures',
      symbols: [BTC_PERP],
      create(ctx) {
        let sent = false;
        let closing = false;
        return {
          onTick() {
            const last = ctx.lastPrice(BTC_PERP);
            if (sent || !last) return;
            sent = true;
            // A tenth apart, so none is suppressed as a duplicate.
            const price = dec.truncate(dec.mul(last, d('1.01')), 1);
            for (const [k, volume] of ['5', '3', '2'].entries()) ctx.place({ symbol: BTC_PERP, side: 'BUY', type: 'LIMIT', price: dec.add(price, d(`0.${k}`)), volume, open: 'OPEN' });
          },
          onFill() {
            const q = ctx.position(BTC_PERP).quantity;
            if (!closing && dec.eq(q, d('10'))) {
              closing = true;
              onOpened(sim, app);
              ctx.place({ symbol: BTC_PERP, side: 'SELL', type: 'MARKET', volume: '4', open: 'CLOSE' });
            }
            if (closing && dec.eq(q, d('6'))) closed();
          },
        };
      },
    };
    ({ app } = await startApp({ spot: sim, plugins: [perp], yaml: HIGH_NOTIONAL }));
    await closedPart;
    return { sim, app };
  }

  it('opens with single /fapi/v1 orders under deterministic client ids, closes with a reduce order, and its position and entry are the venue\'s', async () => {
    let atTen: { log: ReturnType<SimServer['exchange']['orderLog']>; venue: Decimal } | undefined;
    const { sim, app } = await openThenReduce((s) => (atTen = { log: [...s.exchange.orderLog()], venue: venuePosition(s, BTC_PERP) }));

    // Opening: one futures.order request per order (the futures API has no batch endpoint).
    expect(atTen!.venue).toBe('10');
    const log = sim.exchange.orderLog();
    expect(log.map((o) => [o.market, o.symbol, o.side, o.open, o.type, o.volume])).toEqual([
      ['futures', BTC_PERP, 'BUY', 'OPEN', 'LIMIT', '5'],
      ['futures', BTC_PERP, 'BUY', 'OPEN', 'LIMIT', '3'],
      ['futures', BTC_PERP, 'BUY', 'OPEN', 'LIMIT', '2'],
      ['futures', BTC_PERP, 'SELL', 'CLOSE', 'MARKET', '4'],
    ]);
    expect(atTen!.log).toHaveLength(3);
    const writes = sim.exchange.arrivals().filter((a) => a.endpoint === 'futures.order' || a.endpoint === 'futures.cancel' || /batch/i.test(a.endpoint) || (a.endpoint.startsWith('spot.') && a.endpoint !== 'spot.time'));
    expect(writes.map((a) => [a.endpoint, a.status])).toEqual(Array.from({ length: 4 }, () => ['futures.order', 200]));
    // Client ids: sl<strategy>-<sequence>, consecutive, journaled under the venue's order id.
    const ids = log.map((o) => parseClientOrderId(o.clientOrderId ?? ''));
    expect(ids.map((x) => x?.strategyTag)).toEqual(['perp', 'perp', 'perp', 'perp']);
    expect(ids.map((x) => x!.sequence - ids[0]!.sequence)).toEqual([0, 1, 2, 3]);
    for (const o of log) expect(app.journal.order(o.clientOrderId as never)).toMatchObject({ market: 'futures', symbol: BTC_PERP, venueOrderId: o.orderId, volume: o.volume });

    // Fills reached positions: 10 opened, 4 closed, as the venue holds them.
    const position = app.engine.positions.position('futures', BTC_PERP);
    expect(position.quantity).toBe('6');
    expect(venuePosition(sim, BTC_PERP)).toBe('6');
    expect(dec.round(position.avgEntryPrice, 8)).toBe(dec.round(venueAvgEntry(sim, BTC_PERP), 8));
    // Fees are the venue's, charged in the margin coin on the notional (with the contract size).
    const venueFees = dec.sum(sim.exchange.allTrades().filter((t) => t.market === 'futures').map((t) => t.fee));
    expect(position.fees).toBe(venueFees);
    expect(app.journal.fills().every((f) => f.market === 'futures' && f.symbol === BTC_PERP)).toBe(true);
    expect(dec.sum(app.journal.fills().map((f) => f.volume))).toBe('14');
    expect(app.engine.positions.position('spot', BTC_PERP).quantity).toBe('0');
    // The contract's instrument, as strategies read it: one contract is 0.001 BTC, margined in USDT.
    expect(app.engine.riskInputs().instruments.get(`futures:${BTC_PERP}`)).toMatchObject({ baseAsset: 'BTC', quoteAsset: 'USDT', multiplier: '0.001' });

    // The drift check agrees: the venue holds what our fills explain.
    await app.engine.reconcile();
    await app.engine.reconciler.holdings.read(new Set(['futures']));
    expect(app.engine.reconciler.driftNow(app.engine.activeSymbols()).map((l) => [l.market, l.name, l.venue, l.difference, l.beyond])).toEqual([['futures', BTC_PERP, '6', '0', false]]);
  });

  // Known gap outside this suite's files: the engine must tell the position book each
  // contract's size (PositionBook.setMultiplier, from futures.contracts in loadInstruments);
  // until it does, futures PnL is 1000 times too large for E-BTC-USDT. Flip to it() then.
  it('realised and unrealised PnL count the contract size (0.001 BTC per contract), as the venue books them', async () => {
    const { sim, app } = await openThenReduce();
    const position = app.engine.positions.position('futures', BTC_PERP);
    expect(dec.round(position.realizedPnl, 8)).toBe(dec.round(sim.exchange.futuresState().realized, 8));
    const { mid } = sim.exchange.top(BTC_PERP);
    const [venueLong] = sim.exchange.futuresState().positions;
    expect(dec.round(app.engine.positions.unrealizedPnl('futures', BTC_PERP, mid), 8)).toBe(venueLong!.unrealized);
  });
});

describe('futures position drift', () => {
  it.each([
    ['reduce_only', `kill_switch: reduce-only: a futures order must close a position (open: CLOSE); BUY 1 ${BTC_PERP} would open one`],
    ['halted', 'kill_switch: trading is halted; no new orders until the kill switch is released'],
  ] as const)('a position opened on the venue behind sluice\'s back is drift beyond the tolerance: %s applies, sluice status shows it, closing it restores', async (action, refusal) => {
    const sim = await venue();
    // A strategy that places what the test hands it, on its next tick.
    const wanted: OrderRequest[] = [];
    const rejected: Order[] = [];
    const hands: Plugin = {
      id: 'hands',
      market: 'futures',
      symbols: [BTC_PERP],
      create: (ctx) => ({
        onTick() {
          for (const r of wanted.splice(0)) ctx.place(r);
        },
        onOrderUpdate(o) {
          if (o.status === 'rejected') rejected.push(o);
        },
      }),
    };
    const { app, tap, journalPath, config, credentials, strategies } = await startApp({
      spot: sim,
      plugins: [hands],
      yaml: `reconcile: { drift: { action: ${action}, graceMs: 0, tolerance: { ${BTC_PERP}: "2" } } }`,
    });
    const behindOurBack = (side: 'BUY' | 'SELL', volume: string) =>
      sim.exchange.futures.place(USER, { contract: BTC_PERP, side, type: 'MARKET', volume: d(volume), open: side === 'BUY' ? 'OPEN' : 'CLOSE', positionType: 1 }, sim.exchange.now());

    // Within the tolerance: seen, not acted on.
    behindOurBack('BUY', '2');
    await passes(app, 2);
    expect(app.engine.reconciler.lastDrift.map((l) => [l.market, l.name, l.venue, l.expected, l.difference, l.beyond])).toEqual([['futures', BTC_PERP, '2', '0', '2', false]]);
    expect(app.riskGate.killSwitch()).toBe('off');

    // Beyond it: the configured action, with the numbers.
    behindOurBack('BUY', '1');
    const line = JSON.parse(await tap.waitFor(/"alert":"drift"/)) as { msg: string; killSwitch: string };
    expect(venuePosition(sim, BTC_PERP)).toBe('3');
    expect(line.killSwitch).toBe(action);
    expect(line.msg).toBe(`position drift: ${BTC_PERP} position on the venue is 3, our fills explain 0 (difference 3, tolerance 2); trading is ${action} until it is resolved`);
    expect(app.riskGate.killSwitch()).toBe(action);
    // It applies to futures orders: a new open is refused before it reaches the venue.
    const price = dec.truncate(sim.exchange.top(BTC_PERP).bid!, 1);
    wanted.push({ symbol: BTC_PERP, side: 'BUY', type: 'LIMIT', price, volume: '1', open: 'OPEN' });
    await untilReconciled(app, () => rejected.length === 1);
    expect(JSON.parse(await tap.waitFor(/"rule":"kill_switch"/)).reason).toBe(refusal);
    expect(sim.exchange.orderLog()).toEqual([]);

    // sluice status, beside the running daemon: the journal (read-only, no lock) against the venue.
    const journal = SqliteJournal.open(journalPath);
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const viewer = buildApp({ config, profile: inspect(config, 'read-only'), credentials, strategies, journal, log: createLogger({ level: 'warn', pretty: false, secrets: [], destination: quiet }) });
    await viewer.client.start();
    const { text, drift } = await statusReport(viewer);
    await viewer.client.close();
    journal.close();
    expect(drift).toBe(true);
    expect(text).toContain(`futures ${BTC_PERP}: 0 at 0, realised 0, fees 0`);
    expect(text).toContain(`DRIFT ${BTC_PERP} position on the venue is 3, our fills explain 0 (difference 3, tolerance 2)`);
    expect(text).toContain(`futures ${BTC_PERP}: 0 open in the journal, 0 open on the venue`);

    // Closed by hand again: drift is gone and the kill switch is what it was.
    behindOurBack('SELL', '3');
    await tap.waitFor(/position drift resolved; kill switch restored/);
    expect(venuePosition(sim, BTC_PERP)).toBe('0');
    expect(app.riskGate.killSwitch()).toBe('off');
  });
});

describe('spot and futures on the same symbol name', () => {
  it('keep separate positions, live and rebuilt from the journal, each equal to its venue', async () => {
    // Two hosts, as the live venue has (spot and futures apart), both listing BTCUSDT: a spot
    // pair on one, a contract on the other. Same seed, so their order ids run alike.
    const spot = await venue();
    const futures = await venue({
      apiKey: spot.apiKey,
      apiSecret: spot.apiSecret,
      symbols: [{ ...DEFAULT_SYMBOLS[0]!, symbol: 'XBTUSDT', baseAsset: 'XBT' }],
      contracts: [{ ...DEFAULT_CONTRACTS[0]!, symbol: 'BTCUSDT', underlying: 'XBTUSDT' }],
    });
    const taker = (id: string, market: Market, side: 'BUY' | 'SELL', volume: string, places: number): Plugin => ({
      id,
      market,
      symbols: ['BTCUSDT'],
      create(ctx) {
        let sent = false;
        return {
          onTick() {
            const last = ctx.lastPrice('BTCUSDT');
            if (sent || !last) return;
            sent = true;
            const price = dec.truncate(dec.mul(last, d(side === 'BUY' ? '1.01' : '0.99')), places);
            ctx.place({ symbol: 'BTCUSDT', side, type: 'LIMIT', price, volume, ...(market === 'futures' ? { open: 'OPEN' as const } : {}) });
          },
        };
      },
    });
    const { app, config, credentials, strategies, journalPath } = await startApp({
      spot,
      futures,
      plugins: [taker('spotbuy', 'spot', 'BUY', '0.01', 2), taker('perpsell', 'futures', 'SELL', '7', 1)],
      yaml: HIGH_NOTIONAL,
    });
    const live = (m: Market) => app.engine.positions.position(m, 'BTCUSDT');
    await untilReconciled(app, () => dec.eq(live('spot').quantity, d('0.01')) && dec.eq(live('futures').quantity, d('-7')));

    // Each venue saw only its own market.
    expect(spot.exchange.orderLog().map((o) => [o.market, o.symbol, o.side, o.volume])).toEqual([['spot', 'BTCUSDT', 'BUY', '0.01']]);
    expect(futures.exchange.orderLog().map((o) => [o.market, o.symbol, o.side, o.volume])).toEqual([['futures', 'BTCUSDT', 'SELL', '7']]);

    const venueSpot = dec.sum(spot.exchange.allTrades().map((t) => (t.side === 'BUY' ? t.qty : dec.neg(t.qty))));
    expect(venueSpot).toBe('0.01');
    expect(venuePosition(futures, 'BTCUSDT')).toBe('-7');
    // Same seed: both venues gave their first order the same id, and sluice still tells them apart.
    const venueIdOf = (m: Market) => app.journal.fills().find((f) => f.market === m)!.venueOrderId;
    expect(venueIdOf('spot')).toBe(venueIdOf('futures'));
    expect([live('spot').quantity, live('futures').quantity]).toEqual(['0.01', '-7']);
    expect(live('spot').fees).toBe('0');
    expect(live('futures').fees).toBe(dec.sum(futures.exchange.allTrades().map((t) => t.fee)));

    // Drift: the spot BTC balance and the futures position are each checked against their own fills.
    await app.engine.reconcile();
    await app.engine.reconciler.holdings.read(new Set(['spot', 'futures']));
    const drift = app.engine.reconciler.driftNow(app.engine.activeSymbols());
    expect(drift.map((l) => [l.market, l.name, l.difference, l.beyond])).toEqual([
      ['spot', 'BTC', '0', false],
      ['futures', 'BTCUSDT', '0', false],
    ]);
    await app.stop();
    apps = [];

    // Rebuilt from the journal, the two markets stay apart.
    const journal = SqliteJournal.open(journalPath);
    const rebuilt = new PositionBook();
    for (const f of journal.fills()) rebuilt.apply(f);
    expect(rebuilt.snapshot().map((p) => [p.market, p.symbol, p.quantity])).toEqual([
      ['futures', 'BTCUSDT', '-7'],
      ['spot', 'BTCUSDT', '0.01'],
    ]);
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const viewer = buildApp({ config, profile: inspect(config, 'read-only'), credentials, strategies, journal, log: createLogger({ level: 'warn', pretty: false, secrets: [], destination: quiet }) });
    await viewer.client.start();
    const { text, drift: drifting } = await statusReport(viewer);
    await viewer.client.close();
    journal.close();
    expect(drifting).toBe(false);
    expect(text).toMatch(/spot BTCUSDT: 0\.01 at [\d.]+,/);
    expect(text).toMatch(/futures BTCUSDT: -7 at [\d.]+,/);
    expect(text).toMatch(/ok +BTC balance on the venue/);
    expect(text).toMatch(/ok +BTCUSDT position on the venue is -7, our fills explain -7 /);
  });
});

describe('risk on futures', () => {
  /** A futures strategy that sends `first`, then `next` once the position reaches `after` contracts; collects rejected and final orders. */
  function stepper(first: (p: Decimal) => OrderRequest[], after?: string, next: (p: Decimal) => OrderRequest[] = () => []) {
    const rejected: Order[] = [];
    const final = new Map<string, Order>();
    const plugin: Plugin = {
      id: 'perp',
      market: 'futures',
      symbols: [BTC_PERP],
      create(ctx) {
        let price: Decimal | undefined;
        let stepped = false;
        return {
          onTick() {
            const last = ctx.lastPrice(BTC_PERP);
            if (price || !last) return;
            price = dec.truncate(dec.mul(last, d('1.01')), 1);
            for (const r of first(price)) ctx.place(r);
          },
          onFill() {
            if (stepped || after === undefined || !dec.eq(ctx.position(BTC_PERP).quantity, d(after))) return;
            stepped = true;
            for (const r of next(price!)) ctx.place(r);
          },
          onOrderUpdate(o) {
            if (o.status === 'rejected') rejected.push(o);
            if (o.status === 'filled' || o.status === 'rejected' || o.status === 'canceled') final.set(o.clientOrderId, o);
          },
        };
      },
    };
    return { plugin, rejected, final };
  }
  const buy = (volume: string, price: Decimal): OrderRequest => ({ symbol: BTC_PERP, side: 'BUY', type: 'LIMIT', price, volume, open: 'OPEN' });

  it('max position counts contracts: an open past the cap is rejected with the rule and the numbers, a close passes', async () => {
    const sim = await venue();
    const s = stepper(
      (p) => [buy('3', p)],
      '3',
      // Another 3 would make 6 contracts (a tenth higher, so it is no duplicate); closing 2 shrinks the position.
      (p) => [buy('3', dec.add(p, d('0.1'))), { symbol: BTC_PERP, side: 'SELL', type: 'MARKET', volume: '2', open: 'CLOSE' }],
    );
    const { app, tap } = await startApp({ spot: sim, plugins: [s.plugin], yaml: `risk: { maxPosition: { ${BTC_PERP}: "5" }, maxNotionalPerOrder: "1000000", maxNotionalPerMinute: "10000000" }` });
    await untilReconciled(app, () => s.rejected.length === 1 && dec.eq(app.engine.positions.position('futures', BTC_PERP).quantity, d('1')));

    const line = JSON.parse(await tap.waitFor(/"rule":"max_position"/)) as { reason: string; clientOrderId: string };
    expect(line.reason).toBe(`max_position: position 3 + open buys 0 + this 3 = 6 ${BTC_PERP}, above the 5 limit`);
    expect(line.clientOrderId).toBe(s.rejected[0]!.clientOrderId);
    expect(s.rejected[0]).toMatchObject({ market: 'futures', symbol: BTC_PERP, side: 'BUY', volume: '3' });
    // The venue got the first open and the close, never the rejected open.
    expect(sim.exchange.orderLog().map((o) => [o.side, o.open, o.volume])).toEqual([
      ['BUY', 'OPEN', '3'],
      ['SELL', 'CLOSE', '2'],
    ]);
    expect(venuePosition(sim, BTC_PERP)).toBe('1');
  });

  // Known bug outside this suite's files: risk sizes a futures order as volume x price, without
  // the contract size, so E-BTC-USDT notionals come out 1000 times too large (with the default
  // 10000 USDT per order, no order of 1 contract passes). Flip to it() once src/risk counts it.
  it('notional counts the contract size: the order above the per-order limit is rejected with its USDT value', async () => {
    const sim = await venue();
    const s = stepper((p) => [buy('3', p), buy('4', dec.add(p, d('0.1')))]);
    const { app, tap } = await startApp({ spot: sim, plugins: [s.plugin], yaml: 'risk: { maxNotionalPerOrder: "100", maxNotionalPerMinute: "10000000" }' });
    await untilReconciled(app, () => s.final.size === 2);
    // 3 contracts of 0.001 BTC near 30000 are about 91 USDT; 4 are about 121.
    expect([...s.final.values()].map((o) => [o.volume, o.status]).sort()).toEqual([
      ['3', 'filled'],
      ['4', 'rejected'],
    ]);
    const price = dec.add(sim.exchange.orderLog()[0]!.price!, d('0.1'));
    const line = JSON.parse(await tap.waitFor(/"rule":"max_notional_per_order"/)) as { reason: string };
    expect(line.reason).toBe(`max_notional_per_order: 4 ${BTC_PERP} at ${price} is ${dec.mul(dec.mul(d('4'), price), d('0.001'))} USDT, above the 100 limit`);
  });
});
