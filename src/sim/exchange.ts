// The simulated venue. All of its rules live behind handle(): the HTTP server and the in-process
// transport are thin adapters over it. Everything reads the injected clock and the seeded
// streams, so the same seed and the same requests at the same times give the same answers.
import { amend } from '../core/amend.js';
import { systemClock, type Clock } from '../core/clock.js';
import { toDecimal, type Decimal } from '../core/decimal.js';
import type { HttpRequest, HttpResponse } from '../core/ports.js';
import { VenueCode } from '../exchange/codes.js';
import { endpointFor, ENDPOINTS } from '../exchange/endpoints.js';
import { authenticate, DEFAULT_RECV_WINDOW, type Credential } from './auth.js';
import { banned, SimError } from './errors.js';
import { ArrivalLog } from './arrivals.js';
import { AFTER_ACT_ANSWERS, Faults, NO_FAULTS, type FaultOptions } from './faults.js';
import { FuturesEngine, type FuturesOrder, type Position } from './futures.js';
import { forgetLogged, Forgetting } from './history.js';
import { IdSource, ORDER_ID_BASE, TRADE_ID_BASE } from './ids.js';
import { contractMid, DEFAULT_CONTRACTS, DEFAULT_SYMBOLS, movingMarkets, type ContractSpec, type SymbolSpec } from './instruments.js';
import { parseBody, parsedResponse, writeJson } from './json.js';
import { Ledger } from './ledger.js';
import { RateLimiter } from './limits.js';
import { openMarkets, type InstrumentMarket } from './market.js';
import { OTHERS } from './others.js';
import { queryParams, recvWindow, type Params } from './params.js';
import { resolveProfile, type VenueProfile } from './profile.js';
import { stream } from './random.js';
import { EXTRA_ROUTES, ROUTES, WRITES } from './routes.js';
import type { Call, VenueView } from './venue.js';
import { SpotEngine, type SpotOrder } from './spot.js';
import { TradeLog } from './trades.js';
import { Troubles } from './troubles.js';
import { SimFault, type Arrival, type LoggedOrder, type RecordedMarketEvent, type SimOptions, type UserTrade } from './types.js';

export { SimFault, type Arrival, type LoggedOrder, type RecordedIncident, type RecordedMarketEvent, type SimOptions, type Trouble } from './types.js';

interface Scheduled {
  at: number;
  seq: number;
  run: (at: number) => void;
}

export const USER = 'user';
/** How much past a fresh simulator makes up for its market (prehistory): a strategy's klines warm-up is met at once, as on a live venue. */
export const PREHISTORY_MS = 3 * 3_600_000;
const MAX_CATCH_UP_STEPS = 200_000;
const ARRIVALS_KEPT = 200_000;

export class SimExchange implements VenueView {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly clock: Clock;
  readonly seed: number;
  readonly symbols: ReadonlyMap<string, SymbolSpec>;
  readonly contracts: ReadonlyMap<string, ContractSpec>;
  readonly markets = new Map<string, InstrumentMarket>();
  readonly ledger: Ledger;
  readonly spot: SpotEngine;
  readonly futures: FuturesEngine;
  readonly faults: Faults;
  /** The scenario's timed troubles and the incidents a tape recorded (troubles.ts). */
  readonly troubles: Troubles;
  readonly cancelSettleMs: number;
  /** How closely the venue keeps to the contract's letter (the `profile` option, resolved). */
  readonly profile: VenueProfile;
  private readonly rewrite: SimOptions['rewrite'];
  private readonly keys = new Map<string, Credential & { account: string }>();
  private readonly limiter: RateLimiter;
  private readonly limits: Record<string, number>;
  private rateLimited: boolean;
  private readonly stepMs: number;
  private lastStep: number;
  private readonly events: Scheduled[] = [];
  private eventSeq = 0;
  private readonly orderIds: IdSource;
  private readonly tradeIds: IdSource;
  private readonly tradeLog = new TradeLog();
  private readonly uids = new Map<string, number>([
    [OTHERS, 10000],
    [USER, 10001],
  ]);
  private readonly arrivalLog = new ArrivalLog(ARRIVALS_KEPT);
  private applying: { symbol: string; market: InstrumentMarket } | undefined;
  private readonly orders: LoggedOrder[] = [];
  /** Forgets final orders and trades older than keepMs (SimOptions, history.ts); undefined: keeps the whole run. */
  private readonly forgetting: Forgetting | undefined;
  readonly keepMs: number | undefined;

