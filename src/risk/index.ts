// The risk gate. Decisions are pure over (intents, account inputs, limits, now); the only state
// is the rolling windows (per-minute notional, order rate, recent intents) the gate keeps
// between calls. Every rejection names its rule and carries the numbers.
import { d, dec, ZERO, type Decimal } from '../core/decimal.js';
import type { SymbolInfo } from '../core/market.js';
import type { Order, OrderIntent } from '../core/types.js';

export type KillSwitchMode = 'off' | 'halted' | 'reduce_only';

export interface RiskLimits {
  maxPosition: Readonly<Record<string, Decimal>>;
  maxOpenOrders: number;
  maxNotionalPerOrder: Decimal;
  maxNotionalPerMinute: Decimal;
  priceBandPct: Decimal;
  maxOrdersPerSecond: number;
  duplicateWindowMs: number;
  killSwitch: { mode: KillSwitchMode };
  /** Fee allowance added to a buy's cost in the balance check (0.002 = 0.2%). */
  feeAllowance?: Decimal;
}

/** What the gate reads about the account. Maps keyed by `market:symbol`, balances by asset. */
export interface RiskInputs {
  positions: ReadonlyMap<string, Decimal>;
  openOrders: readonly Order[];
  balances: ReadonlyMap<string, Decimal>;
  lastPrices: ReadonlyMap<string, Decimal>;
  instruments: ReadonlyMap<string, SymbolInfo>;
}

export type RiskRule =
  | 'invalid'
  | 'kill_switch'
  | 'duplicate'
  | 'order_rate'
  | 'max_open_orders'
  | 'price_band'
  | 'max_notional_per_order'
  | 'max_notional_per_minute'
  | 'max_position'
  | 'balance';

export interface RiskRejection {
  intent: OrderIntent;
  rule: RiskRule;
  reason: string;
}

export interface RiskVerdict {
  accepted: OrderIntent[];
  rejected: RiskRejection[];
}

const HUNDRED = d('100');

export class RiskGate {
  private placedAt: number[] = [];
  private notional: { at: number; value: Decimal }[] = [];
  private recent = new Map<string, number>();
  private mode: KillSwitchMode;

  constructor(private readonly limits: RiskLimits) {
    this.mode = limits.killSwitch.mode;
  }

  killSwitch(): KillSwitchMode {
    return this.mode;
  }

  setKillSwitch(mode: KillSwitchMode): void {
    this.mode = mode;
  }

  /** SIGUSR2: halted <-> the configured mode. */
  toggleHalt(): KillSwitchMode {
    this.mode = this.mode === 'halted' ? (this.limits.killSwitch.mode === 'halted' ? 'off' : this.limits.killSwitch.mode) : 'halted';
    return this.mode;
  }

