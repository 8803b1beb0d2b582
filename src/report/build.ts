// buildReport: pure and deterministic. Objects are built with literal key order and every
// record is re-keyed in sorted order, so JSON.stringify of the same input is the same bytes.
// Figures are computed exactly and rounded where they are written into the report, which is
// for people: money to MONEY_PLACES, statistics to STATISTIC_DIGITS (core/display.ts).
// Quantities are not rounded: each is a sum of the venue's fill volumes, so it already has the
// instrument's quantity precision.
import { dec, toDecimal, ZERO, type Decimal } from '../core/decimal.js';
import { durationText, shownMoney as money, shownStatistic as statistic } from '../core/display.js';
import { replayFills, type Replay } from './fills.js';
import { drawdownSeries } from './series.js';
import type { EndpointUsage, EquitySample, JsonValue, Report, ReportInput } from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const YEAR_MS = 365 * DAY_MS; // crypto venues trade every day of the year
/**
 * The rule for Sharpe: annualised only when the equity samples span at least 7 days; over a
 * shorter span it is reported per sample period (e.g. per 10 s sample), labelled as such.
 * Annualising multiplies by sqrt(periods per year): the sample tape's 30 minutes of 10 s
 * samples, -0.35 per sample, read as -626 scaled by sqrt(3.15M), a figure about a year that
 * half an hour says nothing of.
 * A week is the shortest span that holds the market's weekly cycle (weekends trade thinner).
 */
export const SHARPE_ANNUALISE_MIN_MS = 7 * DAY_MS;
const HUNDRED = '100' as Decimal;

// Code-unit order, not localeCompare: the same report on every machine.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function buildReport(input: ReportInput): Report {
  checkInput(input);
  const replay = replayFills(input.fills, input.quoteAsset, input.contractSizes);
  const positions = replay.book.snapshot();
  const realized = dec.sum(positions.map((p) => p.realizedPnl));
  const quoteFees = dec.sum(positions.map((p) => p.fees));
  const report: Report = {
    version: 1,
    period: {
      startedAt: input.startedAt,
      endedAt: input.endedAt,
      start: new Date(input.startedAt).toISOString(),
      end: new Date(input.endedAt).toISOString(),
      durationMs: input.endedAt - input.startedAt,
    },
    tape: input.tape ?? null,
    quoteAsset: input.quoteAsset,
    strategies: [...input.strategies],
    config: input.config === undefined ? null : (sortKeysDeep(input.config) as { [key: string]: JsonValue }),
    pnl: pnlOf(input, realized, quoteFees),
    fees: { quote: money(quoteFees), otherAssets: otherFeesOf(replay) },
    trades: tradesOf(replay),
    winRate: winRateOf(replay),
    maxDrawdown: maxDrawdownOf(input),
    sharpe: sharpeOf(input.equity),
    exposure: exposureOf(input.equity),
    orders: {
      sent: input.orders.sent,
      cancelsSent: input.orders.cancelsSent,
      accepted: input.orders.accepted,
      rejected: input.orders.rejected,
      unknown: input.orders.unknown,
      riskRejected: input.orders.riskRejected,
    },
    rateLimits: rateLimitsOf(input),
  };
  // Last, and only when there were some: the report of a tape without troubles is as it was.
  const incidents = incidentsOf(input);
  if (incidents) report.recordedIncidents = incidents;
  if (input.untaped && input.untaped.length > 0) report.untaped = [...input.untaped];
  const refusals = Object.entries(input.refusals ?? {}).map(([rule, r]) => ({ rule, count: r.count, first: r.first }));
  if (refusals.length > 0) report.refusals = refusals.sort((a, b) => b.count - a.count || byCodeUnit(a.rule, b.rule));
  const exits = Object.keys(input.exits ?? {}).filter((k) => (input.exits![k] ?? 0) > 0).sort(byCodeUnit);
  if (exits.length > 0) report.exits = Object.fromEntries(exits.map((k) => [k, input.exits![k]!]));
  // The day's PnL measures the open position at its average entry (30 places): money as shown.
  if (input.lossLimitHits && input.lossLimitHits.length > 0) report.lossLimitHits = input.lossLimitHits.map((h, i) => ({ strategy: h.strategy, day: h.day, pnl: money(toDecimal(h.pnl, `lossLimitHits[${i}].pnl`)) }));
  if (input.disabled && input.disabled.length > 0) {
    report.disabledStrategies = input.disabled.map((x) => ({ strategy: x.strategy, at: x.at, time: new Date(x.at).toISOString(), reason: x.reason, openOrders: x.openOrders === 'cancel' ? 'cancelled' : 'left resting' }));
  }
  return report;
}