  constructor(opts: SimOptions = {}) {
    this.seed = opts.seed ?? 1;
    this.profile = resolveProfile(opts.profile);
    this.rewrite = opts.rewrite;
    this.clock = opts.clock ?? systemClock;
    const creds = stream(this.seed, 'credentials');
    this.apiKey = opts.apiKey ?? `sim${creds.hex8()}${creds.hex8()}${creds.hex8()}${creds.hex8()}`;
    this.apiSecret = opts.apiSecret ?? `${creds.hex8()}${creds.hex8()}${creds.hex8()}${creds.hex8()}`;
    this.keys.set(this.apiKey, { apiKey: this.apiKey, apiSecret: this.apiSecret, account: USER });
    this.symbols = new Map((opts.symbols ?? DEFAULT_SYMBOLS).map((s) => [s.symbol.toUpperCase(), s]));
    this.contracts = new Map((opts.contracts ?? DEFAULT_CONTRACTS).map((c) => [c.symbol.toUpperCase(), c]));
    this.faults = new Faults(this.seed, { ...NO_FAULTS, ...opts.faults, latencyMs: { ...NO_FAULTS.latencyMs, ...opts.faults?.latencyMs, ...opts.latencyMs } });
    this.limiter = new RateLimiter({ violations: opts.banAfterViolations ?? 10, violationWindowMs: opts.violationWindowMs ?? 60_000, banMs: opts.banMs ?? 120_000 });
    this.limits = Object.fromEntries([...Object.values(ENDPOINTS), ...EXTRA_ROUTES].map((e) => [e.id as string, opts.limits?.[e.id] ?? e.limitPer2s]));
    this.rateLimited = opts.rateLimits ?? true;
    this.stepMs = opts.stepMs ?? 250;
    this.cancelSettleMs = opts.cancelSettleMs ?? 200;
    this.troubles = new Troubles(opts.troubles ?? [], opts.incidents ?? []);
    this.orderIds = new IdSource(ORDER_ID_BASE, stream(this.seed, 'order-ids'));
    this.tradeIds = new IdSource(TRADE_ID_BASE, stream(this.seed, 'trade-ids'));
    const fees = { maker: toDecimal(opts.fees?.maker ?? '0.001', 'fees.maker'), taker: toDecimal(opts.fees?.taker ?? '0.002', 'fees.taker') };
    const assets = [...new Set([...this.symbols.values()].flatMap((s) => [s.baseAsset, s.quoteAsset]))];
    this.ledger = new Ledger(assets);
    const balances = opts.balances ?? { USDT: '100000', BTC: '2', ETH: '20' };
    this.ledger.open(USER, Object.fromEntries(Object.entries(balances).map(([a, v]) => [a, toDecimal(v, `balances.${a}`)])));
    const tradeHook = { nextOrderId: () => this.orderIds.next(), onTrade: (t: UserTrade) => this.tradeLog.add(t) };
    this.spot = new SpotEngine(this.symbols, this.markets, this.ledger, fees, tradeHook);
    this.futures = new FuturesEngine(this.contracts, this.markets, fees, tradeHook, opts.futuresPositionModel ?? 2);
    const orderLog = { forget: (cutoff: number) => forgetLogged(this.orders, cutoff) };
    this.keepMs = opts.keepMs;
    if (opts.keepMs !== undefined) this.forgetting = new Forgetting(opts.keepMs, [this.spot, this.futures, this.tradeLog, orderLog]);
    for (const c of this.contracts.values()) {
      if (!this.futures.wallets.has(USER)) this.futures.openWallet(USER, c.marginCoin, toDecimal(opts.futuresBalance ?? '100000', 'futuresBalance'));
    }

    openMarkets(this.markets, this.symbols, this.contracts, this.seed, this.tradeIds, {
      spot: (f) => this.spot.settle(f, (at) => this.faults.visibleAt(at)),
      futures: (f) => this.futures.settle(f, (at) => this.faults.visibleAt(at)),
    });
    this.lastStep = this.now();
    this.stepMarkets(this.lastStep);
    // After their opening book, the markets not named in SimOptions.moving keep it.
    const moving = movingMarkets(this.contracts.values(), opts.moving);
    for (const [symbol, market] of this.markets) market.still = !moving(symbol);
  }

