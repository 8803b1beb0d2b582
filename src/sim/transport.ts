// The in-process adapter: a Transport with no sockets, for backtests and fast tests.
import { TransportFailure, type HttpRequest, type HttpResponse, type Transport } from '../core/ports.js';
import { SimFault, type SimExchange } from './exchange.js';

export class SimTransport implements Transport {
  constructor(
    readonly exchange: SimExchange,
    private readonly remote = 'in-process',
  ) {}

  async send(request: HttpRequest): Promise<HttpResponse> {
    // The HTTP transport sets Content-Type on every request; so does this one, so both wirings
    // send the venue the same thing.
    const hasType = Object.keys(request.headers).some((k) => k.toLowerCase() === 'content-type');
    const req = hasType ? request : { ...request, headers: { 'content-type': 'application/json', ...request.headers } };
    const out = await this.exchange.handle(req, { remote: this.remote });
    // No HTTP answer: the request may have reached the venue (it did, for a lost response).
    if (out instanceof SimFault) throw new TransportFailure(out.message, true);
    return out;
  }

  async close(): Promise<void> {}
}
