// The backtest and sweep reports: figures as stable JSON, the same as a self-contained HTML page, and
// progress bars for long runs.
export { buildReport, disabledLines, exitsLine, lossLimitLines, incidentsLine, refusalsLine, SHARPE_ANNUALISE_MIN_MS } from './build.js';
export { escapeHtml, MAX_CHART_POINTS, MAX_TRADE_ROWS, renderHtml } from './html.js';
export { Progress, type ProgressOptions, type ProgressStream } from './progress.js';
export type { DisabledStrategyInput, EndpointUsage, EquitySample, JsonValue, LimiterUsage, OrderCounts, PriceSeries, Report, ReportInput, SymbolSummary } from './types.js';
export { PriceSampler } from './series.js';
export { FILLS_CSV_HEADER, fillsCsv } from './fills-csv.js';
export { accountValue, assetValue, equitySample, OpeningValue } from './valuation.js';
export { buildSweepReport, heatMap, NOT_RUN, runFigures, runOutcome, sortEntries, varyingAxes, windowText, type HeatMap, type RunFigures, type RunOutcome, type SampledGrid, type SortKey, type SweepAxisSpec, type SweepEntry, type SweepReport, type SweepRunSpec, type SweepSpec } from './sweep.js';
export { renderSweepHtml } from './sweep-html.js';
export { clockText, etaMs, SweepProgress, sweepProgressLine, type SweepCounts } from './sweep-progress.js';
