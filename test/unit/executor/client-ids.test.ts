// Which refusals say the venue does not take the client order id field: a parameter error's code
// decides, and its message, where it names a field an order carries, can only narrow that.
import { describe, expect, it } from 'vitest';
import { OrderRejectedError, TemporaryError } from '../../../src/core/errors.js';
import { refusesClientId } from '../../../src/executor/client-ids.js';

const refusal = (venueCode: number, venueMsg?: string) => new OrderRejectedError({ endpoint: 'spot.order', httpStatus: 400, venueCode, venueMsg }, venueMsg ?? `venue code ${venueCode}`);

describe('refusesClientId', () => {
  it.each([
    // [code, message, field, refuses the id]
    [-1103, 'unknown parameter newClientOrderId', 'newClientOrderId', true],
    [-1106, "Parameter 'NEWCLIENTORDERID' sent when not required.", 'newClientOrderId', true],
    [-1103, 'An unknown parameter was sent.', 'newClientOrderId', true],
    [-1101, 'Too many parameters sent for this endpoint.', 'clientOrderId', true],
    [-1104, "Not all sent parameters were read; read '8' parameter(s) but was sent '9'.", 'clientOrderId', true],
    [-1103, undefined, 'newClientOrderId', true],
    [-1103, '未知参数', 'clientOrderId', true],
    [-1103, 'unknown parameter price', 'newClientOrderId', false],
    [-1106, "Parameter 'timeInForce' sent when not required.", 'clientOrderId', false],
    [-1103, 'unknown parameter recvwindow', 'newClientOrderId', false],
    [-1103, 'unknown parameters: type, newClientOrderId', 'newClientOrderId', true],
    // A field inside a longer name is not that field: positionType is not type, newClientOrderId not clientOrderId.
    [-1103, 'unknown parameter positionType', 'newClientOrderId', false],
    [-1103, 'unknown parameter newClientOrderId', 'clientOrderId', true],
    [-1102, "Mandatory parameter 'newClientOrderId' was not sent, was empty/null, or malformed.", 'newClientOrderId', false],
    [-2017, 'Insufficient balance.', 'newClientOrderId', false],
    // Illegal characters: only in the id field refuses the id (the notes' example id is digits).
    [-1100, "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[0-9]{1,32}$'.", 'newClientOrderId', true],
    [-1100, "Illegal characters found in parameter 'price'.", 'newClientOrderId', false],
    [-1100, undefined, 'newClientOrderId', false],
    // PARAM_ERROR (futures) is any bad parameter: only one that names the id field refuses the id.
    [-2100, 'clientOrderId', 'clientOrderId', true],
    [-2100, 'param error: clientOrderId is not supported', 'clientOrderId', true],
    [-2100, 'parameter error', 'clientOrderId', false],
    [-2100, undefined, 'clientOrderId', false],
    [-2100, 'clientOrderId and price invalid', 'clientOrderId', true],
    [-2100, 'price invalid', 'clientOrderId', false],
  ] as const)('code %i, message %j, field %s: %s', (code, msg, field, expected) => {
    expect(refusesClientId(refusal(code, msg), field)).toBe(expected);
  });

  it('an answer that is not a refusal never is, whatever it says (a 5xx with -1103 may have placed the order)', () => {
    const lost = new TemporaryError({ endpoint: 'spot.order', httpStatus: 500, venueCode: -1103, venueMsg: 'unknown parameter newClientOrderId' }, 'unknown parameter newClientOrderId (outcome unknown)', true);
    expect(refusesClientId(lost, 'newClientOrderId')).toBe(false);
    expect(refusesClientId(new Error('unknown parameter newClientOrderId'), 'newClientOrderId')).toBe(false);
  });
});
