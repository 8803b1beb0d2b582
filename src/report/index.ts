// The backtest report: figures as stable JSON, the same as a self-contained HTML page, and a
// terminal progress bar for long runs.
export { buildReport } from './build.js';
export { escapeHtml, MAX_CHART_POINTS, MAX_TRADE_ROWS, renderHtml } from './html.js';
export { Progress, type ProgressOptions, type ProgressStream } from './progress.js';
export type { EndpointUsage, EquitySample, JsonValue, LimiterUsage, OrderCounts, Report, ReportInput, SymbolSummary } from './types.js';
export { accountValue, equitySample } from './valuation.js';
