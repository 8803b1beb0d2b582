import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { chartLibrarySource } from '../../../src/charts/library.js';
import { buildReport, escapeHtml, MAX_CHART_POINTS, MAX_TRADE_ROWS, renderHtml, type ReportInput } from '../../../src/report/index.js';
import type { ReportCharts } from '../../../src/report/chart-data.js';
import { DAY, emptyInput, fill, sample, T0, tradedInput } from './fixtures.js';

const render = (input: ReportInput) => renderHtml(buildReport(input), input);

/** The data the page's charts draw, read back from its JSON element. */
function chartsOf(html: string): ReportCharts {
  const m = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error('no chart data in the page');
  return JSON.parse(m[1]!) as ReportCharts;
}

/** tradedInput with BTCUSDT's and ETHUSDT's prices sampled with the equity. */
function withPrices(): ReportInput {
  const input = tradedInput();
  input.prices = [
    { market: 'spot', symbol: 'BTCUSDT', samples: [0, 1, 2, 3].map((i) => ({ at: T0 + i * DAY, price: d(['100', '110', '105', '120'][i]!) })) },
    { market: 'spot', symbol: 'ETHUSDT', samples: [0, 1, 2, 3].map((i) => ({ at: T0 + i * DAY, price: d(['50', '54', '52', '53'][i]!) })) },
  ];
  return input;
}

