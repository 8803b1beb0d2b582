// The live status page in real headless Chromium (Debian's /usr/bin/chromium, installed by
// .ci/run): it must render the source's tables and show hostile values as text.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, startOpsServer, type OpsServer } from '../../src/ops/index.js';
import { FakeSource } from '../unit/ops/fake-source.js';

const CHROMIUM = '/usr/bin/chromium';
// This machine's network is closed: without these Chromium keeps dialling Google's hosts.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

const rows = (page: Page, table: string) =>
  page.locator(`#${table} tbody tr`).evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td: { textContent: string | null }) => td.textContent)));

describe('ops status page in Chromium', () => {
  const source = new FakeSource();
  source.statusValue.openOrders.push({ ...source.statusValue.openOrders[0]!, clientOrderId: HOSTILE, price: undefined, type: 'MARKET' });
  source.statusValue.strategies.push({ id: 'evil', enabled: false, disabledReason: HOSTILE });
  let server: OpsServer;
  let context: BrowserContext;
  let profile: string;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // A missing browser is a failure, not a skip: CI installs it, and a skip would read as a pass.
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
    server = await startOpsServer({ host: '127.0.0.1', port: 0, source, metrics: createMetrics(source) });
    profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    await page.goto(`${server.url}/`);
    await page.waitForSelector('body[data-updates="1"]');
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('renders positions, orders, PnL, limiter, strategies and drift from status.json', async () => {
    expect(await rows(page, 'positions')).toEqual([
      ['spot', 'BTCUSDT', '0.5', '30000.1', '12.5', '0.75'],
      ['futures', 'E-ETH-USDT', '-2', '2000', '-1.25', '0.1'],
    ]);
    expect((await rows(page, 'orders'))[0]).toEqual(['grid-1-000042', 'grid-1', 'spot', 'BTCUSDT', 'BUY', 'LIMIT', '29950', '0.01', '0', 'open']);
    expect(await page.locator('#realized').textContent()).toBe('11.25');
    expect(await page.locator('#fees').textContent()).toBe('0.85');
    expect(await page.locator('#mode').textContent()).toBe('paper');
    expect(await rows(page, 'limiter')).toEqual([
      ['spot.order', '7', '100', '3'],
      ['spot.openOrders', '2', '20', '0'],
    ]);
    expect((await rows(page, 'strategies')).slice(0, 2)).toEqual([
      ['grid-1', 'true', ''],
      ['broken', 'false', 'threw in onTick'],
    ]);
    expect(await rows(page, 'drift')).toEqual([['spot', 'BTCUSDT', '0.5', '0.4', '0.1']]);
    // The CSP hashes match the inline script and style, or Chromium would have said so here.
    expect(problems).toEqual([]);
  });

  it('shows a value containing <script> as text, never as markup', async () => {
    expect((await rows(page, 'orders'))[1]![0]).toBe(HOSTILE);
    expect((await rows(page, 'strategies'))[2]).toEqual(['evil', 'false', HOSTILE]);
    expect(await page.locator('table script, table img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('follows the daemon: the next poll shows new values', async () => {
    source.statusValue = { ...source.statusValue, positions: [{ ...source.statusValue.positions[0]!, quantity: '0.75' }], drift: [] };
    // A locator, not waitForFunction with a string: the page's CSP rightly forbids eval.
    await page.locator('#positions tbody td:nth-child(3)', { hasText: /^0\.75$/ }).waitFor();
    expect(await rows(page, 'positions')).toEqual([['spot', 'BTCUSDT', '0.75', '30000.1', '12.5', '0.75']]);
    expect(await rows(page, 'drift')).toEqual([['none']]);
  });
});