/** One line per strategy disabled during the run: which, when and why, and what became of its orders; none for a healthy run. */
export function disabledLines(r: Report): string[] {
  return (r.disabledStrategies ?? []).map(
    (x) => `strategy ${x.strategy} was disabled at ${x.time} (${durationText(x.at - r.period.startedAt)} into the run): ${x.reason}; its open orders were ${x.openOrders} (engine.onStrategyFailure)`,
  );
}

function incidentsOf(input: ReportInput): Report['recordedIncidents'] {
  const { onTape, played } = input.incidents ?? { onTape: {}, played: {} };
  const kinds = Object.keys(onTape).filter((k) => (onTape[k] ?? 0) > 0).sort(byCodeUnit);
  if (kinds.length === 0) return undefined;
  const byKind: Record<string, { onTape: number; played: number }> = {};
  for (const k of kinds) byKind[k] = { onTape: onTape[k]!, played: played[k] ?? 0 };
  const sum = (f: (x: { onTape: number; played: number }) => number) => Object.values(byKind).reduce((n, x) => n + f(x), 0);
  return { onTape: sum((x) => x.onTape), played: sum((x) => x.played), byKind };
}

/** The intents refused before they became requests, as one line; undefined when none was. */
export function refusalsLine(r: Report): string | undefined {
  if (!r.refusals) return undefined;
  return `refused before sending: ${r.refusals.map((x) => `${x.rule} ${x.count} (first: ${x.first})`).join('; ')}`;
}

/** The protective exits a run made, as one line; undefined when none was. */
export function exitsLine(r: Report): string | undefined {
  if (!r.exits) return undefined;
  return `protective exits: ${Object.entries(r.exits).map(([reason, n]) => `${reason} ${n}`).join(', ')}`;
}

/** One line per strategy and UTC day its daily loss limit stopped it; none when no limit was hit. */
export function lossLimitLines(r: Report): string[] {
  return (r.lossLimitHits ?? []).map((h) => `strategy ${h.strategy} hit its daily loss limit on ${h.day} (UTC; the day's PnL ${h.pnl}): it opened nothing more that day (strategies[].lossLimit)`);
}

/** What a run met of the venue's troubles its tape recorded, as one line; undefined when the tape held none. */
export function incidentsLine(r: Report): string | undefined {
  const i = r.recordedIncidents;
  if (!i) return undefined;
  const kinds = Object.entries(i.byKind).map(([k, n]) => `${k.replace(/_/g, ' ')} ${n.played}/${n.onTape}`);
  const unmet = i.onTape - i.played;
  const why = unmet > 0 ? `; ${unmet} never met: the run sent nothing on their endpoint after their time` : '';
  return `recorded venue incidents played ${i.played} of ${i.onTape} (${kinds.join(', ')})${why}`;
}

function checkInput(input: ReportInput): void {
  if (!Number.isFinite(input.startedAt) || !Number.isFinite(input.endedAt)) throw new RangeError('startedAt and endedAt must be finite epoch milliseconds');
  toDecimal(input.startingEquity, 'startingEquity');
  input.equity.forEach((s, i) => {
    toDecimal(s.equity, `equity[${i}].equity`);
    toDecimal(s.exposure, `equity[${i}].exposure`);
    const previous = input.equity[i - 1];
    // Spacing, exposure time and the charts all assume time order; a shuffled series would give plausible wrong numbers.
    if (previous && s.at < previous.at) throw new RangeError(`equity samples must be in time order: equity[${i}] at ${s.at} is before equity[${i - 1}] at ${previous.at}`);
  });
}

function pnlOf(input: ReportInput, realized: Decimal, quoteFees: Decimal): Report['pnl'] {
  const last = input.equity[input.equity.length - 1];
  const total = last ? dec.sub(last.equity, input.startingEquity) : null;
  return {
    startingEquity: money(input.startingEquity),
    finalEquity: last ? money(last.equity) : null,
    total: total === null ? null : money(total),
    totalPct: total !== null && dec.isPositive(input.startingEquity) ? percent(total, input.startingEquity) : null,
    realized: money(realized),
    fees: money(quoteFees),
    realizedAfterFees: money(dec.sub(realized, quoteFees)),
    reason: !last ? 'no equity samples: the final equity is unknown' : dec.isPositive(input.startingEquity) ? null : 'starting equity is not above 0: no percentage',
  };
}

