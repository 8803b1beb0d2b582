import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Alerts, CLOSE_BOUND_MS, closedLine, HELD_LISTED, RECENT_ALERTS, type AlertBody, type AlertsClosed } from '../../../src/ops/index.js';

const SECRET = 'sk_live_9f8e7d6c5b4a';
const KEY = 'ak-1234567890';

function recorder() {
  const posts: { url: string; body: AlertBody }[] = [];
  return { posts, post: async (url: string, body: string) => void posts.push({ url, body: JSON.parse(body) as AlertBody }) };
}

function captureLog() {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  let notify: () => void = () => {};
  const next = () => new Promise<void>((resolve) => (notify = resolve));
  return { warnings, next, log: { warn: (obj: object, msg: string) => (warnings.push({ obj: obj as Record<string, unknown>, msg }), notify()) } };
}

describe('Alerts', () => {
  it('limits each kind and subject to one POST per interval; a second subject is sent at once, and what was held back goes out as one summary when the interval ends, with no later alert', async () => {
    const clock = new ManualClock(1_000_000);
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 60_000, now: () => clock.now(), sleep: (ms) => clock.sleep(ms), post });
    alerts.send('plugin_disabled', 'strategy a was disabled', { strategy: 'a', openOrders: 2 });
    await clock.advance(1_000);
    alerts.send('plugin_disabled', 'strategy b was disabled', { strategy: 'b', openOrders: 0 }); // another subject
    alerts.send('plugin_disabled', 'strategy a was disabled again', { strategy: 'a', openOrders: 1 });
    await clock.advance(1_000);
    alerts.send('plugin_disabled', 'strategy a, third time', { strategy: 'a', openOrders: 0 });
    alerts.send('ban', 'banned', { until: 5 }); // another kind has its own budget
    await clock.advance(57_999); // 59,999 ms after the first: still inside
    await alerts.idle();
    expect(posts.map((p) => [p.body.kind, p.body.message, p.body.suppressed, p.body.at - 1_000_000])).toEqual([
      ['plugin_disabled', 'strategy a was disabled', 0, 0],
      ['plugin_disabled', 'strategy b was disabled', 0, 1_000],
      ['ban', 'banned', 0, 2_000],
    ]);

    await clock.advance(1); // exactly one interval after a's first: its summary, though nothing else came
    await alerts.idle();
    expect(posts.slice(3).map((p) => p.body)).toEqual([
      {
        kind: 'plugin_disabled',
        message: '2 more plugin_disabled alerts held back: strategy a was disabled again | strategy a, third time',
        details: {
          strategy: 'a',
          heldBack: [
            { message: 'strategy a was disabled again', at: 1_001_000, details: { strategy: 'a', openOrders: 1 } },
            { message: 'strategy a, third time', at: 1_002_000, details: { strategy: 'a', openOrders: 0 } },
          ],
        },
        at: 1_060_000,
        suppressed: 2,
      },
    ]);

    // The summary counts as a's POST: the next alert of a waits for its own summary; b's does not.
    await clock.advance(1_000);
    alerts.send('plugin_disabled', 'strategy a, fourth time', { strategy: 'a' });
    alerts.send('plugin_disabled', 'strategy b, again', { strategy: 'b' });
    await clock.advance(120_000);
    await alerts.idle();
    expect(posts.slice(4).map((p) => [p.body.message, p.body.suppressed, p.body.at - 1_000_000])).toEqual([
      ['strategy b, again', 0, 61_000],
      ['1 more plugin_disabled alert held back: strategy a, fourth time', 1, 120_000],
    ]);
    expect(clock.pending()).toBe(0);
  });

  it('an alert held by a summary that a send made just before the timer woke still gets a summary of its own', async () => {
    const clock = new ManualClock(0);
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 60_000, now: () => clock.now(), sleep: (ms) => clock.sleep(ms), post });
    alerts.send('drift', 'drift 1', {});
    alerts.send('drift', 'drift 2', {});
    clock.moveTo(60_000); // the timer is due but has not woken
    alerts.send('drift', 'drift 3', {}); // its send summarises drift 2, and drift 3 is held
    await clock.advance(0);
    await clock.advance(60_000);
    await alerts.idle();
    expect(posts.map((p) => [p.body.message, p.body.at])).toEqual([
      ['drift 1', 0],
      ['1 more drift alert held back: drift 2', 60_000],
      ['1 more drift alert held back: drift 3', 120_000],
    ]);
    expect(clock.pending()).toBe(0);
  });

  it('without a sleep, sends a due summary with the next alert of any kind, and close() sends what is still held at once', async () => {
    let now = 0;
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 60_000, now: () => now, post });
    alerts.send('drift', 'drift 1', {});
    alerts.send('drift', 'drift 2', {});
    alerts.send('halt', 'halted by SIGUSR2', { by: 'SIGUSR2' });
    alerts.send('halt', 'halted by SIGUSR2 again', { by: 'SIGUSR2' });
    now = 60_000;
    alerts.send('recording', 'tape failed', { tape: '/t' });
    await alerts.idle();
    expect(posts.map((p) => [p.body.kind, p.body.message, p.body.suppressed])).toEqual([
      ['drift', 'drift 1', 0],
      ['halt', 'halted by SIGUSR2', 0],
      ['drift', '1 more drift alert held back: drift 2', 1],
      ['halt', '1 more halt alert held back: halted by SIGUSR2 again', 1],
      ['recording', 'tape failed', 0],
    ]);
    now = 61_000;
    alerts.send('recording', 'tape failed again', { tape: '/t' });
    expect(await alerts.close()).toEqual({ webhook: true, failed: 0, undelivered: 0, boundMs: CLOSE_BOUND_MS });
    expect(posts.slice(5).map((p) => [p.body.message, p.body.details, p.body.at])).toEqual([
      ['1 more recording alert held back: tape failed again', { tape: '/t', heldBack: [{ message: 'tape failed again', at: 61_000, details: { tape: '/t' } }] }, 61_000],
    ]);
  });

  it('counts every alert held back and lists the first HELD_LISTED', async () => {
    let now = 0;
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 1_000, now: () => now, post });
    for (let i = 0; i <= HELD_LISTED + 5; i++) alerts.send('drift', `drift ${i}`, { symbol: 'BTCUSDT' });
    await alerts.close();
    const summary = posts[1]!.body;
    expect(summary.suppressed).toBe(HELD_LISTED + 5);
    expect((summary.details.heldBack as unknown[]).length).toBe(HELD_LISTED);
    expect(summary.message).toBe(`${HELD_LISTED + 5} more drift alerts held back: ${Array.from({ length: HELD_LISTED }, (_, i) => `drift ${i + 1}`).join(' | ')} | and 5 more not listed`);
    expect(summary.details.symbol).toBe('BTCUSDT');
  });

  it('close() waits for delivery at most its bound on the injected clock', async () => {
    const clock = new ManualClock(0);
    let posted = 0;
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => clock.now(), sleep: (ms) => clock.sleep(ms), post: () => ((posted++), new Promise<void>(() => {})) });
    alerts.send('halt', 'halted', {});
    let closed: AlertsClosed | undefined;
    void alerts.close(5_000).then((c) => (closed = c));
    await clock.advance(4_999);
    expect([posted, closed]).toEqual([1, undefined]);
    await clock.advance(1);
    expect(closed).toEqual({ webhook: true, failed: 0, undelivered: 1, boundMs: 5_000 });
  });

  it('a webhook receiver that never answers: close() ends at its bound on the injected clock and the stop\'s line says at warn how many alerts were not delivered, not that they were', async () => {
    const arrived: IncomingMessage[] = [];
    let arrival!: () => void;
    const first = new Promise<void>((resolve) => (arrival = resolve));
    // Takes the request and never answers.
    const server = createServer((req) => (arrived.push(req), arrival()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const clock = new ManualClock(0);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const alerts = new Alerts({ webhookUrl: url, minIntervalMs: 60_000, now: () => clock.now(), sleep: (ms) => clock.sleep(ms) });
      alerts.send('stop_unsettled', 'sluice stopped with 2 orders of ours resting', { symbol: 'BTCUSDT' });
      alerts.send('stop_unsettled', 'held back until close', { symbol: 'BTCUSDT' });
      await first;
      let closed: AlertsClosed | undefined;
      const closing = alerts.close().then((c) => (closed = c));
      await clock.advance(CLOSE_BOUND_MS - 1);
      expect(closed).toBeUndefined();
      await clock.advance(1);
      await closing;
      // The alert and the summary close() sent of the one held back: both still unanswered.
      expect(closed).toEqual({ webhook: true, failed: 0, undelivered: 2, boundMs: CLOSE_BOUND_MS });
      expect(closedLine(closed!, true)).toEqual({
        level: 'warn',
        fields: { undelivered: 2, failed: 0, boundMs: CLOSE_BOUND_MS },
        msg: `ops endpoint closed; 2 alerts not delivered within the ${CLOSE_BOUND_MS} ms bound: exiting without them`,
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('the stop\'s line says delivered only when every alert was, and counts those that failed', async () => {
    const { log, warnings } = captureLog();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => 0, log, post: async () => Promise.reject(new Error('webhook answered HTTP 500')) });
    alerts.send('halt', 'halted', {});
    const closed = await alerts.close();
    expect(closed).toEqual({ webhook: true, failed: 1, undelivered: 0, boundMs: CLOSE_BOUND_MS });
    expect(warnings.map((w) => w.msg)).toEqual(['alert not delivered']);
    expect(closedLine(closed, true)).toMatchObject({ level: 'warn', msg: "ops endpoint closed; 1 alert failed to deliver during the run (each logged as 'alert not delivered')" });
    expect(closedLine({ webhook: true, failed: 1, undelivered: 1, boundMs: 10_000 }, true).msg).toBe("ops endpoint closed; 1 alert not delivered within the 10000 ms bound: exiting without it; 1 alert failed to deliver during the run (each logged as 'alert not delivered')");
    expect(closedLine({ webhook: true, failed: 0, undelivered: 0, boundMs: 10_000 }, true)).toEqual({ level: 'info', fields: {}, msg: 'ops endpoint closed and every alert delivered' });
  });

  it('counts an alert that failed long before the stop, and says so without an ops endpoint too', async () => {
    const { log } = captureLog();
    let fail = true;
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => 0, log, post: async () => (fail ? Promise.reject(new Error('connect ECONNREFUSED')) : undefined) });
    alerts.send('exit', 'stop loss', { strategy: 'a' });
    await alerts.idle();
    fail = false;
    alerts.send('halt', 'halted', {});
    const closed = await alerts.close();
    expect(closed).toEqual({ webhook: true, failed: 1, undelivered: 0, boundMs: CLOSE_BOUND_MS });
    expect(closedLine(closed, false)).toEqual({ level: 'warn', fields: { undelivered: 0, failed: 1, boundMs: CLOSE_BOUND_MS }, msg: "stopped; 1 alert failed to deliver during the run (each logged as 'alert not delivered')" });
  });

  it('without a webhook, the stop says none was sent rather than that they were delivered', async () => {
    const alerts = new Alerts({ webhookUrl: null, minIntervalMs: 0, now: () => 0 });
    alerts.send('halt', 'halted', {});
    const closed = await alerts.close();
    expect(closed).toEqual({ webhook: false, failed: 0, undelivered: 0, boundMs: CLOSE_BOUND_MS });
    expect(closedLine(closed, true).msg).toBe('ops endpoint closed; no alert webhook set (alerts.webhookUrl), so no alert was sent');
    expect(closedLine(closed, false).msg).toBe('stopped; no alert webhook set (alerts.webhookUrl), so no alert was sent');
  });

  it('does nothing without a webhook URL', async () => {
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: null, minIntervalMs: 0, now: () => 0, post });
    alerts.send('halt', 'halted', {});
    await alerts.idle();
    expect(posts).toEqual([]);
  });

  it('keeps the latest alerts for the dashboard, webhook or not, newest first, secrets scrubbed, at most RECENT_ALERTS', () => {
    let t = 0;
    const alerts = new Alerts({ webhookUrl: null, minIntervalMs: 60_000, now: () => t, secrets: ['hunter22'] });
    alerts.send('halt', 'halted by SIGUSR2');
    t = 5;
    // Within minIntervalMs: a webhook would fold it away, the dashboard still lists it.
    alerts.send('halt', 'halted again, key hunter22');
    expect(alerts.recent()).toEqual([
      { kind: 'halt', message: 'halted again, key [REDACTED]', at: 5 },
      { kind: 'halt', message: 'halted by SIGUSR2', at: 0 },
    ]);
    for (let i = 0; i < RECENT_ALERTS + 5; i++) alerts.send('drift', `drift ${i}`);
    expect(alerts.recent()).toHaveLength(RECENT_ALERTS);
    expect(alerts.recent()[0]!.message).toBe(`drift ${RECENT_ALERTS + 4}`);
  });

  it('scrubs the secrets wherever they occur in the body', async () => {
    const { posts, post } = recorder();
    const quoted = 'se"cr\\et';
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => 1, post, secrets: [SECRET, KEY, quoted, 'abc'] });
    alerts.send('plugin_disabled', `plugin echoed ${SECRET}`, { headers: { 'X-CH-APIKEY': KEY }, nested: [`x${SECRET}y`], odd: quoted, short: 'abc' });
    await alerts.idle();
    const text = JSON.stringify(posts[0]!.body);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('cr\\\\et');
    expect(posts[0]!.body.message).toBe('plugin echoed [REDACTED]');
    expect(posts[0]!.body.details).toEqual({ headers: { 'X-CH-APIKEY': '[REDACTED]' }, nested: ['x[REDACTED]y'], odd: '[REDACTED]', short: 'abc' });
  });

  it('never throws into the caller: a failing receiver is logged, a bad detail is survived', async () => {
    const { warnings, next, log } = captureLog();
    const alerts = new Alerts({
      webhookUrl: 'https://hooks.test/services/T0KEN/abc',
      minIntervalMs: 0,
      now: () => 1,
      log,
      secrets: [SECRET],
      post: async () => {
        throw new Error(`receiver down, it said ${SECRET}`);
      },
    });
    const logged = next();
    expect(() => alerts.send('halt', 'halted', {})).not.toThrow();
    await logged;
    await alerts.idle();
    expect(warnings).toEqual([{ msg: 'alert not delivered', obj: { alert: 'halt', webhook: 'https://hooks.test', error: 'receiver down, it said [REDACTED]' } }]);

    const throwingSync = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => 1, log, post: () => { throw new Error('sync boom'); } });
    expect(() => throwingSync.send('ban', 'b', {})).not.toThrow();
    await throwingSync.idle();
    expect(warnings.at(-1)!.obj.error).toBe('sync boom');

    const { posts, post } = recorder();
    const tolerant = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 0, now: () => 1, post, log });
    const cycle: Record<string, unknown> = { n: 10n };
    cycle.self = cycle;
    expect(() => tolerant.send('drift', 'cyclic', { cycle, err: new Error('why') })).not.toThrow();
    await tolerant.idle();
    expect(posts[0]!.body.details).toEqual({ cycle: { n: '10', self: '[circular]' }, err: { name: 'Error', message: 'why' } });
  });

  it('POSTs JSON to a real receiver with the default client, and logs a non-2xx answer', async () => {
    const received: { method: string; type: string | undefined; body: AlertBody }[] = [];
    let status = 204;
    let onRequest: () => void = () => {};
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, type: req.headers['content-type'], body: JSON.parse(body) as AlertBody });
        res.writeHead(status).end();
        onRequest();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const { warnings, log } = captureLog();
      const alerts = new Alerts({ webhookUrl: url, minIntervalMs: 0, now: () => 42, log });
      const got = new Promise<void>((resolve) => (onRequest = resolve));
      alerts.send('ban', 'banned until later', { untilMs: 99 });
      await got;
      await alerts.idle();
      expect(received).toEqual([{ method: 'POST', type: 'application/json', body: { kind: 'ban', message: 'banned until later', details: { untilMs: 99 }, at: 42, suppressed: 0 } }]);
      expect(warnings).toEqual([]);

      status = 500;
      alerts.send('halt', 'halted', {});
      await alerts.idle();
      expect(received).toHaveLength(2);
      expect(warnings.map((w) => w.obj.error)).toEqual(['webhook answered HTTP 500']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
