// The executor and a trusted transport (a backtest's simulator in this process): nothing is
// signed, and an answer handed over parsed is read from its JSON, not from its text.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { HttpRequest, HttpResponse, Transport } from '../../../src/core/ports.js';
import { createExchangeClient } from '../../../src/app/client.js';
import { endpointLimits } from '../../../src/exchange/endpoints.js';
import { VirtualPacer } from '../../../src/limiter/index.js';

const T0 = 1_700_000_000_000;
const ACCOUNT = '{"balances":[{"asset":"USDT","free":"100","locked":"0"}]}';

/** A venue that answers every request with `answer` and keeps what it was sent. */
function venue(answer: (req: HttpRequest) => HttpResponse, trusted?: boolean): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    ...(trusted === undefined ? {} : { trusted }),
    send: async (req) => {
      sent.push(req);
      return req.path.endsWith('/time') ? { status: 200, headers: {}, body: `{"serverTime":${T0}}` } : answer(req);
    },
  };
}

function client(transport: Transport) {
  const clock = new ManualClock(T0);
  return createExchangeClient({ transport: () => transport, clock, pacer: new VirtualPacer({ limits: endpointLimits(), clock }), credentials: { apiKey: 'key-0001', apiSecret: 'secret-0001' } });
}

describe('the executor and a trusted transport', () => {
  it('sends signed endpoints with key and timestamp but no signature; a wire transport gets the signature', async () => {
    for (const trusted of [true, undefined]) {
      const t = venue(() => ({ status: 200, headers: {}, body: ACCOUNT }), trusted);
      await client(t).executor.call('spot.account', {});
      const headers = t.sent.find((r) => r.path.endsWith('/account'))!.headers;
      expect(headers['X-CH-APIKEY']).toBe('key-0001');
      expect(headers['X-CH-TS']).toBe(String(T0));
      expect(headers['X-CH-SIGN'] !== undefined).toBe(trusted === undefined);
    }
  });

  it('reads an answer from its JSON when the transport hands it over, without parsing the text', async () => {
    const json = { balances: [{ asset: 'USDT', free: 100.5, locked: '0' }] };
    let textRead = false;
    const t = venue(
      () => ({
        status: 200,
        headers: {},
        json,
        get body() {
          textRead = true;
          return ACCOUNT;
        },
      }),
      true,
    );
    const balances = await client(t).executor.call('spot.account', {});
    expect(balances.items).toEqual([{ asset: 'USDT', free: '100.5', locked: '0' }]);
    expect(textRead).toBe(false);
  });
});