function otherFeesOf(replay: Replay): Record<string, Decimal> {
  const rounded: Record<string, Decimal> = {};
  for (const [asset, fee] of Object.entries(replay.book.otherFees())) rounded[asset] = money(fee);
  return rounded;
}

function tradesOf(replay: Replay): Report['trades'] {
  const entries = replay.book.toJSON().positions;
  const fillsPerLine = new Map<string, number>();
  for (const r of replay.applied) {
    const key = `${r.fill.market}:${r.fill.symbol}`;
    fillsPerLine.set(key, (fillsPerLine.get(key) ?? 0) + 1);
  }
  return {
    fills: replay.applied.length,
    buys: replay.applied.filter((r) => r.fill.side === 'BUY').length,
    sells: replay.applied.filter((r) => r.fill.side === 'SELL').length,
    roundTrips: replay.applied.filter((r) => r.completesRoundTrip).length,
    openPositionsAtEnd: entries.filter((e) => !dec.isZero(e.quantity)).length,
    ignored: { duplicates: replay.duplicates, invalid: [...replay.invalid] },
    bySymbol: entries.map((e) => ({
      market: e.market,
      symbol: e.symbol,
      fills: fillsPerLine.get(`${e.market}:${e.symbol}`) ?? 0,
      realizedPnl: money(e.realizedPnl),
      fees: money(e.fees),
      openQuantity: e.quantity,
    })),
  };
}

/**
 * Win rate = closing fills with realised PnL > 0 / all closing fills. A closing fill is one
 * that reduces an open position; its PnL is what it realised, before fees (the fee of the fill
 * that opened the position was paid by another fill, so charging fees to one fill would be
 * arbitrary). A closing fill that realises exactly 0 is breakeven: counted, not a win.
 */
function winRateOf(replay: Replay): Report['winRate'] {
  const closing = replay.applied.filter((r) => r.closing);
  const winning = closing.filter((r) => dec.isPositive(r.realizedPnl)).length;
  const losing = closing.filter((r) => dec.isNegative(r.realizedPnl)).length;
  return {
    value: closing.length > 0 ? statistic(winning / closing.length) : null,
    closingFills: closing.length,
    winning,
    losing,
    breakeven: closing.length - winning - losing,
    reason: closing.length > 0 ? null : 'no fill reduced an open position, so none realised PnL',
  };
}

function maxDrawdownOf(input: ReportInput): Report['maxDrawdown'] {
  const series = drawdownSeries(input.equity, input.startingEquity, input.startedAt);
  if (series.length === 0) {
    return { amount: null, pctOfPeak: null, peakEquity: null, peakAt: null, troughEquity: null, troughAt: null, reason: 'no equity samples' };
  }
  // The first deepest point wins a tie, so the answer does not depend on anything but order.
  let worst = series[0]!;
  for (const p of series) if (dec.gt(p.drawdown, worst.drawdown)) worst = p;
  if (dec.isZero(worst.drawdown)) {
    return { amount: ZERO, pctOfPeak: 0, peakEquity: null, peakAt: null, troughEquity: null, troughAt: null, reason: 'equity never fell below a previous peak' };
  }
  const peakPositive = dec.isPositive(worst.peak);
  return {
    amount: money(worst.drawdown),
    pctOfPeak: peakPositive ? percent(worst.drawdown, worst.peak) : null,
    peakEquity: money(worst.peak),
    peakAt: worst.peakAt,
    troughEquity: money(worst.equity),
    troughAt: worst.at,
    reason: peakPositive ? null : 'the peak was not above 0: no percentage',
  };
}

/**
 * Sharpe = mean(r) / stdev(r), risk-free rate 0, where r_i = (E_i - E_(i-1)) / E_(i-1) over
 * consecutive samples and stdev is the sample standard deviation (n - 1). Annualised, it is
 * multiplied by sqrt(periodsPerYear), periodsPerYear = 365 days / the mean sample spacing (so
 * samples are expected to be evenly spaced), but only when the samples span at least
 * SHARPE_ANNUALISE_MIN_MS; otherwise it is the ratio per sample period and says so (`annualised`
 * false, `basis` "per 10 s sample"). Mean and variance are computed in decimals, so equal
 * returns give a variance of exactly 0 (no Sharpe) rather than float noise (an absurd one).
 */
