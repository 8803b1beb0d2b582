// Shutdown and the bounded backlog, over HTTP against the simulator: what happens to intents the
// venue's limits have not let out yet (engine.shutdown.queued, engine.maxQueueMs), and to our
// open orders (engine.shutdown.cancelOpenOrders), judged by what the simulator saw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { d, dec } from '../../src/core/decimal.js';
import type { Order } from '../../src/core/types.js';
import { startSimServer } from '../../src/sim/index.js';
import { SqliteJournal } from '../../src/store/sqlite.js';
import { defineStrategy, z } from '../../src/strategy/api.js';
import { createExchangeClient, type ExchangeClient } from '../../src/app/client.js';
import type { App } from '../../src/app/build.js';
import { liveApp, merge, type Tree } from '../fixtures/app.js';

type Started = Awaited<ReturnType<typeof startSimServer>>;
let sim: Started | undefined;
let app: App | undefined;
let hand: ExchangeClient | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.stop().catch(() => undefined);
  for (const j of reopened.splice(0)) j.close();
  await hand?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  app = undefined;
  hand = undefined;
  sim = undefined;
  dir = undefined;
});


/**
 * Places `count` resting buys (below the market, each a cent apart so none is a duplicate) on
 * the first tick with a price, then nothing. Remembers every status update it hears.
 */
function burst(count: number) {
  const updates = new Map<string, Order['status'][]>();
  const placed: string[] = [];
  const definition = defineStrategy({
    apiVersion: 1,
    name: 'burst',
    params: z.object({}),
    create(ctx) {
      return {
        onTick() {
          const last = ctx.lastPrice('BTCUSDT');
          if (placed.length > 0 || !last) return;
          const price = dec.truncate(dec.mul(last, d('0.97')), 2);
          for (let i = 0; i < count; i++) placed.push(ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: dec.sub(price, d(`0.${String(i).padStart(2, '0')}`)), volume: '0.001' }));
        },
        onOrderUpdate(order: Order) {
          updates.set(order.clientOrderId, [...(updates.get(order.clientOrderId) ?? []), order.status]);
        },
      };
    },
  });
  const heard = (status: Order['status']) => [...updates.entries()].filter(([, s]) => s.includes(status)).map(([id]) => id);
  return { definition, placed, updates, heard };
}

async function start(strategy: ReturnType<typeof burst>, engineYaml: string, venueLimits = '{}') {
  // Cancels settle at the next request (or catchUp), so "none open" needs no waiting.
  sim ??= await startSimServer({ port: 0, seed: 21, cancelSettleMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'sluice-shutdown-'));
  const engine = merge({ reconcileEveryMs: 1000 }, (parse(engineYaml) as Tree | null) ?? {});
  const started = await liveApp(sim, join(dir, 'journal.db'), [{ id: 'burst', definition: strategy.definition, symbols: ['BTCUSDT'], everyMs: 100 }], {
    venue: { limits: parse(venueLimits) as Tree },
    engine,
  });
  app = started.app;
  await app.start();
  return { app, sim, tap: started.tap };
}

/** Stops the daemon (which closes its journal) and opens the journal again, as on disk. */
async function stopAndReopen(): Promise<SqliteJournal> {
  await app!.stop();
  app = undefined;
  const journal = SqliteJournal.open(join(dir!, 'journal.db'));
  reopened.push(journal);
  return journal;
}
const reopened: SqliteJournal[] = [];

/** Resolves once `n` distinct orders have reached `status` (checked on each order event). */
function ordersReach(a: App, n: number, status: Order['status']): Promise<Set<string>> {
  const seen = new Set<string>();
  return new Promise((resolve) => {
    const on = (o: Order) => {
      if (o.status !== status) return;
      seen.add(o.clientOrderId);
      if (seen.size < n) return;
      a.engine.events.off('order', on);
      resolve(seen);
    };
    a.engine.events.on('order', on);
  });
}

const placeRequests = (s: Started) => s.exchange.arrivals().filter((a) => a.endpoint === 'spot.order' || a.endpoint === 'spot.batchOrders');
const tooMany = (s: Started) => s.exchange.arrivals().filter((a) => a.status === 429 || a.status === 418);

// One batch and one single request per 2 s: 14 intents send 10 + 1 at once and 3 wait.
const TIGHT = '{ spot.order: 1, spot.batchOrders: 1 }';

