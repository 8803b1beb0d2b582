// Endpoint handlers: parameters in, JSON body out. Rules live in the engines; these read the
// request, call them and shape the answer in the forms the notes recommend (ids as strings).
import type { SimExchange } from './exchange.js';
import { FUTURES_ROUTES } from './routes-futures.js';
import { PUBLIC_ROUTES } from './routes-public.js';
import { SPOT_ROUTES } from './routes-spot.js';
import type { Params } from './params.js';

export interface Call {
  params: Params;
  /** Account of the API key (signed endpoints). */
  account: string;
  /** Venue time of the request. */
  now: number;
  /** The venue's clock as clients see it: `now` unless a clock_jump is on. */
  clockNow: number;
  endpoint: string;
}

export type Route = (ex: SimExchange, call: Call) => unknown;

export const ROUTES: Readonly<Record<string, Route>> = { ...PUBLIC_ROUTES, ...SPOT_ROUTES, ...FUTURES_ROUTES };
