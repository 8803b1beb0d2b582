// `sluice status` shows positions as people read them: the average entry to the instrument's
// price precision plus 2 (as the venue writes avgPrice), money to 8 places, quantities to the
// quantity precision. The journal keeps the exact figures.
import { afterEach, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { ClientOrderId, VenueOrderId } from '../../src/core/ids.js';
import { statusReport } from '../../src/app/status.js';
import { PRUNED_KEY } from '../../src/core/ids.js';
import { PositionsCheckpoint } from '../../src/engine/positions-checkpoint.js';
import { PositionBook } from '../../src/positions/index.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { fill } from '../fixtures/builders.js';
import { MemoryLog } from '../fixtures/engine-parts.js';
import { rigApp, strictRig, type StrictRig } from '../fixtures/strict-venue.js';

let rig: StrictRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });

it('rounds the average entry to BTCUSDT price precision + 2, realised PnL and fees to 8 places', async () => {
  rig = await strictRig();
  const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }]);
  // Entry 90.00005/0.003 = 30000.01666...; the sell realises 0.001 x (30000.05 - that) = 0.0000333...
  app.journal.recordFill(fill('BUY', '0.001', '30000.01', { tradeId: 's1', fee: d('0.03000001') }));
  app.journal.recordFill(fill('BUY', '0.002', '30000.02', { tradeId: 's2', fee: d('0.060000040000001') }));
  app.journal.recordFill(fill('SELL', '0.001', '30000.05', { tradeId: 's3', fee: d('0') }));
  await app.client.start();
  const { text } = await statusReport(app);
  // BTCUSDT on the simulator: prices to 2 places, quantities to 5.
  expect(text).toContain('spot BTCUSDT: 0.002 at 30000.0167, realised 0.00003333, fees 0.09000005');
  expect(app.engine.positions.position('spot', 'BTCUSDT').avgEntryPrice).toMatch(/^30000\.01666666666666666666\d+$/);
});

it("fees say the whole cost: a buy's fee taken in BTC shows beside the USDT ones", async () => {
  rig = await strictRig();
  const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }]);
  app.journal.recordFill(fill('BUY', '0.002', '30000', { tradeId: 'f1', fee: d('0.000002'), feeAsset: 'BTC' }));
  app.journal.recordFill(fill('SELL', '0.001', '30010', { tradeId: 'f2', fee: d('0.06002') }));
  await app.client.start();
  const { text } = await statusReport(app);
  expect(text).toContain('spot BTCUSDT: 0.001 at 30000, realised 0.01, fees 0.06002 USDT + 0.000002 BTC');
});

it('without a checkpoint or a prune: positions from every fill, and the journal never pruned', async () => {
  rig = await strictRig();
  const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }]);
  app.journal.recordFill(fill('BUY', '0.001', '30000', { tradeId: 'p1' }));
  await app.client.start();
  const first = (await statusReport(app)).text.split('\n');
  expect(first[0]).toBe('positions (from every fill the journal holds)');
  expect(first).toContain('journal: never pruned');
});

it('after a prune: positions from the checkpoint and the fills after it, and the prune with what it deleted', async () => {
  rig = await strictRig();
  const { app } = await rigApp(rig, [{ id: 'idle', definition: idle, symbols: ['BTCUSDT'] }]);
  // The checkpoint covers the first two fills (what a prune keeps the books by); two more come after it.
  const book = new PositionBook();
  for (const f of [fill('BUY', '0.001', '30000', { tradeId: 'c1' }), fill('BUY', '0.001', '30000', { tradeId: 'c2' })]) {
    app.journal.recordFill(f);
    book.apply(f);
  }
  new PositionsCheckpoint(app.journal, book, new MemoryLog()).save();
  const through = app.journal.lastFillId();
  app.journal.recordFill(fill('BUY', '0.001', '30000', { tradeId: 'c3' }));
  app.journal.recordFill(fill('SELL', '0.001', '30000', { tradeId: 'c4' }));
  const at = Date.UTC(2026, 10, 28, 12, 0, 0);
  app.journal.setCursor(PRUNED_KEY, JSON.stringify({ at, before: at - 86_400_000, throughFill: through, deleted: { orders: 12, events: 40, intents: 12, fills: 15 } }));
  await app.client.start();
  const lines = (await statusReport(app)).text.split('\n');
  expect(lines[0]).toBe(`positions (the positions checkpoint through fill ${through}, and the 2 fills journaled after it)`);
  expect(lines[1]).toMatch(/^ {2}spot BTCUSDT: 0\.002 at /);
  expect(lines).toContain(`journal: last pruned 2026-11-28T12:00:00.000Z: final orders last updated before 2026-11-27T12:00:00.000Z, fills up to ${through}; deleted 12 orders, 40 order events, 12 intents, 15 fills`);
  // A note written before prunes recorded what they deleted.
  app.journal.setCursor(PRUNED_KEY, JSON.stringify({ at, before: at - 86_400_000, throughFill: through }));
  expect((await statusReport(app)).text).toContain(`journal: last pruned 2026-11-28T12:00:00.000Z: final orders last updated before 2026-11-27T12:00:00.000Z, fills up to ${through}; what it deleted is not recorded`);
});