describe('shutdown with intents still queued behind the rate limits', () => {
  it('queued: drop marks them canceled (dropped at shutdown), tells the strategy, and sends none of them', async () => {
    const s = burst(14);
    const { app: started } = await start(s, 'maxQueueMs: 60000\nshutdown: { queued: drop, cancelOpenOrders: false }', TIGHT);
    const sent = await ordersReach(started, 11, 'open');
    expect(app!.engine.pipeline.stats.sent).toBe(11);
    const queued = s.placed.filter((id) => !sent.has(id));
    expect(queued).toHaveLength(3);

    const a = await stopAndReopen();

    // The venue never saw them: 11 orders from one batch and one single request.
    const onVenue = new Set(sim!.exchange.orderLog().map((o) => o.clientOrderId));
    expect(onVenue.size).toBe(11);
    for (const id of queued) expect(onVenue.has(id)).toBe(false);
    expect(placeRequests(sim!)).toHaveLength(2);
    expect(tooMany(sim!)).toHaveLength(0);
    // Final for us, with the reason in their history, and their strategy heard so.
    for (const id of queued) {
      expect(a.order(id)).toMatchObject({ status: 'canceled' });
      expect(a.history(id).at(-1)).toMatchObject({ status: 'canceled', reason: 'dropped at shutdown' });
    }
    expect(s.heard('canceled').sort()).toEqual([...queued].sort());
    // Nothing was pending or unknown at the end; the sent ones stay open (cancelOpenOrders: false).
    expect(a.orders({ openOnly: true }).map((o) => o.status)).toEqual(Array(11).fill('open'));
    expect(a.orders({})).toHaveLength(14);
  });

  it('queued: flush sends every one of them before stop() returns', async () => {
    const s = burst(14);
    const { app: a } = await start(s, 'maxQueueMs: 60000\nshutdown: { queued: flush, cancelOpenOrders: false }', TIGHT);
    const sent = await ordersReach(a, 11, 'open');
    expect(sim!.exchange.orderLog()).toHaveLength(11);
    const queued = s.placed.filter((id) => !sent.has(id));
    expect(queued).toHaveLength(3);

    const journal = await stopAndReopen();

    const onVenue = sim!.exchange.orderLog().map((o) => o.clientOrderId);
    expect(onVenue).toHaveLength(14);
    expect(new Set(onVenue)).toEqual(new Set(s.placed));
    // The three waited for the next window: one more request, no 429.
    expect(placeRequests(sim!)).toHaveLength(3);
    expect(tooMany(sim!)).toHaveLength(0);
    for (const id of s.placed) expect(journal.order(id)).toMatchObject({ status: 'open' });
    expect(s.heard('canceled')).toEqual([]);
    expect(a.engine.pipeline.stats.accepted).toBe(14);
  });
});

