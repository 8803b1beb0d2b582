// The live dashboard in real headless Chromium (Debian's /usr/bin/chromium, installed by
// .ci/run), fed by a hand-written source: charts, tables and bars appear from the event
// stream, a new sample updates them, hostile values stay text, nothing is fetched from
// anywhere but the daemon, a token guards it when set, and a screenshot is taken.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, startOpsServer, type OpsServer } from '../../src/ops/index.js';
import { FakeSource, NOW } from '../unit/ops/fake-source.js';

const CHROMIUM = '/usr/bin/chromium';
// This machine's network is closed: without these Chromium keeps dialling Google's hosts.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const rows = (page: Page, table: string) =>
  page.locator(`#${table} tbody tr`).evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td: { textContent: string | null }) => td.textContent)));
const attr = (page: Page, selector: string, name: string) => page.locator(selector).getAttribute(name);

/** Two minutes of samples a second apart, the price walking up a cent a second. */
function seed(source: FakeSource): void {
  for (let i = 120; i >= 1; i--) {
    const at = NOW - i * 1000;
    source.recorder.record({ at, prices: { 'spot:BTCUSDT': (30000 + (120 - i) / 100).toFixed(2), 'futures:E-ETH-USDT': '2000.5' }, equity: String(10000 + (120 - i)), realized: '11.25' });
  }
}

