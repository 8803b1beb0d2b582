// A gateway that sends nothing: `sluice plan`, `status` and `doctor` run the engine through it,
// so no command but `run` can ever place or cancel an order. It keeps each batch it is handed
// and never answers, like a venue that has not replied yet: strategies hear nothing back, so
// the plan is exactly the first round, with no reaction to an answer no venue gave.
import type { Batch, CancelIntent, ClientIdCarrier, PlaceIntent } from '../core/types.js';
import type { CancelResult, PlaceResult } from './gateway.js';

export class DryRunGateway {
  /** Every batch handed over, in order. */
  readonly batches: Batch[] = [];

  place(batch: Batch<PlaceIntent>): Promise<PlaceResult[]> {
    this.batches.push(batch);
    return new Promise(() => undefined);
  }

  cancel(batch: Batch<CancelIntent>): Promise<CancelResult[]> {
    this.batches.push(batch);
    return new Promise(() => undefined);
  }

  /** Nothing reaches a venue, so no outcome is ever unknown. */
  carrierOf(_clientOrderId: string): ClientIdCarrier | undefined {
    return undefined;
  }

  /** Leverage it would set, by contract: nothing is sent. */
  readonly leverage = new Map<string, number>();

  async setLeverage(contract: string, level: number): Promise<void> {
    this.leverage.set(contract, level);
  }
}
