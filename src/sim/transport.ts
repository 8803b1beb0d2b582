// The in-process adapter: a Transport with no sockets, for backtests and fast tests.
import { TransportFailure, type HttpRequest, type HttpResponse, type Transport } from '../core/ports.js';
import { SimFault, type SimExchange } from './exchange.js';

export class SimTransport implements Transport {
  /**
   * Trusted (a backtest's own simulator): requests may come unsigned and answers carry their
   * JSON without text (HttpResponse.json), so neither side signs, checks a signature, writes
   * or parses JSON. What the venue decides is the same either way.
   */
  readonly trusted: boolean;

  constructor(
    readonly exchange: SimExchange,
    private readonly remote = 'in-process',
    opts: { trusted?: boolean } = {},
  ) {
    this.trusted = opts.trusted ?? false;
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    // The HTTP transport sets Content-Type on every request; so does this one, so both wirings
    // send the venue the same thing.
    const hasType = Object.keys(request.headers).some((k) => k.toLowerCase() === 'content-type');
    // Spelled out: a spread followed by members takes V8's slow path on Node 20.
    const req = hasType ? request : { method: request.method, path: request.path, query: request.query, body: request.body, headers: { 'content-type': 'application/json', ...request.headers } };
    const out = await this.exchange.handle(req, { remote: this.remote, trusted: this.trusted });
    // No HTTP answer: the request may have reached the venue (it did, for a lost response),
    // unless the fault is a recorded one whose transport knew it had not.
    if (out instanceof SimFault) throw new TransportFailure(out.message, out.maybeDelivered);
    return out;
  }

  async close(): Promise<void> {}
}
