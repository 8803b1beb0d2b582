// Composes the exchange client: transport per market, one pacer, the venue clock and the executor.
import { systemClock, type Clock, type Random } from '../core/clock.js';
import { OrderRejectedError } from '../core/errors.js';
import type { HttpRequest, HttpResponse, Pacer, Transport } from '../core/ports.js';
import type { Market } from '../core/types.js';
import { endpointLimits, type EndpointId } from '../exchange/endpoints.js';
import type { HttpTransport, HttpTransportOptions } from '../exchange/transport/http.js';
import { Executor, VenueClock, type CallRecord, type Credentials, type RetryPolicy } from '../executor/index.js';
import { BottleneckPacer } from '../limiter/index.js';

export interface ExchangeClientOptions {
  /** Spot origin; futures defaults to the same origin (the simulator serves both). */
  spotUrl?: string;
  futuresUrl?: string;
  /** Overrides the HTTP transports (in-process simulator, recorder, replayer). */
  transport?: (market: Market) => Transport;
  /** Wraps each market's transport once (the tape recorder). */
  wrap?: (market: Market, transport: Transport) => Transport;
  credentials?: Credentials;
  clock?: Clock;
  pacer?: Pacer;
  recvWindowMs?: number;
  /** Extra time a request's slot stays taken after the 2 s window, for latency jitter. */
  safetyMarginMs?: number;
  limits?: Partial<Record<EndpointId, number>>;
  retry?: RetryPolicy;
  /** How often the venue clock offset is re-measured. */
  clockSyncIntervalMs?: number;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; totalMs?: number };
  maxResponseBytes?: number;
  /** HTTP connections per market's origin (HttpTransport's default otherwise). */
  connections?: number;
  onCall?: (record: CallRecord) => void;
  random?: Random;
  /** A host without a time endpoint: its requests are signed with the local clock (told once). */
  onNoTimeEndpoint?: (endpoint: 'spot.time' | 'futures.time', reason: string) => void;
}

export interface ExchangeClient {
  executor: Executor;
  /** Each market's host's clock; one object for both when futures shares the spot host. */
  venueClocks: Readonly<Record<Market, VenueClock>>;
  pacer: Pacer;
  /** Measures the venue clocks and keeps re-measuring them. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createExchangeClient(opts: ExchangeClientOptions): ExchangeClient {
  const clock = opts.clock ?? systemClock;
  const owned: LazyHttpTransport[] = [];
  const transports = new Map<Market, Transport>();
  const base =
    opts.transport ??
    ((market: Market) => {
      let t = transports.get(market);
      if (!t) {
        const baseUrl = market === 'futures' ? (opts.futuresUrl ?? opts.spotUrl) : opts.spotUrl;
        if (!baseUrl) throw new Error(`no URL configured for the ${market} venue`);
        const http = new LazyHttpTransport({
          baseUrl,
          connectTimeoutMs: opts.timeouts?.connectMs,
          headersTimeoutMs: opts.timeouts?.headersMs,
          bodyTimeoutMs: opts.timeouts?.bodyMs,
          totalTimeoutMs: opts.timeouts?.totalMs,
          maxResponseBytes: opts.maxResponseBytes,
          connections: opts.connections,
        });
        owned.push(http);
        t = http;
        transports.set(market, t);
      }
      return t;
    });
  const wrapped = new Map<Market, Transport>();
  const transport = (market: Market): Transport => {
    if (!opts.wrap) return base(market);
    let t = wrapped.get(market);
    if (!t) wrapped.set(market, (t = opts.wrap(market, base(market))));
    return t;
  };
  const pacer = opts.pacer ?? new BottleneckPacer({ limits: endpointLimits(opts.limits), safetyMarginMs: opts.safetyMarginMs, clock });
  let executor: Executor;
  // Signed requests carry the time of the host they go to. Where futures has a host of its own
  // (the notes: futuresopenapi.<domain>), its clock is measured from its own time endpoint.
  // The contract lists no time endpoint (the notes do): a host that has none (404 or 405, no
  // venue code) is signed for with the local clock, offset 0, which an NTP-synced host keeps
  // well within the venue's window (1 s ahead, recvWindow behind).
  const told = new Set<string>();
  const venueTime = (endpoint: 'spot.time' | 'futures.time') => async () => {
    try {
      return (await executor.call(endpoint, {})).serverTime;
    } catch (err) {
      const venue = err instanceof OrderRejectedError ? err.venue : undefined;
      if (!venue || venue.venueCode !== undefined || (venue.httpStatus !== 404 && venue.httpStatus !== 405)) throw err;
      if (!told.has(endpoint)) opts.onNoTimeEndpoint?.(endpoint, (err as Error).message);
      told.add(endpoint);
      return clock.now();
    }
  };
  const spotClock = new VenueClock(clock, venueTime('spot.time'));
  const venueClocks: Record<Market, VenueClock> = {
    spot: spotClock,
    futures: ownFuturesHost(opts) ? new VenueClock(clock, venueTime('futures.time')) : spotClock,
  };
  const distinctClocks = [...new Set(Object.values(venueClocks))];
  executor = new Executor({
    transport,
    pacer,
    clock,
    venueClocks,
    credentials: opts.credentials,
    recvWindowMs: opts.recvWindowMs,
    retry: opts.retry,
    onCall: opts.onCall,
    random: opts.random,
  });
  let closed = false;
  return {
    executor,
    venueClocks,
    pacer,
    async start() {
      await Promise.all(distinctClocks.map((c) => c.sync()));
      for (const c of distinctClocks) {
        c.start(opts.clockSyncIntervalMs ?? 60_000, () => {
          /* a failed refresh keeps the last offset; the next call that gets -1021 resyncs */
        });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const c of distinctClocks) c.stop();
      await pacer.stop();
      await Promise.all(owned.map((t) => t.close()));
    },
  };
}

/** Whether futures is served from another origin than spot (over HTTP: a transport given is one venue). */
function ownFuturesHost(opts: ExchangeClientOptions): boolean {
  if (opts.transport || !opts.futuresUrl || !opts.spotUrl) return false;
  return new URL(opts.futuresUrl).origin !== new URL(opts.spotUrl).origin;
}

/**
 * The HTTP transport, its module (and undici, about 10 MB of RSS) loaded at the first request:
 * a profile whose venue is in this process (paper, backtest, replay) never loads them.
 */
class LazyHttpTransport implements Transport {
  private http: HttpTransport | undefined;
  private loading: Promise<HttpTransport> | undefined;

  constructor(private readonly opts: HttpTransportOptions) {}

  send(request: HttpRequest): Promise<HttpResponse> {
    if (this.http) return this.http.send(request);
    this.loading ??= import('../exchange/transport/http.js').then((m) => (this.http = new m.HttpTransport(this.opts)));
    return this.loading.then((http) => http.send(request));
  }

  async close(): Promise<void> {
    // A transport whose load failed has nothing to close (its sends already failed).
    const http = this.http ?? (await this.loading?.catch(() => undefined));
    await http?.close();
  }
}
