// `sluice status` shows positions as people read them: the average entry to the instrument's
// price precision plus 2 (as the venue writes avgPrice), money to 8 places, quantities to the
// quantity precision. The journal keeps the exact figures.
import { afterEach, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { statusReport } from '../../src/app/status.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { fill } from '../fixtures/builders.js';
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
