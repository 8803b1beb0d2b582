// Client order ids on order requests: sent until an endpoint refuses them, then left off there for
// the rest of the process. The contract's create-order body lists five fields and the notes'
// batch item none of ours, so a venue may refuse the id as a parameter it does not take. Such a
// refusal comes before the venue acts (nothing was placed), so the refused request goes once
// more without the ids. Nothing else is ever sent again here: not another refusal, not a lost answer.
import { OrderRejectedError } from '../core/errors.js';
import type { Log } from '../core/log.js';
import { VenueCode } from '../exchange/codes.js';

/** The endpoints whose orders carry client order ids, each with the field that carries them. */
export const CLIENT_ID_FIELD = { 'spot.order': 'newClientOrderId', 'spot.batchOrders': 'newClientOrderId', 'futures.order': 'clientOrderId' } as const;

export type PlacingEndpoint = keyof typeof CLIENT_ID_FIELD;

/** Codes that refuse a request for a parameter it should not carry (the notes' table). */
const EXTRA_PARAMETER: ReadonlySet<number> = new Set([VenueCode.TOO_MANY_PARAMETERS, VenueCode.UNKNOWN_PARAM, VenueCode.UNREAD_PARAMETERS, VenueCode.PARAM_NOT_REQUIRED]);

/**
 * Codes about some parameter's value, which refuse the id only where their message names the id
 * field: futures' catch-all, and illegal characters (the notes give no character set for client
 * ids, and their example is digits only, so a venue may refuse our `sl<tag>-<n>`). -1102 stays a
 * refusal: its standard text ("mandatory ... not sent, empty or malformed") may mean the id is
 * required, and leaving it off would then refuse every order for the rest of the process.
 */
const ANY_PARAMETER: ReadonlySet<number> = new Set([VenueCode.PARAM_ERROR, VenueCode.ILLEGAL_CHARS]);

/** The other fields an order request may carry (exchange/request.ts writes them; the executor adds recvWindow). */
const OTHER_ORDER_FIELDS = ['symbol', 'contractName', 'orders', 'side', 'type', 'batchType', 'volume', 'price', 'open', 'positionType', 'timeInForce', 'recvWindow'];

/** Whether `text` names `field` as a word of its own, in any case (a venue may echo it lower-cased). */
function names(text: string, field: string): boolean {
  return new RegExp(`(?:^|[^A-Za-z0-9_])${field}(?:[^A-Za-z0-9_]|$)`, 'i').test(text);
}

/**
 * Whether the venue refused a request for carrying the client order id `field`: a parameter
 * error that names that field, or names none of the fields an order carries (most venues word
 * these codes without a name, and then the code alone says it). One that names another field
 * refused that field: sending again without the id would not help, so it stays a refusal. The
 * catch-all PARAM_ERROR counts only where it names the id field. A message is never on its own
 * a reason to send again: the code must be a parameter error first.
 */
export function refusesClientId(err: unknown, field: string): boolean {
  if (!(err instanceof OrderRejectedError)) return false;
  const code = err.venue.venueCode ?? 0;
  const msg = err.venue.venueMsg ?? '';
  if (ANY_PARAMETER.has(code)) return names(msg, field);
  return EXTRA_PARAMETER.has(code) && (names(msg, field) || !OTHER_ORDER_FIELDS.some((other) => names(msg, other)));
}

export class ClientIdPolicy {
  /** Endpoints that refused client order ids this process: their orders go without them. */
  private readonly refused = new Set<PlacingEndpoint>();

  constructor(private readonly log?: Log) {}

  /**
   * Sends an order request through `send`, told whether to put the client order ids in: with
   * them while `endpoint` takes them; after a refusal of them, once more without, and without at
   * once from then on. Any other failure is thrown as it came.
   */
  async send<T>(endpoint: PlacingEndpoint, send: (withIds: boolean) => Promise<T>): Promise<T> {
    if (this.refused.has(endpoint)) return send(false);
    try {
      return await send(true);
    } catch (err) {
      if (!refusesClientId(err, CLIENT_ID_FIELD[endpoint])) throw err;
      if (!this.refused.has(endpoint)) {
        this.refused.add(endpoint);
        const venue = (err as OrderRejectedError).venue;
        this.log?.warn(
          { endpoint, code: venue.venueCode, reason: venue.venueMsg },
          'the venue refuses client order ids on this endpoint: its orders go without them (lost answers are then bound by their looks)',
        );
      }
      return send(false);
    }
  }
}
