// A hand-written OpsSource whose answers a test changes by assigning fields.
import { OpsRecorder, type OpsHealth, type OpsHistory, type OpsSource, type OpsStatus } from '../../../src/ops/index.js';

export const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

export class FakeSource implements OpsSource {
  isReady = true;
  healthValue: OpsHealth = { bannedUntil: 0, killSwitch: 'off', venueReachable: true, lastVenueOkAt: NOW - 1000, journalFailure: null };
  statusValue: OpsStatus = {
    mode: 'paper',
    now: NOW,
    positions: [
      { market: 'spot', symbol: 'BTCUSDT', quantity: '0.5', avgEntryPrice: '30000.1', realizedPnl: '12.5', fees: '0.75', feesOther: { BTC: '0.0005' } },
      { market: 'futures', symbol: 'E-ETH-USDT', quantity: '-2', avgEntryPrice: '2000', realizedPnl: '-1.25', fees: '0.1', feesOther: {} },
    ],
    openOrders: [
      {
        clientOrderId: 'grid-1-000042',
        strategyId: 'grid-1',
        market: 'spot',
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        price: '29950',
        volume: '0.01',
        executedVolume: '0',
        status: 'open',
        createdAt: NOW - 125_000,
      },
    ],
    pnl: { realized: '11.25', fees: '0.85', feesOther: { BTC: '0.0005' } },
    limiter: {
      'spot.order': { inWindow: 7, limit: 100, queued: 3, requests: 40 },
      'spot.openOrders': { inWindow: 2, limit: 20, queued: 0, requests: 12 },
      'futures.order': { inWindow: 0, limit: 100, queued: 0, requests: 0 },
    },
    strategies: [
      { id: 'grid-1', enabled: true },
      { id: 'broken', enabled: false, disabledReason: 'threw in onTick' },
    ],
    drift: [{ market: 'spot', symbol: 'BTCUSDT', ours: '0.5', venue: '0.4', difference: '0.1' }],
    clockOffsetMs: -42,
    fills: [
      { tradeId: '9001', market: 'spot', symbol: 'BTCUSDT', side: 'BUY', price: '29950', volume: '0.01', fee: '0.0299', feeAsset: 'USDT', isMaker: true, time: NOW - 20_000 },
      { tradeId: '9000', market: 'spot', symbol: 'BTCUSDT', side: 'SELL', price: '30010.5', volume: '0.01', fee: '0.06', feeAsset: 'USDT', isMaker: false, time: NOW - 40_000 },
    ],
    alerts: [{ kind: 'halt', message: 'trading halted by SIGUSR2: no new orders until it is lifted (cancels still pass)', at: NOW - 5_000 }],
    quoteAsset: 'USDT',
  };
  /** Samples the test adds with record(); the server streams them as they come. */
  readonly recorder = new OpsRecorder();

  ready(): boolean {
    return this.isReady;
  }
  health(): OpsHealth {
    return this.healthValue;
  }
  status(): OpsStatus {
    return this.statusValue;
  }
  history(cursor?: number): OpsHistory {
    return this.recorder.history(cursor);
  }
  onSample(listener: () => void): () => void {
    return this.recorder.onSample(listener);
  }
}
