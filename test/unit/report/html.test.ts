import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { buildReport, escapeHtml, MAX_CHART_POINTS, MAX_TRADE_ROWS, renderHtml, type ReportInput } from '../../../src/report/index.js';
import { emptyInput, fill, sample, T0, tradedInput } from './fixtures.js';

const render = (input: ReportInput) => renderHtml(buildReport(input), input);

function polylinePoints(html: string, chart: 'equity' | 'drawdown'): string[] {
  const svg = new RegExp(`<svg id="${chart}-chart"[^>]*>\\n<polyline [^>]*points="([^"]*)"`).exec(html);
  if (!svg) throw new Error(`no ${chart} chart in the page`);
  return svg[1]!.split(' ');
}

describe('renderHtml', () => {
  it('is one self-contained page: no scripts, external styles, fonts or images', () => {
    const html = render(tradedInput());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|src=/i);
    expect(html).toContain('<style>');
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

  it('draws every sample when there are few', () => {
    const html = render(tradedInput());
    const equity = polylinePoints(html, 'equity');
    expect(equity).toHaveLength(4);
    // 4 px padding on a 900 x 220 box: x = 4 + 892 x day/3; the highest (1100) at the top, the lowest (990) at the bottom.
    expect(equity[0]).toMatch(/^4\.00,/);
    expect(equity[1]).toBe('301.33,4.00');
    expect(equity[2]).toBe('598.67,216.00');
    expect(equity[3]).toMatch(/^896\.00,/);
    expect(polylinePoints(html, 'drawdown')).toHaveLength(4);
  });

  it('downsamples a long series to MAX_CHART_POINTS, keeping each bucket’s low and high', () => {
    // Equity alternates 1000 / 1001, so every bucket has a distinct low and high, and so does the drawdown (1 / 0).
    const equity = Array.from({ length: 10_000 }, (_, i) => sample(T0 + i * 1000, i % 2 === 0 ? '1000' : '1001'));
    const html = render(emptyInput({ equity }));
    expect(polylinePoints(html, 'equity')).toHaveLength(MAX_CHART_POINTS);
    expect(polylinePoints(html, 'drawdown')).toHaveLength(MAX_CHART_POINTS);
    expect(html).toContain(`${MAX_CHART_POINTS} of 10000 samples drawn`);
  });

  it('a monotonic series keeps one point per bucket where low and high coincide', () => {
    // Rising equity: the drawdown is 0 everywhere, so each of the 1000 buckets keeps one point.
    const equity = Array.from({ length: 10_000 }, (_, i) => sample(T0 + i * 1000, String(1000 + i)));
    const html = render(emptyInput({ equity }));
    expect(polylinePoints(html, 'equity')).toHaveLength(MAX_CHART_POINTS);
    expect(polylinePoints(html, 'drawdown')).toHaveLength(MAX_CHART_POINTS / 2);
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
    const html = render(input);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<ep>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;USDT');
    expect(html).toContain('strategies: a&lt;b, &quot;q&quot;');
    expect(html).toContain('<title>sluice backtest — x&amp;y.jsonl</title>');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('empty inputs render notes instead of charts and tables, with no NaN', () => {
    const html = render(emptyInput());
    expect(html).toContain('No equity samples: no equity chart.');
    expect(html).toContain('No fills.');
    expect(html).toContain('<td>Sharpe (annualised)</td><td>n/a (needs at least 3 equity samples');
    expect(html).not.toMatch(/NaN|Infinity|undefined/);
  });

  it('a single sample is drawn as one point in the middle', () => {
    const html = render(emptyInput({ equity: [sample(T0, '1000')] }));
    expect(polylinePoints(html, 'equity')).toEqual(['450.00,110.00']);
    expect(html).not.toMatch(/NaN|Infinity/);
  });

  it('is deterministic: two renders are the same bytes', () => {
    expect(render(tradedInput())).toBe(render(tradedInput()));
    const withZeroStart = () => emptyInput({ startingEquity: d('0'), equity: [sample(T0, '0'), sample(T0 + 1, '0')] });
    expect(render(withZeroStart())).toBe(render(withZeroStart()));
  });
});
