import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics, startOpsServer, STARTING_REASON, type OpsServer } from '../../../src/ops/index.js';
import { FakeSource, NOW } from './fake-source.js';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(source = new FakeSource()) {
  server = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics: createMetrics(source, { now: () => NOW }), now: () => NOW });
  return { source, url: server.url };
}

async function get(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('ops server', () => {
  it('binds to the given host on a free port', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('says starting before reconciliation finished', async () => {
    const source = new FakeSource();
    source.isReady = false;
    const { url } = await start(source);
    const res = await get(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({ status: 'starting', reasons: [STARTING_REASON] });
    expect(STARTING_REASON).toBe('starting: reconciling with the venue');
  });

  it('is ok when ready, not banned, not halted and the venue answers', async () => {
    const { url } = await start();
    const res = await get(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
  });

  it('stays ok in reduce-only and after a ban has ended', async () => {
    const source = new FakeSource();
    source.healthValue = { ...source.healthValue, killSwitch: 'reduce_only', bannedUntil: NOW - 1 };
    const { url } = await start(source);
    expect((await get(`${url}/healthz`)).status).toBe(200);
  });

  it.each([
    ['banned', { bannedUntil: NOW + 60_000 }, [`banned by the venue until ${new Date(NOW + 60_000).toISOString()}`]],
    ['halted', { killSwitch: 'halted' as const }, ['kill switch is halted']],
    ['unreachable', { venueReachable: false }, [`venue unreachable (last answer ${new Date(NOW - 1000).toISOString()})`]],
    ['never reached', { venueReachable: false, lastVenueOkAt: null }, ['venue unreachable (last answer never)']],
    [
      'the journal takes no writes',
      { journalFailure: { since: NOW - 5000, message: 'journal /j.db: recordIntent failed, the disk is full' } },
      [`journal takes no writes since ${new Date(NOW - 5000).toISOString()}, so nothing is placed: journal /j.db: recordIntent failed, the disk is full`],
    ],
  ])('is unhealthy when %s', async (_name, health, reasons) => {
    const source = new FakeSource();
    source.healthValue = { ...source.healthValue, ...health };
    const { url } = await start(source);
    const res = await get(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({ status: 'unhealthy', reasons });
  });

  it('names every reason at once', async () => {
    const source = new FakeSource();
    source.healthValue = { bannedUntil: NOW + 1000, killSwitch: 'halted', venueReachable: false, lastVenueOkAt: null, journalFailure: { since: NOW, message: 'disk full' } };
    const { url } = await start(source);
    const body = JSON.parse((await get(`${url}/healthz`)).body) as { reasons: string[] };
    expect(body.reasons).toHaveLength(4);
    source.isReady = false;
    const starting = JSON.parse((await get(`${url}/healthz`)).body) as { status: string; reasons: string[] };
    expect(starting.status).toBe('starting');
    expect(starting.reasons).toHaveLength(5);
  });

  it('serves Prometheus text, status.json and the page', async () => {
    const { source, url } = await start();
    const metrics = await get(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.body.split('\n')).toContain('sluice_realized_pnl 11.25');

    const status = await get(`${url}/status.json?x=1`);
    expect(status.status).toBe(200);
    expect(JSON.parse(status.body)).toEqual(source.statusValue);

    const page = await get(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).toContain('<table id="positions">');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    // Nothing is loaded from anywhere else: every script is a path on this server (the one
    // absolute URL is the library's attribution link, which loads nothing).
    expect([...page.body.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1])).toEqual(['https://www.tradingview.com/', 'vendor/lightweight-charts.js', 'charts.js', 'dashboard.js']);
    const library = await get(`${url}/vendor/lightweight-charts.js`);
    expect(library.status).toBe(200);
    expect(library.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(library.body).toContain('TradingView Lightweight Charts');
    for (const script of ['charts.js', 'dashboard.js']) expect((await get(`${url}/${script}`)).body).toMatch(/^"use strict";/);
  });

  it('streams the history first, then each new sample with the state of that moment', async () => {
    const source = new FakeSource();
    source.recorder.record({ at: NOW - 1000, prices: { 'spot:BTCUSDT': '30000.5' }, equity: '1000', realized: '0' });
    const { url } = await start(source);
    const res = await fetch(`${url}/events`);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const next = async () => {
      while (!buffer.includes('\n\n')) buffer += (await reader.read()).value ?? '';
      const [event, rest] = [buffer.slice(0, buffer.indexOf('\n\n')), buffer.slice(buffer.indexOf('\n\n') + 2)];
      buffer = rest;
      return JSON.parse(event.replace(/^data: /, '')) as { status: { mode: string }; health: { killSwitch: string }; history: { full: boolean; prices: Record<string, { at: number; value: string }[]>; equity: unknown[] } };
    };
    const first = await next();
    expect(first.status.mode).toBe('paper');
    expect(first.health.killSwitch).toBe('off');
    expect(first.history).toMatchObject({ full: true, prices: { 'spot:BTCUSDT': [{ at: NOW - 1000, value: '30000.5' }] }, equity: [{ at: NOW - 1000, value: '1000' }] });
    source.healthValue = { ...source.healthValue, killSwitch: 'halted' };
    source.recorder.record({ at: NOW, prices: { 'spot:BTCUSDT': '30001' }, equity: '1001.5', realized: '1.5' });
    const second = await next();
    expect(second.health.killSwitch).toBe('halted');
    expect(second.history).toMatchObject({ full: false, prices: { 'spot:BTCUSDT': [{ at: NOW, value: '30001' }] }, equity: [{ at: NOW, value: '1001.5' }] });
    await reader.cancel();
  });

  it('on loopback without a token, answers loopback Host headers only (no DNS rebinding)', async () => {
    const { url } = await start();
    const port = new URL(url).port;
    const asHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        request(`${url}/status.json`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end();
      });
    expect(await asHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await asHost(`localhost:${port}`)).toBe(200);
    expect(await asHost(`evil.example:${port}`)).toBe(403);
  });

  it('with a token: 401 without it, a Bearer header works, /?token= sets a cookie that works, /healthz stays open', async () => {
    const source = new FakeSource();
    const token = 'tok-0123456789abcdef';
    server = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics: createMetrics(source), token });
    const url = server.url;
    for (const path of ['/', '/status.json', '/metrics', '/events', '/dashboard.js']) {
      const res = await get(`${url}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body).toContain('token required');
    }
    expect((await get(`${url}/status.json`, { headers: { authorization: 'Bearer wrong-token-000000' } })).status).toBe(401);
    expect((await get(`${url}/?token=wrong-token-000000`)).status).toBe(401);
    expect((await get(`${url}/status.json`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await get(`${url}/healthz`)).status).toBe(200);

    const signIn = await fetch(`${url}/?token=${token}`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/');
    const cookie = signIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sluice_ops=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(token);
    const page = await get(`${url}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(token);
  });

  it('answers 404 for unknown paths and 405 for other methods', async () => {
    const { url } = await start();
    expect((await get(`${url}/nope`)).status).toBe(404);
    const post = await get(`${url}/healthz`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD with headers and no body', async () => {
    const { url } = await start();
    const { status, length, body } = await new Promise<{ status: number; length: string | undefined; body: string }>((resolve, reject) => {
      const req = request(`${url}/status.json`, { method: 'HEAD' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, length: res.headers['content-length'], body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(Number(length)).toBeGreaterThan(0);
    expect(body).toBe('');
  });

  it('answers 500 without the error text when the source throws, and keeps serving', async () => {
    const source = new FakeSource();
    source.status = () => {
      throw new Error('secret-ish internal detail');
    };
    const warnings: string[] = [];
    const metricsSource = new FakeSource();
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      source,
      metrics: createMetrics(metricsSource),
      log: { warn: (_o, msg) => warnings.push(msg) },
    });
    const res = await get(`${server.url}/status.json`);
    expect(res.status).toBe(500);
    expect(res.body).not.toContain('secret-ish');
    expect(warnings).toEqual(['ops endpoint failed to answer']);
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });

  it('fails to start when the port is taken', async () => {
    const { url } = await start();
    const port = Number(new URL(url).port);
    const source = new FakeSource();
    await expect(startOpsServer({ host: '127.0.0.1', port, source, metrics: createMetrics(source) })).rejects.toThrow(/EADDRINUSE/);
  });
});