it('per strategy: enabled or disabled and why, its own position, its open orders, and a loss limit that blocks it now', async () => {
  rig = await strictRig();
  const broken = defineStrategy({
    apiVersion: 1,
    name: 'broken',
    params: z.object({}),
    create: () => {
      throw new Error('no model file');
    },
  });
  const { app } = await rigApp(
    rig,
    [
      { id: 'alpha', definition: idle, symbols: ['BTCUSDT'] },
      { id: 'beta', definition: idle, symbols: ['BTCUSDT'] },
      { id: 'gamma', definition: broken, symbols: ['BTCUSDT'] },
      { id: 'delta', definition: idle, symbols: ['BTCUSDT'] },
      { id: 'epsilon', definition: broken, symbols: ['BTCUSDT'] },
    ],
    {
      strategies: [
        { id: 'alpha', use: 'inline', market: 'spot', symbols: ['BTCUSDT'], everyMs: 200, lossLimit: { daily: '50' } },
        { id: 'beta', use: 'inline', market: 'spot', symbols: ['BTCUSDT'], everyMs: 200, lossLimit: { daily: '10' } },
        { id: 'gamma', use: 'inline', market: 'spot', symbols: ['BTCUSDT'], everyMs: 200 },
        { id: 'delta', use: 'inline', market: 'spot', symbols: ['BTCUSDT'], everyMs: 200, lossLimit: { daily: '10' } },
        { id: 'epsilon', use: 'inline', market: 'spot', symbols: ['BTCUSDT'], everyMs: 200 },
      ],
    },
  );
  const order = (strategyId: string, id: string, status: 'filled' | 'open') => {
    const intent = { kind: 'place' as const, intentId: `i-${id}`, strategyId, clientOrderId: `c-${id}` as ClientOrderId, market: 'spot' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, volume: d('0.001'), price: d('29000') };
    app.journal.recordIntent(intent, { ...intent, executedVolume: d('0'), status, venueOrderId: id as VenueOrderId, createdAt: 1, updatedAt: 1 });
  };
  // alpha: its buy's fee in BTC beside its sell's in USDT; one order still open.
  order('alpha', '901', 'filled');
  order('alpha', '902', 'open');
  app.journal.recordFill(fill('BUY', '0.002', '30000', { tradeId: 'a1', venueOrderId: '901' as VenueOrderId, fee: d('0.000002'), feeAsset: 'BTC' }));
  app.journal.recordFill(fill('SELL', '0.001', '30010', { tradeId: 'a2', venueOrderId: '901' as VenueOrderId, fee: d('0.06002') }));
  // beta: entry 90.00005/0.003 = 30000.01666..., fees 0.090000050000001.
  order('beta', '903', 'filled');
  app.journal.recordFill(fill('BUY', '0.001', '30000.01', { tradeId: 'b1', venueOrderId: '903' as VenueOrderId, fee: d('0.03000001') }));
  app.journal.recordFill(fill('BUY', '0.002', '30000.02', { tradeId: 'b2', venueOrderId: '903' as VenueOrderId, fee: d('0.060000040000001') }));
  // beta's limit blocks it now; alpha's block ended (a past day): not shown.
  const until = Date.UTC(2099, 0, 1);
  app.journal.setCursor('losslimit:beta', JSON.stringify({ day: '2098-12-31', reference: '0', blockedUntil: until, breachPnl: '-12.123456789' }));
  app.journal.setCursor('losslimit:alpha', JSON.stringify({ day: '2026-01-01', reference: '0', blockedUntil: Date.UTC(2026, 0, 2), breachPnl: '-60' }));
  // delta's does not read (its time a string, as no sluice writes it): not shown, and not a crash.
  app.journal.setCursor('losslimit:delta', JSON.stringify({ day: '2098-12-31', reference: '0', blockedUntil: String(until), breachPnl: '-12' }));
  await app.client.start();
  const { text } = await statusReport(app, undefined, {
    configured: [{ id: 'off', market: 'spot', symbols: ['ETHUSDT'], enabled: false }],
    // The running daemon's word, where it has one (alpha's and gamma's it has not), over this
    // process's own load of the plugin (epsilon's create throws here, not in the daemon).
    daemon: [{ id: 'beta', enabled: false, disabledReason: 'onTick threw: boom' }, { id: 'delta', enabled: true }, { id: 'epsilon', enabled: true }],
  });
  const lines = text.split('\n');
  const at = lines.indexOf('strategies');
  expect(at).toBeGreaterThan(0);
  expect(lines.slice(at + 1, at + 13)).toEqual([
    '  alpha (spot): enabled; 1 open order',
    '    BTCUSDT: 0.001 at 30000, realised 0.01, fees 0.06002 USDT + 0.000002 BTC',
    '  beta (spot): disabled by the running daemon (onTick threw: boom); 0 open orders; loss limit hit until 2099-01-01T00:00:00.000Z (lost -12.12345679 on UTC 2098-12-31, past its daily limit of 10)',
    '    BTCUSDT: 0.003 at 30000.0167, realised 0, fees 0.09000005',
    expect.stringMatching(/^ {2}gamma \(spot\): disabled \(.*no model file.*\); 0 open orders$/),
    '    BTCUSDT: 0 at 0, realised 0, fees 0',
    '  delta (spot): running in the daemon; 0 open orders',
    '    BTCUSDT: 0 at 0, realised 0, fees 0',
    '  epsilon (spot): running in the daemon; 0 open orders',
    '    BTCUSDT: 0 at 0, realised 0, fees 0',
    '  off (spot): disabled (enabled: false in the config); 0 open orders',
    '    ETHUSDT: 0 at 0, realised 0, fees 0',
  ]);
  // The account's line holds both strategies' coins.
  expect(text).toContain('spot BTCUSDT: 0.004 at ');
});
