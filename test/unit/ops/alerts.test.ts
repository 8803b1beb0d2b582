import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Alerts, RECENT_ALERTS, type AlertBody } from '../../../src/ops/index.js';

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
  it('sends at most one alert per kind per interval and reports the suppressed count with the next', async () => {
    let now = 1_000_000;
    const { posts, post } = recorder();
    const alerts = new Alerts({ webhookUrl: 'http://hooks.test/a', minIntervalMs: 60_000, now: () => now, post });
    alerts.send('drift', 'drift 1', { symbol: 'BTCUSDT' });
    now += 1_000;
    alerts.send('drift', 'drift 2', {});
    alerts.send('drift', 'drift 3', {});
    alerts.send('ban', 'banned', { until: 5 }); // another kind has its own budget
    now += 58_999; // 59,999 ms after the first: still inside
    alerts.send('drift', 'drift 4', {});
    now += 1; // exactly one interval after the first
    alerts.send('drift', 'drift 5', {});
    now += 1;
    alerts.send('drift', 'drift 6', {});
    await alerts.idle();

    expect(posts.map((p) => [p.body.kind, p.body.message, p.body.suppressed])).toEqual([
      ['drift', 'drift 1', 0],
      ['ban', 'banned', 0],
      ['drift', 'drift 5', 3],
    ]);
    expect(posts[0]).toEqual({ url: 'http://hooks.test/a', body: { kind: 'drift', message: 'drift 1', details: { symbol: 'BTCUSDT' }, at: 1_000_000, suppressed: 0 } });
    expect(posts[2]!.body.at).toBe(1_060_000);
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
