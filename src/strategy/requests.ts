// A strategy's place request, checked and turned into an intent, or the reason it cannot be.
import { toDecimal, dec, type Decimal } from '../core/decimal.js';
import type { ClientOrderId } from '../core/ids.js';
import type { Market, PlaceIntent } from '../core/types.js';
import type { OrderRequest } from './api.js';

export interface RequestSetup {
  id: string;
  market: Market;
  symbols: readonly string[];
}

const TIME_IN_FORCE = ['IOC', 'FOK', 'POST_ONLY'];

/** Builds a place intent, or says what is wrong with the request and how to fix it. */
export function formPlace(setup: RequestSetup, id: ClientOrderId, r: OrderRequest): PlaceIntent | string {
  if (r === null || typeof r !== 'object') return `place takes an order request object ({ symbol, side, type, volume, price }), got ${r === null ? 'null' : typeof r}`;
  const symbol = typeof r.symbol === 'string' ? r.symbol.toUpperCase() : '';
  if (!setup.symbols.includes(symbol)) return `symbol ${JSON.stringify(r.symbol)} is not one of this strategy's symbols (${setup.symbols.join(', ')}); add it under symbols in the config`;
  if (r.side !== 'BUY' && r.side !== 'SELL') return `side must be BUY or SELL, got ${JSON.stringify(r.side)}`;
  if (r.type !== 'LIMIT' && r.type !== 'MARKET') return `type must be LIMIT or MARKET, got ${JSON.stringify(r.type)}`;
  let volume: Decimal;
  let price: Decimal | undefined;
  try {
    volume = toDecimal(r.volume, 'volume');
    price = r.price === undefined ? undefined : toDecimal(r.price, 'price');
  } catch (err) {
    return (err as Error).message;
  }
  if (!dec.isPositive(volume)) return `volume must be above 0, got ${volume}`;
  if (r.type === 'LIMIT' && price === undefined) return 'a LIMIT order needs a price';
  if (r.type === 'LIMIT' && !dec.isPositive(price!)) return `price must be above 0, got ${price}`;
  if (r.type === 'MARKET' && price !== undefined) return 'a MARKET order takes no price; leave price out';
  if (setup.market !== 'futures' && (r.open !== undefined || r.positionType !== undefined)) return 'open and positionType are for futures orders only; leave them out';
  if (r.open !== undefined && r.open !== 'OPEN' && r.open !== 'CLOSE') return `open must be OPEN or CLOSE, got ${JSON.stringify(r.open)}`;
  if (r.positionType !== undefined && r.positionType !== 1 && r.positionType !== 2) return `positionType must be 1 (cross) or 2 (isolated), got ${JSON.stringify(r.positionType)}`;
  if (r.timeInForce !== undefined) {
    if (setup.market !== 'futures') return 'timeInForce is for futures orders only: the spot v1 API has none; leave it out';
    if (!TIME_IN_FORCE.includes(r.timeInForce)) return `timeInForce must be IOC, FOK or POST_ONLY, got ${JSON.stringify(r.timeInForce)}`;
    if (r.type !== 'LIMIT') return `timeInForce ${r.timeInForce} needs a LIMIT order`;
  }
  const intent: PlaceIntent = {
    kind: 'place',
    intentId: id,
    strategyId: setup.id,
    market: setup.market,
    symbol,
    side: r.side,
    type: r.type,
    volume,
    clientOrderId: id,
  };
  if (price !== undefined) intent.price = price;
  if (setup.market === 'futures') {
    intent.open = r.open ?? 'OPEN';
    intent.positionType = r.positionType ?? 1;
    if (r.timeInForce !== undefined) intent.timeInForce = r.timeInForce;
  }
  return intent;
}
