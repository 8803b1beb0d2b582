// A Transport wrapper that records every call to a tape and changes nothing about it: the
// caller gets exactly the answer or the error the inner transport gave.
import { amend } from '../core/amend.js';
import type { Clock } from '../core/clock.js';
import { TransportFailure, type HttpRequest, type HttpResponse, type Transport } from '../core/ports.js';
import type { Market } from '../core/types.js';
import { endpointFor } from '../exchange/endpoints.js';
import { recordFailure, recordRequestHeaders, recordResponse, redact, type RecordedRequest, type TapeCall } from './format.js';
import type { TapeWriter } from './writer.js';

export class RecordingTransport implements Transport {
  constructor(
    private readonly inner: Transport,
    readonly market: Market,
    private readonly writer: TapeWriter,
    private readonly clock: Clock,
    /** The API key and secret: replaced by [redacted] wherever they appear in a line. */
    private readonly secrets: readonly string[],
  ) {}

  async send(request: HttpRequest): Promise<HttpResponse> {
    const seq = this.writer.nextSeq();
    const at = this.clock.now();
    const base = {
      kind: 'call' as const,
      seq,
      market: this.market,
      endpoint: endpointFor(request.method, request.path)?.id ?? null,
      at,
    };
    const req: RecordedRequest = {
      method: request.method,
      path: request.path,
      query: request.query,
      body: request.body,
      headers: recordRequestHeaders(request.headers),
    };
    let response: HttpResponse;
    try {
      response = await this.inner.send(request);
    } catch (e) {
      if (e instanceof TransportFailure) {
        this.record(amend(base, { ms: this.clock.now() - at, request: req, failure: recordFailure(e) }));
      }
      // Anything else is a bug, not venue traffic: nothing to replay, so nothing is recorded.
      throw e;
    }
    this.record(amend(base, { ms: this.clock.now() - at, request: req, response: recordResponse(response) }));
    return response;
  }

  private record(call: TapeCall): void {
    // A tape that cannot be written must not turn a placed order into an error: the writer
    // keeps the failure (see TapeWriter.failed, close()) and trading goes on.
    try {
      this.writer.write(redact(call, this.secrets));
    } catch {
      // write() throws only after close(); calls still in flight at shutdown are not taped.
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