describe('shutdown and our open orders', () => {
  it('cancelOpenOrders: true cancels ours on the venue, journals them canceled, and leaves a hand-placed (adopted) order alone', async () => {
    // Cancels settle 200 ms after the venue accepts them, as a real venue takes a moment.
    sim = await startSimServer({ port: 0, seed: 22, cancelSettleMs: 200 });
    hand = createExchangeClient({ spotUrl: sim.url, credentials: { apiKey: sim.apiKey, apiSecret: sim.apiSecret } });
    await hand.start();
    const { bid } = sim.exchange.top('BTCUSDT');
    const handPrice = dec.truncate(dec.mul(bid!, d('0.98')), 2);
    const ack = await hand.executor.call('spot.order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', volume: d('0.01'), price: handPrice, newClientOrderId: 'manual-1' });

    const s = burst(3);
    const { app: a, tap } = await start(s, 'shutdown: { queued: drop, cancelOpenOrders: true }');
    await tap.waitFor(/adopted an open order on the venue/);
    await ordersReach(a, 3, 'open');
    expect(sim.exchange.openOrders().spot).toHaveLength(4);

    const journal = await stopAndReopen();
    // The last reconcile passes waited for the cancels to settle: the journal agrees with the venue.
    for (const id of s.placed) expect(journal.order(id)).toMatchObject({ status: 'canceled' });
    expect(journal.orders({ openOnly: true }).map((o) => o.clientOrderId)).toEqual([`venue-${ack.orderId}`]);

    sim.exchange.catchUp();
    const open = sim.exchange.openOrders().spot;
    expect(open.map((o) => o.orderId)).toEqual([ack.orderId]);
    expect(open[0]).toMatchObject({ clientOrderId: 'manual-1' });
    const cancels = sim.exchange.arrivals().filter((x) => x.endpoint === 'spot.cancel' || x.endpoint === 'spot.batchCancel');
    expect(cancels.every((x) => x.status === 200)).toBe(true);
    expect(cancels.length).toBeGreaterThanOrEqual(1);
    expect(tooMany(sim)).toHaveLength(0);
  });

  it('a tick still running at stop() finishes first: onStop sees its order, and shutdown cancels it with the rest', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inTick = new Promise<void>((resolve) => (entered = resolve));
    const heard: string[] = [];
    const slow = {
      definition: defineStrategy({
        apiVersion: 1,
        name: 'slow',
        params: z.object({}),
        create(ctx) {
          let done = false;
          return {
            // A tick that waits on something outside (a signal, a file) before it places.
            async onTick() {
              const last = ctx.lastPrice('BTCUSDT');
              if (done || !last) return;
              done = true;
              entered();
              await gate;
              ctx.place({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: dec.truncate(dec.mul(last, d('0.97')), 2), volume: '0.001' });
              heard.push('tick placed');
            },
            onStop() {
              heard.push(`stop sees ${ctx.openOrders('BTCUSDT').length} open`);
              ctx.cancelAll();
            },
          };
        },
      }),
    };
    const { app: a } = await start(slow as unknown as ReturnType<typeof burst>, 'shutdown: { cancelOpenOrders: true }');
    await inTick;
    const stopping = a.stop();
    release();
    await stopping;
    app = undefined;
    expect(heard).toEqual(['tick placed', 'stop sees 1 open']);
    sim!.exchange.catchUp();
    expect(sim!.exchange.openOrders().spot).toEqual([]);
    // onStop's cancel meets the order either still queued (its intent's fsync not landed yet):
    // withdrawn, never sent; or sent: cancelled on the venue. Either way it ends canceled.
    const journal = SqliteJournal.open(join(dir!, 'journal.db'), { readOnly: true });
    reopened.push(journal);
    const [order] = journal.orders({ strategyId: 'burst' });
    expect(order?.status).toBe('canceled');
    if (order!.venueOrderId) expect(placeRequests(sim!)).toHaveLength(1);
    else {
      expect(placeRequests(sim!)).toHaveLength(0);
      expect(journal.history(order!.clientOrderId).at(-1)?.reason).toBe('cancelled before it was sent');
    }
  });

  it('cancelOpenOrders: false leaves ours open on the venue', async () => {
    const s = burst(3);
    const { app: a } = await start(s, 'shutdown: { queued: drop, cancelOpenOrders: false }');
    await ordersReach(a, 3, 'open');

    await a.stop();
    app = undefined;

    sim!.exchange.catchUp();
    expect(new Set(sim!.exchange.openOrders().spot.map((o) => o.clientOrderId))).toEqual(new Set(s.placed));
    expect(sim!.exchange.arrivals().filter((x) => x.endpoint === 'spot.cancel' || x.endpoint === 'spot.batchCancel')).toHaveLength(0);
  });
});

describe('the bounded backlog (engine.maxQueueMs)', () => {
  it('drops intents that waited longer than maxQueueMs, tells their strategy (canceled), and never sends them', async () => {
    const s = burst(14);
    const { app: a, tap } = await start(s, 'maxQueueMs: 300\nshutdown: { queued: flush, cancelOpenOrders: false }', TIGHT);
    const sent = await ordersReach(a, 11, 'open');
    const queued = s.placed.filter((id) => !sent.has(id));
    expect(queued).toHaveLength(3);

    // Their strategy hears each one canceled, well before the limiter frees a slot (2.1 s).
    await ordersReach(a, 3, 'canceled');
    const line = JSON.parse(await tap.waitFor(/intents not sent in time were dropped/)) as { dropped: number; maxQueueMs: number };
    expect(line).toMatchObject({ dropped: 3, maxQueueMs: 300 });
    expect(a.engine.pipeline.stats.expired).toBe(3);
    // The strategy hears them through its inbox, after the engine's own events.
    await a.engine.delivered();
    expect(s.heard('canceled').sort()).toEqual([...queued].sort());
    for (const id of queued) {
      expect(a.journal.order(id)).toMatchObject({ status: 'canceled' });
      expect(a.journal.history(id).at(-1)!.reason).toBe('not sent within 300 ms (engine.maxQueueMs)');
    }

    // Even a flushing shutdown has nothing left to send: the venue never sees them.
    await a.stop();
    app = undefined;
    const onVenue = new Set(sim!.exchange.orderLog().map((o) => o.clientOrderId));
    expect(onVenue.size).toBe(11);
    for (const id of queued) expect(onVenue.has(id)).toBe(false);
    expect(placeRequests(sim!)).toHaveLength(2);
    expect(tooMany(sim!)).toHaveLength(0);
  });
});