  /** Venue time: the injected clock plus the configured skew. */
  now(): number {
    return this.clock.now() + this.faults.options.clockSkewMs;
  }

  // ---------- the request path ----------

  /**
   * `trusted`: the caller is in this process (SimTransport's trusted mode): a signed endpoint
   * takes a request without X-CH-SIGN on its key and timestamp alone, and answers carry their
   * JSON without text (see parsedResponse).
   */
  async handle(req: HttpRequest, meta: { remote?: string; trusted?: boolean } = {}): Promise<HttpResponse | SimFault> {
    const draw = this.faults.draw();
    if (draw.latencyIn > 0) await this.clock.sleep(draw.latencyIn);
    const out = this.process(req, meta.remote ?? 'in-process', draw, meta.trusted === true);
    if (draw.latencyOut > 0 && !(out instanceof SimFault && out.kind === 'reset')) await this.clock.sleep(draw.latencyOut);
    return out;
  }

  private process(req: HttpRequest, remote: string, draw: ReturnType<Faults['draw']>, trusted: boolean): HttpResponse | SimFault {
    const now = this.now();
    this.catchUp(now);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
    const key = headers['x-ch-apikey'] || undefined;
    const ep = endpointFor(req.method, req.path) ?? EXTRA_ROUTES.find((e) => e.method === req.method && e.path === req.path);
    const arrival: Arrival = { at: now, key, remote, endpoint: ep?.id ?? `${req.method} ${req.path}`, status: 0 };
    this.arrivalLog.add(arrival);

    if (draw.reset) {
      arrival.fault = 'reset';
      return new SimFault('reset', false);
    }
    if (draw.error5xx) {
      arrival.fault = 'error5xx';
      // This fault never acts. The text does not say so: a real venue's 503 does not promise it,
      // and the client rightly calls a 503 on an order-placing endpoint outcome-unknown.
      return this.error(arrival, trusted, new SimError(VenueCode.SERVICE_SHUTTING_DOWN, 'Service unavailable, please try again later.', 503));
    }

    // Only the clock clients see jumps (timestamp checks, serverTime): the market keeps its time.
    const clockNow = now + this.troubles.skewAt(now);
    const trouble = this.troubles.before(arrival, now);
    if (trouble instanceof SimError) return this.error(arrival, trusted, trouble);
    if (trouble) return trouble;

    const known = key !== undefined && this.keys.has(key);
    const banIds = known ? [`ip:${remote}`, `key:${key}`] : [`ip:${remote}`];
    const bannedUntil = this.limiter.bannedUntil(banIds, now);
    if (bannedUntil > 0) return this.error(arrival, trusted, banned(bannedUntil, now));
    if (!ep) return this.error(arrival, trusted, new SimError(VenueCode.UNSUPPORTED_OPERATION, `Unknown route ${req.method} ${req.path}.`, 404));

    // A public call that carries a valid key counts against the key, as signed calls do.
    const caller = known ? `key:${key}` : `ip:${remote}`;
    if (this.rateLimited) {
      const v = this.limiter.admit(caller, ep.id, this.limits[ep.id] ?? ep.limitPer2s, now, banIds);
      if (!v.ok && v.kind === 'banned') return this.error(arrival, trusted, banned(v.until, now));
      if (!v.ok && v.kind === 'limited') {
        const seconds = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
        const message = `Too many requests: ${ep.path} allows ${this.limits[ep.id]} per 2 s; retry after ${v.retryAfterMs} ms.`;
        return this.error(arrival, trusted, new SimError(VenueCode.TOO_MANY_REQUESTS, message, 429, { headers: { 'retry-after': String(seconds) } }));
      }
    }

    try {
      if (req.method === 'POST' && !/^application\/json\b/i.test((headers['content-type'] ?? '').trim())) {
        throw new SimError(VenueCode.NO_CONTENT_TYPE, 'Content-Type must be application/json.', 400);
      }
      let params: Params | undefined;
      if (req.method === 'GET') params = queryParams(req.query);
      else {
        try {
          const parsed = req.body.trim() === '' ? {} : parseBody(req.body);
          if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) params = parsed as Params;
        } catch {
          params = undefined;
        }
      }
      const window = recvWindow(params, DEFAULT_RECV_WINDOW);
      const apiKey = authenticate(req, headers, ep, this.keys, clockNow, window, trusted);
      if (!params) throw new SimError(VenueCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED, 'The body must be a JSON object.', 400);
      const route = ROUTES[ep.id];
      if (!route) throw new SimError(VenueCode.UNSUPPORTED_OPERATION, `${ep.id} is not simulated.`, 404);
      const account = apiKey !== undefined ? this.keys.get(apiKey)!.account : USER;
      const call: Call = { params, account, now, clockNow, endpoint: ep.id };
      const body = route(this, call);
      // A recorded 504 or lost answer due on this endpoint: the venue acted, the caller cannot tell.
      const unsure = WRITES.has(ep.id) ? this.troubles.afterAct(arrival, now) : undefined;
      if (unsure) return unsure;
      if (WRITES.has(ep.id) && draw.lost) {
        arrival.fault = 'lost-response';
        return new SimFault('lost-response', true);
      }
      if (WRITES.has(ep.id) && draw.timeout) {
        arrival.fault = 'timeout';
        return this.error(arrival, trusted, new SimError(VenueCode.TIMEOUT, 'Timeout waiting for response from backend server. Send status unknown; execution status unknown.', 504));
      }
      if (WRITES.has(ep.id) && draw.afterAct !== undefined) {
        // Acted, then answered as if something broke: the client cannot tell whether it did.
        const a = AFTER_ACT_ANSWERS[draw.afterAct]!;
        arrival.fault = 'error-after-act';
        arrival.status = a.status;
        if (a.code !== undefined) arrival.code = a.code;
        return { status: a.status, headers: { 'content-type': a.contentType }, body: a.body };
      }
      return this.answer(arrival, trusted, 200, this.rewrite ? this.rewrite(ep.id, body) : body);
    } catch (e) {
      if (e instanceof SimError) return this.error(arrival, trusted, e);
      throw e;
    }
  }

  private answer(arrival: Arrival, trusted: boolean, status: number, body: unknown, extraHeaders: Record<string, string> = {}): HttpResponse {
    arrival.status = status;
    const headers = { 'content-type': 'application/json', ...extraHeaders };
    return trusted ? parsedResponse(status, headers, body) : { status, headers, body: writeJson(body) };
  }

  private error(arrival: Arrival, trusted: boolean, e: SimError): HttpResponse {
    arrival.code = e.code;
    return this.answer(arrival, trusted, e.status, { code: e.code, msg: e.message, ...e.extra.body }, e.extra.headers);
  }

  // ---------- time: the synthetic market and scheduled settlements ----------

  /** Brings the market up to venue time `now`: market steps and due events, in time order. */
  catchUp(now = this.now()): void {
    if ((now - this.lastStep) / this.stepMs > MAX_CATCH_UP_STEPS) {
      // A long idle gap (a server left alone for days): skip ahead, keeping the step grid.
      this.lastStep += Math.floor((now - this.lastStep) / this.stepMs - MAX_CATCH_UP_STEPS) * this.stepMs;
    }
    for (;;) {
      const stepAt = this.lastStep + this.stepMs;
      const ev = this.events[0];
      const evAt = ev ? ev.at : Infinity;
      if (Math.min(stepAt, evAt) > now) break;
      if (ev && evAt <= stepAt) {
        this.events.shift();
        ev.run(ev.at);
      } else {
        this.lastStep = stepAt;
        this.stepMarkets(stepAt);
      }
    }
  }

  schedule(at: number, run: (at: number) => void): void {
    const e = { at, seq: ++this.eventSeq, run };
    let i = this.events.length;
    while (i > 0 && (this.events[i - 1]!.at > at || (this.events[i - 1]!.at === at && this.events[i - 1]!.seq > e.seq))) i--;
    this.events.splice(i, 0, e);
  }

  /**
   * A past for the synthetic market: `historyMs` of it before now, in coarse steps (a few
   * hundred ms of work for hours), so klines and public trades have history at start as a live
   * venue's do: a strategy's klines warm-up is then met at once in paper mode, as it is live.
   * Before any request; coarser steps move the price less than the live ones would.
   */
  prehistory(historyMs: number, stepMs = 15_000): void {
    const now = this.now();
    for (let at = now - historyMs; at < now; at += stepMs) this.stepMarkets(at);
    this.lastStep = now;
  }

  private stepMarkets(at: number): void {
    this.forgetting?.step(at);
    for (const s of this.symbols.values()) this.markets.get(s.symbol)!.step(at);
    for (const c of this.contracts.values()) this.markets.get(c.symbol)!.step(at, contractMid(c, this.symbols.get(c.underlying), this.markets.get(c.underlying)));
  }

  // ---------- hooks used by the routes ----------

  logOrder(o: LoggedOrder): void {
    this.orders.push(o);
  }

  /** Fills of an account that myTrades shows at `now`, ascending by id. */
  trades(account: string, market: 'spot' | 'futures', symbol: string | undefined, now: number): UserTrade[] {
    return this.tradeLog.visible(account, market, symbol, now);
  }

  /** The fill index the routes page through. */
  get fills(): TradeLog {
    return this.tradeLog;
  }

  /** The user id the venue shows for an account (bidUserId/askUserId). */
  uid(account: string): number {
    let id = this.uids.get(account);
    if (id === undefined) this.uids.set(account, (id = 10000 + this.uids.size));
    return id;
  }

  // ---------- observability and control for tests, backtests and tapes ----------

  /** Every request seen, in arrival order. */
  arrivals(): readonly Arrival[] {
    return this.arrivalLog.list();
  }

  /** Every order the venue accepted (spot and futures; within keepMs when set), in order: the judge of "never placed twice". */
  orderLog(): readonly LoggedOrder[] {
    return this.orders;
  }

  /** Spot balances of the venue's account, as GET /sapi/v1/account shows them. */
  balances(): Array<{ asset: string; free: Decimal; locked: Decimal }> {
    return this.ledger.balances(USER);
  }

  /** Every fill of the account (within keepMs when set), including those myTrades does not show yet. */
  allTrades(): readonly UserTrade[] {
    return this.tradeLog.everything().filter((t) => t.account === USER);
  }

  /** Open spot and futures orders of the venue's account (NEW, PARTIALLY_FILLED, PENDING_CANCEL). */
  openOrders(): { spot: SpotOrder[]; futures: FuturesOrder[] } {
    return { spot: this.spot.open(USER), futures: this.futures.open(USER) };
  }

  /** Futures wallet: available, locked, realised PnL, and open positions with their unrealised PnL. */
  futuresState(): { coin: string; available: Decimal; locked: Decimal; realized: Decimal; positions: Array<Position & { unrealized: Decimal }> } {
    const w = this.futures.wallet(USER);
    const positions = [...w.positions.values()].filter((p) => p.lots > 0).map((p) => amend(p, { unrealized: this.futures.unrealized(p) }));
    return { coin: w.coin, available: w.normal, locked: w.lock, realized: w.realized, positions };
  }

  /** Best bid, best ask and mid of a symbol or contract, as decimals (undefined for an empty side). */
  top(symbol: string): { bid?: Decimal; ask?: Decimal; mid: Decimal } {
    this.catchUp();
    const m = this.markets.get(symbol.toUpperCase());
    if (!m) throw new RangeError(`unknown symbol ${symbol}`);
    const bid = m.book.best('BUY');
    const ask = m.book.best('SELL');
    return { bid: bid && m.price(bid.priceTicks), ask: ask && m.price(ask.priceTicks), mid: m.price(m.midTicks) };
  }

  setFaults(f: Partial<FaultOptions>): void {
    this.faults.options = { ...this.faults.options, ...f, latencyMs: { ...this.faults.options.latencyMs, ...f.latencyMs } };
  }

  /** Lifts (false) or restores (true) every rate limit. */
  setRateLimits(on: boolean): void {
    this.rateLimited = on;
  }

  /**
   * Drives a symbol (spot symbol or futures contract) from a tape. The first event switches
   * that symbol off the synthetic market for good. `book` replaces the other participants'
   * quotes with the given levels (crossing orders fill); `trade` is another participant
   * trading at that price (filling resting orders at that price or better); `ticker` moves
   * the mid and last price.
   */
  applyMarketEvent(ev: RecordedMarketEvent): void {
    const now = this.now();
    this.catchUp(now);
    // A tape's events come one symbol (one string) at a time: look it up once per run of them.
    if (ev.symbol !== this.applying?.symbol) {
      const market = this.markets.get(ev.symbol.toUpperCase());
      if (!market) throw new RangeError(`unknown symbol ${ev.symbol}`);
      this.applying = { symbol: ev.symbol, market };
    }
    this.applying.market.applyEvent(ev, now);
  }
}