  check(intents: readonly OrderIntent[], inputs: RiskInputs, now: number): RiskVerdict {
    const L = this.limits;
    this.placedAt = this.placedAt.filter((t) => t > now - 1000);
    this.notional = this.notional.filter((n) => n.at > now - 60_000);
    for (const [k, t] of this.recent) if (t <= now - L.duplicateWindowMs) this.recent.delete(k);

    const accepted: OrderIntent[] = [];
    const rejected: RiskRejection[] = [];
    const reserved = new Map<string, Decimal>();
    const openCount = new Map<string, number>();
    const pending = new Map<string, { buy: Decimal; sell: Decimal }>();
    for (const o of inputs.openOrders) {
      openCount.set(o.strategyId, (openCount.get(o.strategyId) ?? 0) + 1);
      const k = `${o.market}:${o.symbol}`;
      const p = pending.get(k) ?? { buy: ZERO, sell: ZERO };
      const rest = dec.sub(o.volume, o.executedVolume);
      pending.set(k, o.side === 'BUY' ? { ...p, buy: dec.add(p.buy, rest) } : { ...p, sell: dec.add(p.sell, rest) });
    }
    const canceled = new Set<string>();

    for (const intent of intents) {
      const reject = (rule: RiskRule, reason: string) => rejected.push({ intent, rule, reason: `${rule}: ${reason}` });
      if (intent.kind === 'cancel') {
        if (canceled.has(intent.clientOrderId)) reject('duplicate', `cancel of ${intent.clientOrderId} already requested`);
        else {
          canceled.add(intent.clientOrderId);
          accepted.push(intent);
        }
        continue;
      }
      const k = `${intent.market}:${intent.symbol}`;
      const info = inputs.instruments.get(k);
      const last = inputs.lastPrices.get(k);
      const position = inputs.positions.get(k) ?? ZERO;
      const pend = pending.get(k) ?? { buy: ZERO, sell: ZERO };
      const signed = intent.side === 'BUY' ? intent.volume : dec.neg(intent.volume);
      const isMarketBuyAmount = intent.market === 'spot' && intent.type === 'MARKET' && intent.side === 'BUY';
      // Base quantity of the order: a spot market buy's volume is a quote amount.
      const baseQty = isMarketBuyAmount ? (last ? dec.div(intent.volume, last) : undefined) : intent.volume;
      const price = intent.type === 'LIMIT' ? intent.price : last;
      const notional = isMarketBuyAmount ? intent.volume : price ? dec.mul(intent.volume, price) : undefined;
      const dupKey = `${intent.strategyId}|${k}|${intent.side}|${intent.type}|${intent.price ?? ''}|${intent.volume}`;

      if (!info) {
        reject('invalid', `unknown symbol ${intent.symbol}: the venue does not list it`);
        continue;
      }
      if (!dec.isPositive(intent.volume) || (intent.type === 'LIMIT') !== (intent.price !== undefined)) {
        reject('invalid', `a ${intent.type} order needs ${intent.type === 'LIMIT' ? 'a price' : 'no price'} and a volume above 0`);
        continue;
      }
      if (this.mode === 'halted') {
        reject('kill_switch', 'trading is halted; no new orders until the kill switch is released');
        continue;
      }
      if (this.mode === 'reduce_only') {
        const after = dec.add(dec.add(position, intent.side === 'BUY' ? pend.buy : dec.neg(pend.sell)), baseQty ? (intent.side === 'BUY' ? baseQty : dec.neg(baseQty)) : signed);
        if (!dec.lt(dec.abs(after), dec.abs(position))) {
          reject('kill_switch', `reduce-only: ${intent.side} ${intent.volume} ${intent.symbol} would not reduce the position ${position}`);
          continue;
        }
      }
      if (L.duplicateWindowMs > 0 && this.recent.has(dupKey)) {
        reject('duplicate', `the same order was accepted less than ${L.duplicateWindowMs} ms ago`);
        continue;
      }
      if (this.placedAt.length >= L.maxOrdersPerSecond) {
        reject('order_rate', `${this.placedAt.length} orders in the last second, at the ${L.maxOrdersPerSecond} cap`);
        continue;
      }
      const open = openCount.get(intent.strategyId) ?? 0;
      if (open >= L.maxOpenOrders) {
        reject('max_open_orders', `${intent.strategyId} has ${open} open orders, at the ${L.maxOpenOrders} limit`);
        continue;
      }
      if (!last) {
        reject('price_band', `no last price for ${intent.symbol} yet`);
        continue;
      }
      if (intent.type === 'LIMIT') {
        const deviation = dec.mul(dec.div(dec.abs(dec.sub(intent.price!, last)), last), HUNDRED);
        if (dec.gt(deviation, L.priceBandPct)) {
          reject('price_band', `price ${intent.price} is ${dec.round(deviation, 2)}% from the last price ${last}, beyond ${L.priceBandPct}%`);
          continue;
        }
      }
      if (notional && dec.gt(notional, L.maxNotionalPerOrder)) {
        reject('max_notional_per_order', `${intent.volume} ${intent.symbol} at ${price} is ${notional} ${info.quoteAsset}, above the ${L.maxNotionalPerOrder} limit`);
        continue;
      }
      const minuteSoFar = dec.sum(this.notional.map((n) => n.value));
      if (notional && dec.gt(dec.add(minuteSoFar, notional), L.maxNotionalPerMinute)) {
        reject('max_notional_per_minute', `${minuteSoFar} + ${notional} ${info.quoteAsset} in the last minute would pass the ${L.maxNotionalPerMinute} limit`);
        continue;
      }
      const cap = L.maxPosition[intent.symbol];
      if (cap && baseQty) {
        const worst = intent.side === 'BUY' ? dec.add(dec.add(position, pend.buy), baseQty) : dec.sub(dec.sub(position, pend.sell), baseQty);
        if (dec.gt(dec.abs(worst), cap)) {
          reject('max_position', `position ${position} with open ${intent.side === 'BUY' ? `buys ${pend.buy}` : `sells ${pend.sell}`} and this ${intent.volume} could reach ${worst} ${intent.symbol}, beyond ${cap}`);
          continue;
        }
      }
      if (intent.market === 'spot') {
        const asset = intent.side === 'BUY' ? info.quoteAsset : info.baseAsset;
        const needed = intent.side === 'BUY' ? dec.mul(notional ?? ZERO, dec.add(d('1'), L.feeAllowance ?? d('0.002'))) : intent.volume;
        const free = dec.sub(inputs.balances.get(asset) ?? ZERO, reserved.get(asset) ?? ZERO);
        if (dec.gt(needed, free)) {
          reject('balance', `needs ${needed} ${asset}, ${free} free`);
          continue;
        }
        reserved.set(asset, dec.add(reserved.get(asset) ?? ZERO, needed));
      }
      accepted.push(intent);
      this.placedAt.push(now);
      if (notional) this.notional.push({ at: now, value: notional });
      this.recent.set(dupKey, now);
      openCount.set(intent.strategyId, open + 1);
      pending.set(k, intent.side === 'BUY' ? { ...pend, buy: dec.add(pend.buy, baseQty ?? ZERO) } : { ...pend, sell: dec.add(pend.sell, intent.volume) });
    }
    return { accepted, rejected };
  }
}

