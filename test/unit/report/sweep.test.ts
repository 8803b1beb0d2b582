import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { emptyInput, fill, sample, T0 } from './fixtures.js';
import {
  buildReport,
  buildSweepReport,
  clockText,
  etaMs,
  heatMap,
  NOT_RUN,
  renderSweepHtml,
  runFigures,
  runOutcome,
  sortEntries,
  SweepProgress,
  sweepProgressLine,
  varyingAxes,
  type RunFigures,
  type RunOutcome,
  type SweepSpec,
} from '../../../src/report/index.js';

const SPACING = 'strategies.0.params.spacingPct';
const LEVELS = 'strategies.0.params.levels';

/** spacingPct 0.02, 0.05 by levels 3, 5, 8: six runs, the last axis varying fastest. */
function spec(extraAxis = false): SweepSpec {
  const axes = [
    { key: SPACING, values: ['0.02', '0.05'] },
    { key: LEVELS, values: ['3', '5', '8'] },
    ...(extraAxis ? [{ key: 'sim.seed', values: ['7'] }] : []),
  ];
  const runs = axes[0]!.values.flatMap((s, i) =>
    axes[1]!.values.map((l, j) => ({
      index: i * 3 + j,
      label: `${SPACING}=${s} ${LEVELS}=${l}${extraAxis ? ' sim.seed=7' : ''}`,
      params: { [SPACING]: s, [LEVELS]: l, ...(extraAxis ? { 'sim.seed': '7' } : {}) },
    })),
  );
  return { id: 'abc123', config: 'backtest.yaml', tape: 'sample.jsonl.gz', durationMs: null, axes, runs };
}

const figures = (pnl: string | null, maxDrawdown: string | null, sharpe: number | null, fills: number): RunFigures => ({
  pnl: pnl === null ? null : d(pnl),
  pnlPct: pnl === null ? null : Number(pnl) / 1000,
  fees: d('1.5'),
  fills,
  winRate: 0.5,
  maxDrawdown: maxDrawdown === null ? null : d(maxDrawdown),
  maxDrawdownPct: 1.25,
  sharpe,
  sharpeBasis: sharpe === null ? null : 'per 10 s sample',
  ordersSent: 40,
});

/** Run 3 failed, run 5 never finished; run 4 has no PnL or drawdown. */
function outcomes(): Map<number, RunOutcome> {
  return new Map<number, RunOutcome>([
    [0, { status: 'ok', figures: figures('-4.5', '6', 0.2, 120) }],
    [1, { status: 'ok', figures: figures('12.25', '3', -0.4, 80) }],
    [2, { status: 'ok', figures: figures('12.250', '9.5', 1.1, 300) }],
    [3, { status: 'failed', reason: 'strategies[0].params.levels: must be at least 1 (plugin grid)' }],
    [4, { status: 'ok', figures: figures(null, null, null, 0) }],
  ]);
}

describe('runFigures', () => {
  it('takes the report\'s figures as written: money rounded to 8 places, Sharpe with its basis', () => {
    const input = emptyInput({
      fills: [fill('BUY', '1', '100'), fill('BUY', '2', '100.01'), fill('SELL', '1', '100.02')],
      equity: [sample(T0, '1000'), sample(T0 + 10_000, '1000.013333333333333333333333333333'), sample(T0 + 20_000, '999.9'), sample(T0 + 30_000, '1000.02')],
    });
    expect(runFigures(buildReport(input))).toMatchObject({ pnl: '0.02', fills: 3, maxDrawdown: '0.11333333', sharpeBasis: 'per 10 s sample' });
  });
});

