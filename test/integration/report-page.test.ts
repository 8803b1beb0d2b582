// report.html in real headless Chromium, opened from disk with no server: the price chart with
// the fills marked, the equity and the drawdown are drawn by the inlined lightweight-charts,
// hovering a chart shows the values under the pointer, nothing is requested but the file itself,
// and a screenshot is taken.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { renderHtml } from '../../src/report/index.js';
import { loadStrategies } from '../../src/strategy/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('report.html in Chromium, offline', () => {
  let dir: string;
  let file: string;
  let fills: number;
  let context: BrowserContext;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
    const { config } = await parseConfig('mode: paper\nsim: { seed: 7 }\nstrategies:\n  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.01" } }\n', { env: {} });
    const strategies = await loadStrategies(config.strategies, ROOT);
    // Ten minutes of the simulator's own market, an equity sample every 10 s.
    const run = await runBacktest({ config, strategies, log: createLogger({ level: 'fatal', pretty: false, secrets: [] }), durationMs: 600_000, startAt: Date.UTC(2026, 0, 1) });
    fills = run.report.trades.fills;
    dir = mkdtempSync(join(tmpdir(), 'sluice-report-'));
    file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(run.report, run.input));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1200, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('draws the price with its fills, the equity and the drawdown; hover shows values; loads nothing; screenshot', async () => {
    expect(fills).toBeGreaterThan(0);
    const page = context.pages()[0] ?? (await context.newPage());
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-charts="3"]');
    for (const id of ['price-0', 'equity-chart', 'drawdown-chart']) expect(await page.locator(`#${id} canvas`).count(), id).toBeGreaterThan(0);
    expect(await page.locator('#price-0').getAttribute('aria-label')).toBe('price spot BTCUSDT');
    expect(await page.locator('p.axis').first().textContent()).toMatch(new RegExp(`; ${fills} fills marked$`));

    // Away from the chart the legend shows the last values; over it, the values at the pointer.
    const legend = page.locator('#equity-chart-legend');
    const last = await legend.textContent();
    expect(last).toMatch(/^2026-01-01 00:10:00 UTC · equity [\d.]+ USDT$/);
    await page.locator('#equity-chart').scrollIntoViewIfNeeded();
    const box = (await page.locator('#equity-chart').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2, { steps: 5 });
    await page.locator('#equity-chart-legend', { hasText: /^2026-01-01 00:0\d:\d0 UTC · equity [\d.]+ USDT$/ }).waitFor();

    expect(requested).toEqual([pathToFileURL(file).href]);
    expect(problems).toEqual([]);
    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.length).toBeGreaterThan(10_000);
  });
});
