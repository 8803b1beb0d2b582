// Endpoint handlers: parameters in, JSON body out. Rules live in the engines; these read the
// request, call them and shape the answer in the forms the notes recommend (ids as strings).
import type { Endpoint } from '../exchange/endpoints.js';
import { FUTURES_ROUTES } from './routes-futures.js';
import { PUBLIC_ROUTES } from './routes-public.js';
import { SPOT_ROUTES } from './routes-spot.js';
import type { Route } from './venue.js';

export type { Call, Route, VenueView } from './venue.js';

export const ROUTES: Readonly<Record<string, Route>> = { ...PUBLIC_ROUTES, ...SPOT_ROUTES, ...FUTURES_ROUTES };

/** Routes the simulator serves beyond the endpoint table (public, ours). */
export const EXTRA_ROUTES: readonly Endpoint[] = [
  { id: 'futures.ping', market: 'futures', method: 'GET', path: '/fapi/v1/ping', security: 'NONE', limitPer2s: 20, placesOrders: false, ours: true },
] as unknown as Endpoint[];

/** POSTs that change state: the lost-response, timeout and error-after-act faults apply to them. */
export const WRITES: ReadonlySet<string> = new Set(['spot.order', 'spot.batchOrders', 'spot.cancel', 'spot.batchCancel', 'futures.order', 'futures.cancel']);