describe('buildSweepReport', () => {
  it('has one entry per run in run order, with its parameters and figures or its reason', () => {
    const r = buildSweepReport(spec(), outcomes());
    expect(r.runs.map((e) => [e.index, e.status])).toEqual([
      [0, 'ok'],
      [1, 'ok'],
      [2, 'ok'],
      [3, 'failed'],
      [4, 'ok'],
      [5, 'cancelled'],
    ]);
    expect(r.sweep).toMatchObject({ id: 'abc123', runs: 6, ok: 4, failed: 1, cancelled: 1, tape: 'sample.jsonl.gz' });
    expect(r.runs[1]).toEqual({ index: 1, label: `${SPACING}=0.02 ${LEVELS}=5`, params: { [SPACING]: '0.02', [LEVELS]: '5' }, status: 'ok', figures: figures('12.25', '3', -0.4, 80) });
    expect(r.runs[3]).toMatchObject({ status: 'failed', reason: 'strategies[0].params.levels: must be at least 1 (plugin grid)' });
    expect(r.runs[5]).toMatchObject({ status: 'cancelled', reason: NOT_RUN });
  });

  it('gives the same bytes for the same outcomes whatever order they arrived in', () => {
    const reversed = new Map([...outcomes()].reverse());
    expect(JSON.stringify(buildSweepReport(spec(), reversed))).toBe(JSON.stringify(buildSweepReport(spec(), outcomes())));
  });

  it('refuses an outcome for a run the sweep does not have', () => {
    expect(() => buildSweepReport(spec(), new Map([[6, { status: 'failed', reason: 'x' }]]))).toThrow(/run 6, which sweep abc123 does not have/);
  });
});