describe('renderHtml', () => {
  it('is one self-contained page: the chart library, the chart script and the data inline; nothing loaded from elsewhere', () => {
    const html = render(withPrices());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script[^>]*\bsrc=|<link|<img|@import/i);
    expect(html.match(/url\((?!#)/g)).toBeNull();
    // The one absolute URL in markup is the library's attribution link, which loads nothing.
    expect([...html.matchAll(/\bhref="([^"]*)"/g)].map((m) => m[1])).toEqual(['https://www.tradingview.com/']);
    expect(html).toContain(`<script>${chartLibrarySource()}</script>`);
    expect(html).toContain('TradingView Lightweight Charts');
    expect(html).toContain('const SluiceCharts =');
  });

  it('shows the summary figures and a row per fill with its realised PnL', () => {
    const html = render(tradedInput());
    expect(html).toContain('<td>Final equity</td><td>1089 USDT</td>');
    expect(html).toContain('<td>Win rate (closing fills)</td><td>50.00% (1 of 2)</td>');
    expect(html).toContain('<td>Average exposure</td><td>66.66666667 USDT</td>');
    expect(html).toContain('<td>Max drawdown</td><td>110 USDT (10.00% of peak), trough at 2024-01-03T00:00:00.000Z</td>');
    // The ETH short closed at 54 loses 8; its fee was paid in BNB.
    expect(html).toContain(
      '<tr><td>2024-01-01T00:00:04.000Z</td><td>spot</td><td>ETHUSDT</td><td>BUY</td><td class="num">54</td><td class="num">2</td><td>0.002 BNB</td><td class="num">-8</td></tr>',
    );
    expect(html.match(/<tr><td>2024-/g)).toHaveLength(5);
  });

  it('says in the summary what the run met of the venue troubles its tape recorded, and nothing when it held none', () => {
    const input = emptyInput({ incidents: { onTape: { ban: 1, rate_limit: 3 }, played: { ban: 1, rate_limit: 2 } } });
    expect(render(input)).toContain('<td>Venue troubles the tape recorded</td><td>played 3 of 4 (ban 1/1, rate limit 2/3); 1 never met: the run sent nothing on their endpoint after their time</td>');
    expect(render(emptyInput())).not.toContain('Venue troubles');
  });

  it('says in the summary which strategies were disabled, when and why, and nothing when none was', () => {
    const at = T0 + 90_000;
    const html = render(emptyInput({ disabled: [{ strategy: 'g<1>', at, reason: 'onTick threw: a < b', openOrders: 'cancel' }] }));
    expect(html).toContain(`<tr><td>Strategy disabled</td><td>g&lt;1&gt; was disabled at ${new Date(at).toISOString()} (1.5 min into the run): onTick threw: a &lt; b; its open orders were cancelled (engine.onStrategyFailure)</td></tr>`);
    expect(render(emptyInput())).not.toContain('Strategy disabled');
  });

  it('says in the summary which strategies hit their daily loss limit, the UTC day and the day\'s PnL, and nothing when none did', () => {
    const html = render(emptyInput({ lossLimitHits: [{ strategy: 'g<1>', day: '2024-01-02', pnl: '-10.416666666666666666666666666667' }, { strategy: 'grid', day: '2024-01-03', pnl: '-25' }] }));
    expect(html).toContain("<tr><td>Loss limit hit</td><td>g&lt;1&gt; on 2024-01-02 (UTC), the day&#39;s PnL -10.41666667 USDT: it opened nothing more that day (strategies[].lossLimit)</td></tr>");
    expect(html).toContain("<tr><td>Loss limit hit</td><td>grid on 2024-01-03 (UTC), the day&#39;s PnL -25 USDT: it opened nothing more that day (strategies[].lossLimit)</td></tr>");
    expect(render(emptyInput())).not.toContain('Loss limit');
  });

  it('labels Sharpe with what it is: per sample period under 7 days, annualised from 7 days', () => {
    // tradedInput spans 3 days of daily samples.
    expect(render(tradedInput())).toContain('<td>Sharpe (per 1 day sample, not annualised)</td><td>0.289 (the samples span 3 days; Sharpe is annualised only over 7 days or more)</td>');
    const week = emptyInput({ equity: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => sample(T0 + i * DAY, ['1000', '1010', '1005', '1020', '1015', '1030', '1020', '1040'][i]!)) });
    expect(render(week)).toContain('<td>Sharpe (annualised)</td><td class="num">9.154</td>');
  });

  it('shows money rounded to 8 places: a realised PnL from an average entry, the equity in the charts', () => {
    const input = emptyInput({
      fills: [fill('BUY', '1', '100'), fill('BUY', '2', '100.01'), fill('SELL', '1', '100.02')],
      equity: [sample(T0, '1000'), sample(T0 + DAY, '999.613293329333333333333333333333')],
    });
    const html = render(input);
    // 100.02 - 300.02/3 = 0.0133333333... to 30 places in the book
    expect(html).toContain('<td class="num">100.02</td><td class="num">1</td><td>0 USDT</td><td class="num">0.01333333</td></tr>');
    expect(html).toContain('<td>Realised PnL before fees</td><td>0.01333333 USDT</td>');
    expect(chartsOf(html).equity.points).toEqual([
      { at: T0, value: '1000' },
      { at: T0 + DAY, value: '999.61329333' },
    ]);
    expect(html).not.toMatch(/\d\.\d{9,}/);
  });

  it('draws every sample when there are few: the price of each symbol with its own fills, the equity and the drawdown', () => {
    const html = render(withPrices());
    const charts = chartsOf(html);
    expect(charts.quote).toBe('USDT');
    expect(charts.equity.points).toEqual([
      { at: T0, value: '1000' },
      { at: T0 + DAY, value: '1100' },
      { at: T0 + 2 * DAY, value: '990' },
      { at: T0 + 3 * DAY, value: '1089' },
    ]);
    // Minus the fall from the running peak (seeded with the starting equity).
    expect(charts.drawdown.points.map((p) => p.value)).toEqual(['0', '0', '-110', '-11']);
    expect(charts.prices.map((p) => [p.key, p.points.length, p.fills.map((f) => `${f.side} ${f.volume}@${f.price}`)])).toEqual([
      ['spot:BTCUSDT', 4, ['BUY 1@100', 'SELL 1@110', 'BUY 0.5@120']],
      ['spot:ETHUSDT', 4, ['SELL 2@50', 'BUY 2@54']],
    ]);
    expect(html).toContain('<div id="price-0-legend" class="legend"></div><div id="price-0" class="chart" role="img" aria-label="price spot BTCUSDT"></div>');
    expect(html).toContain('<p class="axis">2024-01-01T00:00:00.000Z to 2024-01-04T00:00:00.000Z; from 100 to 120 USDT; 3 fills marked</p>');
    expect(html).toContain('<p class="axis">2024-01-01T00:00:00.000Z to 2024-01-04T00:00:00.000Z; from 990 to 1100 USDT</p>');
  });

  it('downsamples a long series to MAX_CHART_POINTS, keeping each bucket’s low and high', () => {
    // Equity alternates 1000 / 1001, so every bucket has a distinct low and high, and so does the drawdown (1 / 0).
    const equity = Array.from({ length: 10_000 }, (_, i) => sample(T0 + i * 1000, i % 2 === 0 ? '1000' : '1001'));
    const html = render(emptyInput({ equity }));
    const charts = chartsOf(html);
    expect(charts.equity.points).toHaveLength(MAX_CHART_POINTS);
    expect(charts.equity.total).toBe(10_000);
    expect(charts.drawdown.points).toHaveLength(MAX_CHART_POINTS);
    expect(new Set(charts.equity.points.map((p) => p.value))).toEqual(new Set(['1000', '1001']));
    expect(html).toContain(`${MAX_CHART_POINTS} of 10000 samples drawn`);
  });

  it('a monotonic series keeps one point per bucket where low and high coincide', () => {
    // Rising equity: the drawdown is 0 everywhere, so each of the 1000 buckets keeps one point.
    const equity = Array.from({ length: 10_000 }, (_, i) => sample(T0 + i * 1000, String(1000 + i)));
    const charts = chartsOf(render(emptyInput({ equity })));
    expect(charts.equity.points).toHaveLength(MAX_CHART_POINTS);
    expect(charts.drawdown.points).toHaveLength(MAX_CHART_POINTS / 2);
  });

  it('caps the trades table with a note', () => {
    const fills = Array.from({ length: MAX_TRADE_ROWS + 10 }, (_, i) => fill(i % 2 === 0 ? 'BUY' : 'SELL', '1', '100'));
    const html = render(emptyInput({ fills }));
    expect(html.match(/<tr><td>2024-/g)).toHaveLength(MAX_TRADE_ROWS);
    expect(html).toContain(`Showing the first ${MAX_TRADE_ROWS} of ${MAX_TRADE_ROWS + 10} fills.`);
  });

  it('escapes every text that comes from users or the venue', () => {
    const input = tradedInput();
    input.fills = [fill('BUY', '1', '100', { symbol: '<script>alert(1)</script>USDT' })];
    input.strategies = ['a<b', '"q"'];
    input.tape = 'x&y.jsonl';
    input.limiter = { '<ep>': { requests: 1, limit: 10, peakInWindow: 1, waitedMs: 0 } };
    input.config = { note: '</pre><img src=x>' };
    input.prices = [{ market: 'spot', symbol: '</script><script>alert(2)</script>', samples: [{ at: T0, price: d('1') }] }];
    const html = render(input);
    // The only <script> elements are the four the page itself writes.
    expect(html.match(/<script/g)).toHaveLength(4);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(2)\\u003c/script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<ep>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;USDT');
    expect(html).toContain('strategies: a&lt;b, &quot;q&quot;');
    expect(html).toContain('<title>sluice backtest — x&amp;y.jsonl</title>');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('empty inputs render notes instead of charts and tables, with no NaN and no script', () => {
    const html = render(emptyInput());
    expect(html).toContain('No equity samples: no equity chart.');
    expect(html).toContain('No equity samples: no drawdown chart.');
    expect(html).toContain('No price samples.');
    expect(html).toContain('No fills.');
    expect(html).toContain('<td>Sharpe</td><td>n/a (needs at least 3 equity samples');
    expect(html).not.toMatch(/NaN|Infinity|undefined/);
    expect(html).not.toContain('<script');
  });

  it('a single sample is one point', () => {
    const html = render(emptyInput({ equity: [sample(T0, '1000')] }));
    expect(chartsOf(html).equity.points).toEqual([{ at: T0, value: '1000' }]);
    // The page's own text (the library's code has its NaN checks).
    expect(html.replace(/<script[\s\S]*?<\/script>/g, '')).not.toMatch(/NaN|Infinity/);
  });

  it('is deterministic: two renders are the same bytes', () => {
    expect(render(withPrices())).toBe(render(withPrices()));
    const withZeroStart = () => emptyInput({ startingEquity: d('0'), equity: [sample(T0, '0'), sample(T0 + 1, '0')] });
    expect(render(withZeroStart())).toBe(render(withZeroStart()));
  });
});
