// The pure parts, bound to their settings for the engine.
import { batchOf, planDispatch, toBatches } from '../batcher/index.js';
import type { Batch, OrderIntent } from '../core/types.js';
import type { RiskConfig } from '../config/index.js';
import type { EndpointId } from '../exchange/endpoints.js';
import { PositionBook, type QuoteAssetOf } from '../positions/index.js';
import { RiskGate } from '../risk/index.js';
import type { Dispatcher } from './engine.js';

export { toBatches };

export function createRiskGate(risk: RiskConfig): RiskGate {
  return new RiskGate({ ...risk, killSwitch: { mode: risk.killSwitch.mode } });
}

export function createPositionLedger(quoteAssetOf?: QuoteAssetOf): PositionBook {
  return new PositionBook({ quoteAssetOf });
}

/** Spot places and cancels share the capacity of their single and batch endpoints; futures goes one by one. */
export function createDispatcher(): Dispatcher {
  return {
    plan(batches: readonly Batch[], free: (endpoint: EndpointId) => number) {
      const send: Batch[] = [];
      const wait: OrderIntent[] = [];
      const groups: [Batch[], { single: number; batch: number }][] = [
        [batches.filter((b) => b.market === 'spot' && b.kind === 'place'), { single: free('spot.order'), batch: free('spot.batchOrders') }],
        [batches.filter((b) => b.market === 'spot' && b.kind === 'cancel'), { single: free('spot.cancel'), batch: free('spot.batchCancel') }],
        [batches.filter((b) => b.market === 'futures' && b.kind === 'place'), { single: free('futures.order'), batch: 0 }],
        [batches.filter((b) => b.market === 'futures' && b.kind === 'cancel'), { single: free('futures.cancel'), batch: 0 }],
      ];
      for (const [group, capacity] of groups) {
        const plan = planDispatch(group, capacity);
        send.push(...plan.viaBatch, ...plan.viaSingle.map((i) => batchOf([i])));
        wait.push(...plan.leftover.flatMap((b) => b.items));
      }
      return { send, wait };
    },
  };
}