describe('sortEntries', () => {
  const entries = buildSweepReport(spec(), outcomes()).runs;
  const order = (key: Parameters<typeof sortEntries>[1]) => sortEntries(entries, key).map((e) => e.index);

  it('puts the best first for each figure, runs without it next, then failed and cancelled ones', () => {
    // 12.25 and 12.250 are the same amount: run order breaks the tie.
    expect(order('pnl')).toEqual([1, 2, 0, 4, 3, 5]);
    expect(order('drawdown')).toEqual([1, 0, 2, 4, 3, 5]);
    expect(order('sharpe')).toEqual([2, 0, 1, 4, 3, 5]);
    expect(order('fills')).toEqual([2, 0, 1, 4, 3, 5]);
    expect(order('run')).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('compares money as decimals, not as text', () => {
    const big = buildSweepReport(spec(), new Map<number, RunOutcome>([
      [0, { status: 'ok', figures: figures('9', '1', null, 1) }],
      [1, { status: 'ok', figures: figures('10', '1', null, 1) }],
      [2, { status: 'ok', figures: figures('-100', '1', null, 1) }],
      [3, { status: 'ok', figures: figures('-20', '1', null, 1) }],
    ]));
    expect(sortEntries(big.runs, 'pnl').map((e) => e.index)).toEqual([1, 0, 3, 2, 4, 5]);
  });
});

describe('heatMap', () => {
  it('lays the runs on a grid of the two varying parameters', () => {
    const map = heatMap(buildSweepReport(spec(), outcomes()))!;
    expect(map.rows.key).toBe(SPACING);
    expect(map.columns.key).toBe(LEVELS);
    expect(map.cells.map((row) => row.map((e) => e?.index))).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
  });

  it('ignores an axis with a single value, and is absent unless exactly two vary', () => {
    expect(varyingAxes(spec(true).axes).map((a) => a.key)).toEqual([SPACING, LEVELS]);
    expect(heatMap(buildSweepReport(spec(true), outcomes()))).not.toBeNull();
    const one: SweepSpec = { ...spec(), axes: [{ key: LEVELS, values: ['3', '5'] }], runs: spec().runs.slice(0, 2).map((r) => ({ ...r, params: { [LEVELS]: r.params[LEVELS]! } })) };
    expect(heatMap(buildSweepReport(one, new Map()))).toBeNull();
    const three: SweepSpec = { ...spec(), axes: [...spec().axes, { key: 'sim.seed', values: ['1', '2'] }] };
    expect(heatMap(buildSweepReport(three, new Map()))).toBeNull();
  });
});

describe('renderSweepHtml', () => {
  const html = renderSweepHtml(buildSweepReport(spec(), outcomes()));
  const tableRows = (key: string) => {
    const table = new RegExp(`<table class="sorted sorted-${key}">([\\s\\S]*?)</table>`).exec(html);
    if (!table) throw new Error(`no table sorted by ${key}`);
    return [...table[1]!.matchAll(/<tr><td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1]));
  };

  it('is one self-contained page: no scripts, external styles, fonts or images', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|src=/i);
  });

  it('holds the table in every order a reader can pick, run order shown first', () => {
    expect(tableRows('run')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(tableRows('pnl')).toEqual([1, 2, 0, 4, 3, 5]);
    expect(tableRows('drawdown')).toEqual([1, 0, 2, 4, 3, 5]);
    expect(tableRows('sharpe')).toEqual([2, 0, 1, 4, 3, 5]);
    expect(tableRows('fills')).toEqual([2, 0, 1, 4, 3, 5]);
    expect(html).toContain('<input type="radio" name="order" id="by-run" checked hidden>');
    expect(html).toMatch(/#by-pnl:checked~\.tables \.sorted-pnl/);
  });

  it('heads the Sharpe column with what every run\'s Sharpe is; labels each cell when they differ', () => {
    expect(html).toContain('<th>Sharpe (per 10 s sample)</th>');
    expect(html).toContain('<td class="num">0.20</td>');
    const mixed = outcomes();
    mixed.set(2, { status: 'ok', figures: { ...figures('12.250', '9.5', 1.1, 300), sharpeBasis: 'annualised' } });
    const page = renderSweepHtml(buildSweepReport(spec(), mixed));
    expect(page).toContain('<th>Sharpe</th>');
    expect(page).toContain('<td class="num">1.10 annualised</td>');
    expect(page).toContain('<td class="num">0.20 per 10 s sample</td>');
  });

  it('has a column for the venue troubles the tape recorded that each run met, only when the tape held some', () => {
    expect(html).not.toContain('recorded troubles met');
    const met = outcomes();
    met.set(0, { status: 'ok', figures: { ...figures('-4.5', '6', 0.2, 120), recordedIncidents: { played: 2, onTape: 5 } } });
    met.set(1, { status: 'ok', figures: { ...figures('12.25', '3', -0.4, 80), recordedIncidents: { played: 5, onTape: 5 } } });
    const page = renderSweepHtml(buildSweepReport(spec(), met));
    expect(page).toContain('<th>orders sent</th><th>recorded troubles met</th><th>status</th>');
    expect(page).toContain('<td class="num">40</td><td class="num">2 of 5</td><td>ok</td>');
    expect(page).toContain('<td class="num">40</td><td class="num">-</td><td>ok</td>');
    expect(page).toContain('<td colspan="10"></td><td class="failed">');
  });

  it('says when the runs are a random sample of the grid', () => {
    expect(html).not.toContain('random search');
    const page = renderSweepHtml(buildSweepReport({ ...spec(), sample: { count: 6, seed: 4, of: 40 } }, outcomes()));
    expect(page).toContain('6 runs (a random search: 6 of the grid&#39;s 40 combinations, seed 4), 4 ok');
  });

  it('shows the holdout, when the sweep ran one, as its own table: in-sample PnL beside the figures out of sample, in rank order', () => {
    expect(html).not.toContain('Out of sample');
    const report = buildSweepReport(spec(), outcomes());
    const best = report.runs.find((e) => e.index === 1)!;
    const second = report.runs.find((e) => e.index === 2)!;
    const holdout = {
      window: { from: Date.UTC(2026, 0, 2), to: Date.UTC(2026, 0, 3) },
      rank: 'pnl' as const,
      top: 3,
      runs: [
        { ...best, status: 'ok' as const, figures: figures('-1.75', '2', -0.3, 14) },
        { ...second, status: 'failed' as const, reason: '--from leaves nothing of the tape' },
      ],
    };
    const page = renderSweepHtml({ ...report, holdout });
    const section = page.slice(page.indexOf('<h2>Out of sample</h2>'));
    expect(section).toContain('The best 2 runs by pnl (of the 3 asked for), run again over 2026-01-02T00:00:00.000Z to 2026-01-03T00:00:00.000Z');
    const rows = [...section.matchAll(/<tr><td class="num">(\d+)<\/td>(?:<td>[^<]*<\/td>)*<td class="num">([^<]*)<\/td><td[^>]*>([^<]*)</g)].map((m) => [Number(m[1]), m[2], m[3]]);
    const inSample = (e: typeof best) => (e.status === 'ok' ? e.figures.pnl : null);
    expect(rows).toEqual([
      [1, inSample(best), '-1.75'],
      [2, inSample(second), ''],
    ]);
    expect(section).toContain('<td class="failed">failed: --from leaves nothing of the tape</td>');
  });

  it('runFigures carries the played and recorded counts of a report that has them', () => {
    const report = buildReport(emptyInput({ incidents: { onTape: { ban: 1, error: 2 }, played: { error: 1 } } }));
    expect(runFigures(report).recordedIncidents).toEqual({ played: 1, onTape: 3 });
    expect(runFigures(buildReport(emptyInput())).recordedIncidents).toBeUndefined();
  });

  it('shows a run\'s figures, and a failed run\'s reason', () => {
    expect(html).toContain('<tr><td class="num">1</td><td>0.02</td><td>5</td><td class="num">12.25</td><td class="num">0.0123%</td><td class="num">3</td>');
    expect(html).toContain('<td class="failed">failed: strategies[0].params.levels: must be at least 1 (plugin grid)</td>');
    expect(html).toContain(`<td class="cancelled">cancelled: ${NOT_RUN}</td>`);
  });

  it('colours the heat map by PnL in the charts\' palette: the best gain deepest green, the loss red, a failed run grey; figures on hover', () => {
    expect(html).toContain('<h2>PnL heat map</h2>');
    // The charts' green #089981 at 0.1 + 0.65 = 0.75 of full strength: 255 + (8 - 255) x 0.75 = 70, (153 - 255) x 0.75 -> 179, (129 - 255) x 0.75 -> 161.
    expect(html).toMatch(/<td style="background:rgb\(70,179,161\)" title="run 1: PnL 12\.25 \([^)]*\), max drawdown 3 \([^)]*\), Sharpe [^,]*, \d+ fills">12\.25<\/td>/);
    // -4.5 of a largest 12.25: the charts' red #f23645 at 0.1 + 0.65 x 4.5/12.25 = 0.339: 255 + (242 - 255) x 0.339 -> 251, 187, 192.
    expect(html).toContain('<td style="background:rgb(251,187,192)" title="run 0: PnL -4.5 (-0.0045%), max drawdown 6 (1.2500%), Sharpe 0.20 per 10 s sample, 120 fills">-4.5</td>');
    expect(html).toContain('<p class="scale">green a gain, red a loss, deeper with size up to the largest (12.25); hover a cell for the run\'s figures</p>');
    expect(html).toMatch(/<td style="background:#ddd" title="strategies\[0\]\.params\.levels: must be at least 1 \(plugin grid\)">failed<\/td>/);
  });

  it('has no heat map when one parameter varies, and escapes what users wrote', () => {
    const one: SweepSpec = { ...spec(), axes: [{ key: 'a<b', values: ['"x"', '<y>'] }], runs: [{ index: 0, label: 'a<b="x"', params: { 'a<b': '"x"' } }, { index: 1, label: 'a<b=<y>', params: { 'a<b': '<y>' } }] };
    const page = renderSweepHtml(buildSweepReport(one, new Map([[0, { status: 'failed', reason: '<bad>' }]])));
    expect(page).not.toContain('heat map');
    expect(page).not.toContain('<y>');
    expect(page).toContain('&lt;y&gt;');
    expect(page).toContain('failed: &lt;bad&gt;');
  });
});

describe('sweep progress', () => {
  it('estimates the time left from the pace since watching began', () => {
    expect(etaMs({ done: 4, failed: 0, total: 24 }, 0, 8000)).toBe(40_000);
    // Re-attached with 10 done: only the 2 finished since count for the pace.
    expect(etaMs({ done: 12, failed: 1, total: 24 }, 10, 5000)).toBe(30_000);
    expect(etaMs({ done: 10, failed: 0, total: 24 }, 10, 5000)).toBeNull();
  });

  it('formats the line', () => {
    expect(clockText(75_000)).toBe('1:15');
    expect(clockText(3_723_000)).toBe('1:02:03');
    expect(sweepProgressLine('abc', { done: 6, failed: 1, total: 24 }, 0, 12_000, 8)).toBe('sweep abc [##------] 6/24 runs (1 failed) 0:12 elapsed ETA 0:36');
    expect(sweepProgressLine('abc', { done: 24, failed: 0, total: 24 }, 0, 60_000, 8)).toBe('sweep abc [########] 24/24 runs 1:00 elapsed ETA 0:00');
    expect(sweepProgressLine('abc', { done: 0, failed: 0, total: 24 }, 0, 1000, 8)).toBe('sweep abc [--------] 0/24 runs 0:01 elapsed ETA -');
  });

  it('writes a line per change to a log, and redraws one line on a terminal', () => {
    let t = 0;
    const log: string[] = [];
    const p = new SweepProgress({ write: (s: string) => log.push(s) }, 'abc', () => t);
    p.update({ done: 0, failed: 0, total: 2 });
    t = 1000;
    p.update({ done: 0, failed: 0, total: 2 });
    p.update({ done: 1, failed: 0, total: 2 });
    p.note('Redis is back');
    expect(log).toEqual(['sweep abc [------------------------] 0/2 runs 0:00 elapsed ETA -\n', 'sweep abc [############------------] 1/2 runs 0:01 elapsed ETA 0:01\n', 'Redis is back\n']);

    const tty: string[] = [];
    const q = new SweepProgress({ isTTY: true, write: (s: string) => tty.push(s) }, 'abc', () => t);
    q.update({ done: 0, failed: 0, total: 2 });
    q.update({ done: 0, failed: 0, total: 2 });
    q.note('hello');
    q.finish();
    expect(tty[0]).toMatch(/^\rsweep abc .*\x1b\[K$/);
    expect(tty).toHaveLength(4);
    expect(tty.slice(2)).toEqual(['\n', 'hello\n']);
  });

  it('writes a big sweep to a log once per percent, per failure and at the end', () => {
    const log: string[] = [];
    const p = new SweepProgress({ write: (s: string) => log.push(s) }, 'big', () => 0);
    for (let done = 0; done <= 25; done++) p.update({ done, failed: done >= 15 ? 1 : 0, total: 1000 });
    p.update({ done: 1000, failed: 1, total: 1000 });
    expect(log.map((l) => /\] (\d+)\/1000/.exec(l)![1])).toEqual(['0', '10', '15', '20', '1000']);
  });
});

describe('runOutcome', () => {
  it('a run whose strategy was disabled failed, saying which, when and why; the sweep does not count it ok', () => {
    const healthy = buildReport(emptyInput({ fills: [fill('BUY', '1', '100')] }));
    expect(runOutcome(healthy)).toEqual({ status: 'ok', figures: runFigures(healthy) });
    const died = buildReport(emptyInput({ disabled: [{ strategy: 'grid', at: T0 + 10_000, reason: 'onTick threw: bug in my requote (at /p/grid.ts:14:9)', openOrders: 'cancel' }] }));
    const outcome = runOutcome(died);
    expect(outcome).toEqual({ status: 'failed', reason: `strategy grid was disabled at ${new Date(T0 + 10_000).toISOString()} (10 s into the run): onTick threw: bug in my requote (at /p/grid.ts:14:9); its open orders were cancelled (engine.onStrategyFailure)` });
    const r = buildSweepReport(spec(), new Map([[0, runOutcome(healthy)], [1, outcome]]));
    expect(r.sweep).toMatchObject({ ok: 1, failed: 1 });
  });
});