describe('ops dashboard in Chromium', () => {
  const source = new FakeSource();
  source.statusValue.openOrders.push({ ...source.statusValue.openOrders[0]!, clientOrderId: HOSTILE, price: undefined, type: 'MARKET' });
  source.statusValue.strategies.push({ id: 'evil', enabled: false, disabledReason: HOSTILE });
  seed(source);
  let server: OpsServer;
  let context: BrowserContext;
  let profile: string;
  let page: Page;
  const problems: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    // A missing browser is a failure, not a skip: CI installs it, and a skip would read as a pass.
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
    server = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics: createMetrics(source) });
    profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 1800 } });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-updates="1"]');
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('draws a price chart per symbol with our open orders as lines and our fills as markers, and the equity chart', async () => {
    expect(await page.locator('#prices section.symbol').evaluateAll((s) => s.map((e) => (e as unknown as { dataset: { key: string } }).dataset.key))).toEqual(['spot:BTCUSDT', 'futures:E-ETH-USDT']);
    const btc = '#prices section[data-key="spot:BTCUSDT"]';
    expect(await attr(page, btc, 'data-points')).toBe('120');
    // The limit order is a line; the market order has no price to draw.
    expect(await attr(page, btc, 'data-lines')).toBe('1');
    expect(await attr(page, btc, 'data-markers')).toBe('2');
    expect(await attr(page, '#prices section[data-key="futures:E-ETH-USDT"]', 'data-markers')).toBe('0');
    expect(await page.locator(`${btc} canvas`).count()).toBeGreaterThan(0);
    // The legend shows the latest value when the pointer is elsewhere, at the series' precision.
    expect(await page.locator(`${btc} .legend`).textContent()).toBe(`${new Date(NOW - 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC · last 30001.19`);
    expect(await attr(page, '#equity-chart', 'data-points')).toBe('120');
    expect(await page.locator('#equity-legend').textContent()).toMatch(/ · equity 10119\.00 · realised PnL after fees 11\.2500$/);
  });

  it('lists open orders with their age, the latest fills, strategies, alerts, and limiter bars for the endpoints in use only', async () => {
    expect((await rows(page, 'orders'))[0]).toEqual(['2 min 5 s', 'BTCUSDT', 'BUY', '29950', '0.01', '0', 'open', 'grid-1', 'grid-1-000042']);
    expect(await rows(page, 'fills')).toEqual([
      ['03:03:45', 'BTCUSDT', 'BUY', '29950', '0.01', '0.0299 USDT', 'maker'],
      ['03:03:25', 'BTCUSDT', 'SELL', '30010.5', '0.01', '0.06 USDT', 'taker'],
    ]);
    expect((await rows(page, 'strategies')).slice(0, 2)).toEqual([
      ['grid-1', 'running', ''],
      ['broken', 'disabled', 'threw in onTick'],
    ]);
    expect(await rows(page, 'alerts')).toEqual([['03:04:00', 'halt', 'trading halted by SIGUSR2: no new orders until it is lifted (cancels still pass)']]);
    expect(await page.locator('#kill').textContent()).toBe('off');
    expect(await page.locator('#mode').textContent()).toBe('paper');
    expect(await page.locator('#realized').textContent()).toBe('11.25');
    // futures.order has a limit but sent nothing: not in use, no bar.
    expect(await page.locator('#limiter .bar').evaluateAll((b) => b.map((e) => (e as unknown as { dataset: { endpoint: string } }).dataset.endpoint))).toEqual(['spot.order', 'spot.openOrders']);
    expect(await page.locator('#limiter .bar[data-endpoint="spot.order"] .fill').getAttribute('style')).toBe('width: 7%;');
    expect(await page.locator('#limiter .bar[data-endpoint="spot.order"] .figure').textContent()).toBe('7 / 100 per 2 s, 3 queued');
    expect(await rows(page, 'drift')).toEqual([['spot', 'BTCUSDT', '0.5', '0.4', '0.1']]);
    // Fees say the whole cost: the quote's and, beside them, a spot buy's fee taken in BTC.
    expect(await page.locator('#fees').textContent()).toBe('0.85 + 0.0005 BTC');
    expect((await rows(page, 'positions')).map((r) => r[5])).toEqual(['0.75 + 0.0005 BTC', '0.1']);
    // The CSP allows our scripts and style, and the library runs under it without complaint.
    expect(problems).toEqual([]);
  });

  it('shows a value containing <script> as text, never as markup', async () => {
    expect((await rows(page, 'orders'))[1]![8]).toBe(HOSTILE);
    expect((await rows(page, 'strategies'))[2]).toEqual(['evil', 'disabled', HOSTILE]);
    expect(await page.locator('table script, table img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('updates live: a new sample moves the charts and brings the new state (a fill, a halt)', async () => {
    const fill = { tradeId: '9002', market: 'spot', symbol: 'BTCUSDT', side: 'SELL', price: '30002', volume: '0.01', fee: '0.06', feeAsset: 'USDT', isMaker: true, time: NOW + 500 };
    source.statusValue = { ...source.statusValue, now: NOW + 1000, fills: [fill, ...source.statusValue.fills], pnl: { realized: '12.05', fees: '0.91', feesOther: { BTC: '0.0005' } } };
    source.healthValue = { ...source.healthValue, killSwitch: 'halted' };
    source.recorder.record({ at: NOW + 1000, prices: { 'spot:BTCUSDT': '30002.5' }, equity: '10121', realized: '11.14' });
    await page.waitForSelector('body[data-updates="2"]');
    const btc = '#prices section[data-key="spot:BTCUSDT"]';
    expect(await attr(page, btc, 'data-points')).toBe('121');
    expect(await attr(page, btc, 'data-markers')).toBe('3');
    expect(await page.locator(`${btc} .legend`).textContent()).toMatch(/ · last 30002\.50$/);
    expect((await rows(page, 'fills'))[0]).toEqual(['03:04:05', 'BTCUSDT', 'SELL', '30002', '0.01', '0.06 USDT', 'maker']);
    expect((await rows(page, 'orders'))[0]![0]).toBe('2 min 6 s');
    expect(await page.locator('#kill').textContent()).toBe('halted');
    expect(await page.locator('#realized').textContent()).toBe('12.05');
    expect(problems).toEqual([]);
  });

  it('loads nothing from anywhere but the daemon, and a screenshot shows it', async () => {
    const origin = new URL(server.url).origin;
    expect(requested.length).toBeGreaterThanOrEqual(5); // the page, three scripts, the event stream
    expect(requested.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'sluice-dashboard-'));
    try {
      const file = join(dir, 'dashboard.png');
      await page.screenshot({ path: file, fullPage: true });
      const png = readFileSync(file);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.length).toBeGreaterThan(10_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ops dashboard behind a token, in Chromium', () => {
  it('refuses the page without the token; /?token= signs the browser in and the page streams', async () => {
    const source = new FakeSource();
    seed(source);
    const token = 'dashboard-token-0123456789';
    const server = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics: createMetrics(source), token });
    const profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      expect((await page.goto(`${server.url}/`))!.status()).toBe(401);
      const signedIn = await page.goto(`${server.url}/?token=${token}`);
      expect(signedIn!.status()).toBe(200);
      expect(page.url()).toBe(`${server.url}/`);
      await page.waitForSelector('body[data-updates="1"]');
      expect(await attr(page, '#prices section[data-key="spot:BTCUSDT"]', 'data-points')).toBe('120');
      expect(await page.content()).not.toContain(token);
    } finally {
      await context.close();
      await server.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