function sharpeOf(samples: readonly EquitySample[]): Report['sharpe'] {
  const spanMs = samples.length > 0 ? samples[samples.length - 1]!.at - samples[0]!.at : 0;
  const none = (reason: string, returns = 0): Report['sharpe'] => ({
    value: null,
    annualised: false,
    basis: null,
    notAnnualised: null,
    returns,
    meanReturn: null,
    stdevReturn: null,
    sampleSpacingMs: null,
    spanMs,
    periodsPerYear: null,
    reason,
  });
  if (samples.length < 3) return none(`needs at least 3 equity samples (2 returns) for a standard deviation, got ${samples.length}`, Math.max(0, samples.length - 1));
  const returns: Decimal[] = [];
  for (let i = 1; i < samples.length; i++) {
    const previous = samples[i - 1]!.equity;
    if (!dec.isPositive(previous)) return none(`equity[${i - 1}] is not above 0, so the return after it is undefined`, samples.length - 1);
    returns.push(dec.div(dec.sub(samples[i]!.equity, previous), previous));
  }
  const n = returns.length;
  const spacingMs = spanMs / n;
  if (spacingMs <= 0) return none('all samples have the same time, so there is no period to measure returns over', n);
  const mean = dec.div(dec.sum(returns), String(n) as Decimal);
  const variance = dec.div(dec.sum(returns.map((r) => dec.mul(dec.sub(r, mean), dec.sub(r, mean)))), String(n - 1) as Decimal);
  if (dec.isZero(variance)) return none('every return is the same, so the standard deviation is 0', n);
  const stdev = Math.sqrt(dec.toNumberForDisplay(variance));
  const perPeriod = dec.toNumberForDisplay(mean) / stdev;
  const annualised = spanMs >= SHARPE_ANNUALISE_MIN_MS;
  const periodsPerYear = YEAR_MS / spacingMs;
  return {
    value: statistic(annualised ? perPeriod * Math.sqrt(periodsPerYear) : perPeriod),
    annualised,
    basis: annualised ? 'annualised' : `per ${durationText(spacingMs)} sample`,
    notAnnualised: annualised ? null : `the samples span ${durationText(spanMs)}; Sharpe is annualised only over ${durationText(SHARPE_ANNUALISE_MIN_MS)} or more`,
    returns: n,
    meanReturn: statistic(dec.toNumberForDisplay(mean)),
    stdevReturn: statistic(stdev),
    sampleSpacingMs: statistic(spacingMs),
    spanMs,
    periodsPerYear: annualised ? statistic(periodsPerYear) : null,
    reason: null,
  };
}

/**
 * Each sample's exposure holds until the next sample. timeShare = time with a non-zero
 * exposure / time from the first to the last sample; averageValue is the time-weighted mean of
 * the exposure value over the same span.
 */
function exposureOf(samples: readonly EquitySample[]): Report['exposure'] {
  const first = samples[0];
  const last = samples[samples.length - 1];
  const spanMs = first && last ? last.at - first.at : 0;
  if (spanMs <= 0) {
    return { timeShare: null, averageValue: null, exposedMs: 0, spanMs, reason: `needs at least 2 equity samples spanning some time, got ${samples.length}` };
  }
  let exposedMs = 0;
  let weighted = ZERO;
  for (let i = 0; i + 1 < samples.length; i++) {
    const held = samples[i + 1]!.at - samples[i]!.at;
    const exposure = dec.abs(samples[i]!.exposure);
    if (!dec.isZero(exposure)) exposedMs += held;
    weighted = dec.add(weighted, dec.mul(exposure, String(held) as Decimal));
  }
  return {
    timeShare: statistic(exposedMs / spanMs),
    averageValue: money(dec.div(weighted, String(spanMs) as Decimal)),
    exposedMs,
    spanMs,
    reason: null,
  };
}

function rateLimitsOf(input: ReportInput): Report['rateLimits'] {
  const endpoints: EndpointUsage[] = Object.keys(input.limiter)
    .sort(byCodeUnit)
    .map((endpoint) => {
      const u = input.limiter[endpoint]!;
      return {
        endpoint,
        requests: u.requests,
        limit: u.limit,
        peakInWindow: u.peakInWindow,
        peakShareOfLimit: u.limit > 0 ? statistic(u.peakInWindow / u.limit) : null,
        waitedMs: u.waitedMs,
      };
    });
  return { endpoints, totalWaitedMs: endpoints.reduce((sum, e) => sum + e.waitedMs, 0) };
}

/** part / whole x 100, computed in decimals and rounded to 6 places, so 7% is 7, not 7.000000000000001. */
function percent(part: Decimal, whole: Decimal): number {
  return dec.toNumberForDisplay(dec.round(dec.mul(dec.div(part, whole), HUNDRED), 6));
}

function sortKeysDeep(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const sorted: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort(byCodeUnit)) sorted[key] = sortKeysDeep(value[key]!);
  return sorted;
}
