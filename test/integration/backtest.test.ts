// Backtests and replays on a manual clock: determinism, replay of a recorded session, fills
// that agree with the venue's book, and tapes that never hold the secret.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d, dec, ZERO } from '../../src/core/decimal.js';
import { TapeMismatchError } from '../../src/core/errors.js';
import { parseConfig } from '../../src/config/index.js';
import { renderHtml, type Report } from '../../src/report/index.js';
import { runBacktest, runReplay } from '../../src/app/backtest.js';
import { createLogger } from '../../src/app/logger.js';
import { runSweep, sweepRuns, parseSweep } from '../../src/commands/sweep.js';
import { SimExchange } from '../../src/sim/index.js';
import { loadStrategies } from '../../src/strategy/index.js';
import { prepareEventCache, readTape, TAPE_VERSION } from '../../src/tape/index.js';
import { call, T0 } from '../unit/tape/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SAMPLE = join(ROOT, 'backtest/tapes/sample.jsonl.gz');
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'sluice-bt-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const quiet = () => createLogger({ level: 'fatal', pretty: false, secrets: [] });

/** A backtest with the tape read into memory, or streamed from its file through the event cache in `eventCacheDir`. */
async function backtest(yaml: string, opts: { tape?: string; durationMs?: number; eventCacheDir?: string; trustedVenue?: boolean; decodeThread?: boolean } = {}) {
  const { config } = await parseConfig(yaml, { env: {} });
  const strategies = await loadStrategies(config.strategies, ROOT);
  const streamed = opts.eventCacheDir !== undefined;
  const tape = opts.tape && !streamed ? await readTape(opts.tape) : undefined;
  return runBacktest({ config, strategies, log: quiet(), tape, tapePath: streamed ? opts.tape : undefined, eventCacheDir: opts.eventCacheDir, tapeName: 'sample', durationMs: opts.durationMs, trustedVenue: opts.trustedVenue, decodeThread: opts.decodeThread });
}

const GRID = `
mode: paper
sim: { seed: 3, latencyMs: { min: 2, max: 20 }, faults: { error5xxRate: 0.02, lostResponseRate: 0.01 } }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02" } }
`;

describe('sluice backtest', () => {
  it('the same tape and config give a byte-identical report (JSON and HTML)', async () => {
    const a = await backtest(GRID, { tape: SAMPLE });
    const b = await backtest(GRID, { tape: SAMPLE });
    expect(a.events).toBeGreaterThan(1000);
    expect(a.report.trades.fills).toBeGreaterThan(10);
    expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
    expect(renderHtml(a.report, a.input)).toBe(renderHtml(b.report, b.input));
    // A different seed changes the simulated latency and faults, so the run differs.
    const c = await backtest(GRID.replace('seed: 3', 'seed: 4'), { tape: SAMPLE });
    expect(JSON.stringify(c.report)).not.toBe(JSON.stringify(a.report));
    // Streamed from the file: the first run decodes and caches the events, the second reads the cache.
    const cache = tmp();
    const cold = await backtest(GRID, { tape: SAMPLE, eventCacheDir: cache });
    // The decoded events, and beside them the tape's recorded incidents (tape/incidents.ts).
    expect(readdirSync(cache).sort()).toEqual([expect.stringMatching(/\.events$/), expect.stringMatching(/\.incidents$/), expect.stringMatching(/\.listings$/)]);
    const warm = await backtest(GRID, { tape: SAMPLE, eventCacheDir: cache });
    expect(JSON.stringify(cold.report)).toBe(JSON.stringify(a.report));
    expect(JSON.stringify(warm.report)).toBe(JSON.stringify(a.report));
    expect(renderHtml(warm.report, warm.input)).toBe(renderHtml(a.report, a.input));
    // The first run with the tape decoded on a thread of its own (a large tape's first run), and the cache it writes.
    const threaded = tmp();
    const onThread = await backtest(GRID, { tape: SAMPLE, eventCacheDir: threaded, decodeThread: true });
    expect(JSON.stringify(onThread.report)).toBe(JSON.stringify(a.report));
    const eventsIn = (dir: string) => join(dir, readdirSync(dir).find((n) => n.endsWith('.events'))!);
    expect(readFileSync(eventsIn(threaded))).toEqual(readFileSync(eventsIn(cache)));
  }, 90_000);

  it('the trusted in-process venue (no signatures, no JSON text) gives the report a wire-shaped one gives, byte for byte', async () => {
    // The sample backtest (faults, a 429 storm), and the strict venue at its worst on spot and
    // futures: lost answers, errors after acting, resets, timeouts, late fills, a clock jump
    // (-1021 and re-syncs) and a ban.
    const bad = `
mode: paper
sim: { seed: 7, profile: strict, latencyMs: { min: 1, max: 60 }, faults: { error5xxRate: 0.03, lostResponseRate: 0.02, errorAfterActRate: 0.02, resetRate: 0.01, timeoutRate: 0.01, lateFillRate: 0.2, lateFillDelayMs: 1500 },
  scenario: [ { kind: clock_jump, atMs: 200000, durationMs: 60000, skewMs: 4000 }, { kind: ban, atMs: 400000, durationMs: 30000 } ] }
strategies:
  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.01", levels: 5 } }
  - { id: twapf, use: strategies/twap/index.ts, market: futures, symbols: [E-BTC-USDT], params: { total: "50", slices: 5, repeat: true } }
`;
    const runs: [string, { tape?: string; durationMs?: number }][] = [
      [readFileSync(join(ROOT, 'config/backtest.yaml'), 'utf8'), { tape: SAMPLE }],
      [bad, { durationMs: 600_000 }],
    ];
    for (const [yaml, opts] of runs) {
      const trusted = await backtest(yaml, { ...opts, trustedVenue: true });
      const wire = await backtest(yaml, { ...opts, trustedVenue: false });
      expect([trusted, wire].map((r) => r.app.profile.venue.kind === 'sim' && r.app.profile.venue.trusted)).toEqual([true, false]);
      expect(trusted.report.orders.sent).toBeGreaterThan(100);
      expect(JSON.stringify(trusted.report)).toBe(JSON.stringify(wire.report));
      expect(renderHtml(trusted.report, trusted.input)).toBe(renderHtml(wire.report, wire.input));
      // The venue saw the same requests, answered the same way, at the same times.
      const seen = (r: typeof trusted) => r.sim.arrivals().map((a) => `${a.at} ${a.endpoint} ${a.status} ${a.code ?? ''} ${a.fault ?? ''}`);
      expect(seen(trusted)).toEqual(seen(wire));
    }
  }, 120_000);

  it('moves only the markets its strategies trade: the others keep the book they opened with', async () => {
    const run = await backtest(GRID, { tape: SAMPLE, durationMs: 600_000 });
    const opened = new SimExchange({ seed: 3, clock: new ManualClock(T0) });
    for (const still of ['ETHUSDT', 'E-BTC-USDT', 'E-ETH-USDT']) expect(run.sim.top(still), still).toEqual(opened.top(still));
    expect(run.sim.top('BTCUSDT')).not.toEqual(opened.top('BTCUSDT'));
  });

  it('fills agree with the venue: each is a trade of the simulator, at or better than its order limit, never above the order volume', async () => {
    const { app, sim } = await backtest(GRID, { tape: SAMPLE });
    const fills = app.journal.fills();
    const venue = new Map(sim.allTrades().map((t) => [t.id, t]));
    expect(fills.length).toBeGreaterThan(10);
    const perOrder = new Map<string, typeof ZERO>();
    for (const f of fills) {
      const t = venue.get(f.tradeId);
      expect(t, `fill ${f.tradeId} is a venue trade`).toBeDefined();
      expect([t!.price, t!.qty]).toEqual([f.price, f.volume]);
      const order = app.journal.ordersByVenueId(f.venueOrderId)[0]!;
      expect(order.side).toBe(f.side);
      if (order.type === 'LIMIT') expect(f.side === 'BUY' ? dec.lte(f.price, order.price!) : dec.gte(f.price, order.price!), `${f.side} at ${f.price} vs limit ${order.price}`).toBe(true);
      perOrder.set(order.clientOrderId, dec.add(perOrder.get(order.clientOrderId) ?? ZERO, f.volume));
      expect(dec.lte(perOrder.get(order.clientOrderId)!, order.volume)).toBe(true);
    }
    // Every venue trade of ours was seen exactly once: positions are the venue's.
    expect(fills.length).toBe(sim.allTrades().length);
  }, 60_000);

  it('PnL is what the account gained: spot fees taken in the base asset count, futures are marked at the mid, and what the stop did is in the final equity', async () => {
    // Spot: the balances' change, each asset at the end's mid (coins merely held do not move it).
    const spot = await backtest(`mode: paper\nsim: { seed: 3 }\nstrategies:\n  - { id: grid1, use: strategies/grid/index.ts, symbols: [BTCUSDT], params: { spacingPct: "0.02" } }\n`, { tape: SAMPLE });
    const mid = spot.sim.top('BTCUSDT').mid;
    const start: Record<string, string> = { USDT: '100000', BTC: '2', ETH: '20' };
    const change = spot.sim.balances().map((b) => {
      const delta = dec.sub(dec.add(b.free, b.locked), d(start[b.asset] ?? '0'));
      return b.asset === 'USDT' ? delta : b.asset === 'BTC' ? dec.mul(delta, mid) : (expect(delta).toBe('0'), ZERO);
    });
    expect(spot.report.fees.otherAssets.BTC).toBe('0.000111');
    expect(spot.report.pnl.total).toBe(dec.sum(change));

    // Futures, a position held to the end: the wallet, the margin in the position and its unrealised PnL at the mid.
    const futures = `mode: paper\nsim: { seed: 3 }\nstrategies:\n  - { id: twapf, use: strategies/twap/index.ts, market: futures, symbols: [E-BTC-USDT], params: { total: "50", slices: 5, repeat: true } }\n`;
    const held = await backtest(futures, { durationMs: 600_000 });
    const wallet = held.sim.futuresState();
    expect(wallet.positions).toHaveLength(1);
    const worth = dec.add(dec.add(wallet.available, wallet.locked), dec.sum(wallet.positions.map((p) => dec.add(p.margin, p.unrealized))));
    expect(held.report.pnl.startingEquity).toBe('100000');
    expect(held.report.pnl.total).toBe(dec.sub(worth, d('100000')));
    expect(dec.cmp(d(held.report.pnl.total!), d(held.report.pnl.realizedAfterFees)) > 0).toBe(true);

    // Flat at the end by a close in onStop: the final equity holds the close, so the total is the realised PnL after fees.
    const closer = await backtest(futures.replace('strategies/twap/index.ts', join(ROOT, 'test/fixtures/plugins/hold-then-close.ts')).replace(', params: { total: "50", slices: 5, repeat: true }', ''), { durationMs: 120_000 });
    expect(closer.sim.futuresState().positions).toEqual([]);
    expect(closer.report.trades.fills).toBe(2);
    expect(closer.report.pnl.total).toBe(closer.report.pnl.realizedAfterFees);
  }, 120_000);

  it('a sweep on worker threads gives the same figures as single runs', async () => {
    const runs = sweepRuns(GRID, [parseSweep('strategies.0.params.spacingPct=0.02,0.05')]);
    expect(runs.map((r) => r.label)).toEqual(['strategies.0.params.spacingPct=0.02', 'strategies.0.params.spacingPct=0.05']);
    expect(runs[1]!.configText).toContain('spacingPct: "0.05"');
    // As the CLI does: the tape is decoded once into the cache, and each worker reads it.
    const cache = tmp();
    await prepareEventCache(SAMPLE, cache);
    const rows = await runSweep(runs.map((r) => ({ configText: r.configText, label: r.label, tapePath: SAMPLE, eventCacheDir: cache, cwd: ROOT })), 2);
    const single = await backtest(runs[1]!.configText, { tape: SAMPLE });
    expect(rows[1]).toMatchObject({ pnl: single.report.pnl.total, fills: single.report.trades.fills, ordersSent: single.report.orders.sent });
    expect(rows[0]!.error).toBeUndefined();
    // Once: its events, its recorded incidents and its listings.
    expect(readdirSync(cache)).toHaveLength(3);
  }, 90_000);

  it('the CLI stops on a tape broken past its header with the line and no stack, for one run and for a sweep', async () => {
    const d = tmp();
    const broken = join(d, 'broken.jsonl');
    const lines = gunzipSync(readFileSync(SAMPLE)).toString('utf8').split('\n');
    lines.splice(50, 0, '{"broken');
    writeFileSync(broken, lines.join('\n'));
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
        execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', 'config/backtest.yaml', '--tape', broken, '--out', d, '--cache-dir', join(d, 'cache'), ...args], { cwd: ROOT }, (err, stdout, stderr) =>
          done({ code: err ? Number(err.code) : 0, stdout, stderr }),
        ),
      );
    const one = await cli();
    expect(one.code).toBe(1);
    expect(one.stderr).toBe(`backtest stopped: ${broken}:51: not JSON (Unterminated string in JSON at position 8)\n`);
    // A sweep (backtest --sweep is sluice sweep) reports every run failed with that reason: exit 2.
    const sweep = await cli('--sweep', 'strategies.0.params.levels=2,3');
    expect(sweep.code).toBe(2);
    expect(sweep.stdout).toContain(`${broken}:51: not JSON`);
    expect(sweep.stdout + sweep.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(join(d, 'cache'))).toEqual([]);
  }, 60_000);

  it('the config a daemon runs live backtests as it stands: its venue, credentials, ops and alerts are not read, and the run is the paper one', async () => {
    const d = tmp();
    const paper = readFileSync(join(ROOT, 'config/backtest.yaml'), 'utf8');
    const live = join(d, 'live.yaml');
    // Values from variables this machine does not set, and files it does not have.
    const daemon = 'venue: { spotUrl: "${SLUICE_SPOT_URL}" }\ncredentials: { file: /nowhere/sluice.key }\nhttp: { enabled: true, tokenFile: /nowhere/token }\nalerts: { webhookUrl: "${HOOK_URL}" }\n';
    writeFileSync(live, `${paper.replace('mode: paper', 'mode: live')}\n${daemon}`);
    const env = { ...process.env, SLUICE_SPOT_URL: undefined, HOOK_URL: undefined, SLUICE_API_KEY: 'not-read-key-4c1d', SLUICE_API_SECRET: 'not-read-secret-8e2b' };
    const cli = (config: string, out: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
        execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--tape', SAMPLE, '--out', out, '--no-cache'], { cwd: ROOT, env }, (err, stdout, stderr) => done({ code: err ? Number(err.code) : 0, stdout, stderr })),
      );
    const [fromLive, fromPaper] = [await cli(live, join(d, 'live')), await cli(join(ROOT, 'config/backtest.yaml'), join(d, 'paper'))];
    expect(fromLive.code, fromLive.stderr).toBe(0);
    expect(fromPaper.code, fromPaper.stderr).toBe(0);
    const figures = (dir: string) => {
      const { pnl, trades, sharpe } = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      return { pnl, trades, sharpe };
    };
    expect(figures(join(d, 'live'))).toEqual(figures(join(d, 'paper')));
    expect(fromLive.stdout + fromLive.stderr).not.toMatch(/not-read-(key|secret)/);
  }, 60_000);

  it('the CLI refuses a symbol the venue does not list with its YAML line and no stack', async () => {
    const d = tmp();
    const config = join(d, 'doge.yaml');
    writeFileSync(config, `mode: paper\nstrategies:\n  - id: d1\n    use: ${join(ROOT, 'strategies/grid/index.ts')}\n    symbols: [DOGEUSDT]\n`);
    const r = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--duration', '1', '--out', d], { cwd: ROOT }, (err, _out, stderr) => done({ code: err ? Number(err.code) : 0, stderr })),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${config} has 1 problem:\n  - strategies[0].symbols[0] (line 5): DOGEUSDT is not listed by the venue's spot market: fix or remove it (the venue's spot market lists BTCUSDT, ETHUSDT)\n`);
  });

  it('a backtest shows what its strategies log (ctx.log, at log.level), each line at the virtual time it was logged', async () => {
    const d = tmp();
    const run = (level: string) => {
      const config = join(d, `${level}.yaml`);
      writeFileSync(config, `mode: paper\nlog: { level: ${level} }\nstrategies:\n  - { id: t1, use: ${join(ROOT, 'test/fixtures/plugins/talker.ts')}, symbols: [BTCUSDT] }\n`);
      return new Promise<string>((done) => execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--duration', '1', '--out', d], { cwd: ROOT }, (_e, _o, stderr) => done(stderr)));
    };
    const lines = (await run('debug')).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; time: number; at?: number; strategy: string });
    const hello = lines.find((l) => l.msg === 'hello from the strategy')!;
    expect(hello).toMatchObject({ strategy: 't1', time: Date.UTC(2026, 0, 1) });
    expect(hello.at).toBe(hello.time);
    expect(lines.find((l) => l.msg === 'first tick')).toMatchObject({ strategy: 't1' });
    expect(await run('warn')).not.toContain('hello from the strategy');
  });

  it('a single run shows why intents were refused: warnings on stderr at virtual time, and per rule in the summary and report.json', async () => {
    const d = tmp();
    const config = join(d, 'unrounded.yaml');
    writeFileSync(config, `mode: paper\nlog: { level: info }\nstrategies:\n  - { id: u1, use: ${join(ROOT, 'test/fixtures/plugins/unrounded.ts')}, symbols: [BTCUSDT], everyMs: 1000 }\n`);
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((done) =>
      execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--duration', '60', '--out', d], { cwd: ROOT }, (_e, out, err) => done({ stdout: out, stderr: err })),
    );
    const refused = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; rule?: string; reason?: string; time: number }).filter((l) => l.msg === 'intent rejected');
    // Each rule five times in full within a 10 s window, on the run's virtual clock.
    expect(refused.filter((l) => l.rule === 'precision').slice(0, 5)).toHaveLength(5);
    expect(refused[0]!.time).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 1));
    expect(refused.find((l) => l.rule === 'precision')!.reason).toMatch(/^precision: price [\d.]+ has 5 decimals; BTCUSDT allows 2: round it/);
    const report = JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')) as { refusals: { rule: string; count: number; first: string }[]; orders: { sent: number } };
    expect(report.orders.sent).toBe(0);
    expect(report.refusals.map((r) => r.rule).sort()).toEqual(['invalid', 'precision']);
    const precision = report.refusals.find((r) => r.rule === 'precision')!;
    expect(precision.count).toBeGreaterThanOrEqual(50);
    // Thinned: not a line for each.
    expect(refused.filter((l) => l.rule === 'precision').length).toBeLessThan(precision.count);
    expect(report.refusals.find((r) => r.rule === 'invalid')!.first).toBe('a LIMIT order needs a price');
    expect(stdout).toContain(`refused before sending: `);
    expect(stdout).toContain(`precision ${precision.count} (first: ${precision.first})`);
    expect(readFileSync(join(d, 'report.html'), 'utf8')).toContain(`<td>Refused by precision</td><td>${precision.count} (first: `);
  }, 60_000);

  it('a simulated venue that fails the start-up through every retry stops the run with the request, the cause and the fix, no stack', async () => {
    const d = tmp();
    const config = join(d, 'failing.yaml');
    writeFileSync(config, `mode: paper\nsim: { faults: { error5xxRate: 1 } }\nstrategies:\n  - { id: t1, use: ${join(ROOT, 'test/fixtures/plugins/talker.ts')}, symbols: [BTCUSDT] }\n`);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((done) =>
      execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--duration', '1', '--out', d], { cwd: ROOT }, (e, _o, err) => done({ code: e ? Number(e.code) : 0, stderr: err })),
    );
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      "backtest stopped: spot.time: venue code -1016: Service unavailable, please try again later. (the simulated venue failed it through every retry: lower sim.faults, or set sim.recordedFaults: false to leave the tape's recorded troubles out)",
    );
  }, 60_000);

  it('warns when a traded symbol has no market data on the tape (a futures contract on a spot-only tape), on stderr and in the report', async () => {
    const d = tmp();
    const config = join(d, 'mixed.yaml');
    const talker = join(ROOT, 'test/fixtures/plugins/talker.ts');
    writeFileSync(config, `mode: paper\nlog: { level: error }\nstrategies:\n  - { id: f1, use: ${talker}, market: futures, symbols: [E-BTC-USDT] }\n  - { id: s1, use: ${talker}, symbols: [BTCUSDT] }\n`);
    const stderr = await new Promise<string>((done) =>
      execFile(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', config, '--tape', SAMPLE, '--out', d, '--no-cache'], { cwd: ROOT }, (_e, _o, err) => done(err)),
    );
    expect(stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      "warning: the tape holds no market data for futures E-BTC-USDT: it traded the simulator's own synthetic market there, not recorded reality (record a tape of it: README, Record your own tape)",
    ]);
    // The report says so too: it is read without the terminal's output.
    expect((JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')) as { untaped?: string[] }).untaped).toEqual(['futures E-BTC-USDT']);
    expect(readFileSync(join(d, 'report.html'), 'utf8')).toContain("futures E-BTC-USDT: the tape holds no market data for it; it traded the simulator&#39;s own synthetic market, not recorded reality");
  }, 60_000);

  it('a run that stops on a bad tape event leaves no part of an event cache behind, and the next stops the same way', async () => {
    const d = tmp();
    const tapePath = join(d, 'bad.jsonl');
    const calls = [
      call(0, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT', response: '{"high":"1","low":"1","last":"30000","vol":"1","buy":"1","sell":"1","time":1}' }),
      call(1, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=NOPEUSDT', at: T0 + 60_000, response: '{"high":"1","low":"1","last":"2","vol":"1","buy":"1","sell":"1","time":1}' }),
    ];
    writeFileSync(tapePath, [{ tape: TAPE_VERSION, kind: 'header', startedAt: T0, meta: {} }, ...calls].map((l) => JSON.stringify(l)).join('\n') + '\n');
    for (const decodeThread of [false, true]) {
      const cache = join(d, `cache-${decodeThread}`);
      const bad = /\(spot NOPEUSDT\) cannot be applied: unknown symbol/;
      await expect(backtest(GRID, { tape: tapePath, eventCacheDir: cache, decodeThread })).rejects.toThrow(bad);
      // The tape itself reads whole: its events, its recorded incidents and its listings were in
      // the cache, each file whole, before the run met the event (decoded in process, the tape went
      // into the cache first; on a thread, this small tape's one chunk came with its end). No part of a file.
      expect(readdirSync(cache).sort()).toEqual([expect.stringMatching(/^[0-9a-f]{40}\.events$/), expect.stringMatching(/^[0-9a-f]{40}\.incidents$/), expect.stringMatching(/^[0-9a-f]{40}\.listings$/)]);
      await expect(backtest(GRID, { tape: tapePath, eventCacheDir: cache, decodeThread })).rejects.toThrow(bad);
    }
  }, 30_000);

  it('the CLI writes report.json and a self-contained report.html, the same again from the event cache', async () => {
    const [out, again, cache] = [tmp(), tmp(), tmp()];
    const cli = (dir: string) => promisify(execFile)(process.execPath, [join(ROOT, 'bin/sluice.js'), 'backtest', '--config', 'config/backtest.yaml', '--tape', SAMPLE, '--out', dir, '--cache-dir', cache], { cwd: ROOT });
    const { stdout } = await cli(out);
    expect(readdirSync(cache).sort()).toEqual([expect.stringMatching(/\.events$/), expect.stringMatching(/\.incidents$/), expect.stringMatching(/\.listings$/)]);
    await cli(again);
    expect(readFileSync(join(again, 'report.json'), 'utf8')).toBe(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(stdout).toMatch(/^pnl -?[\d.]+ USDT .*fills \d+, win rate [\d.]+%/);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { tape: string; orders: { sent: number } };
    expect(report.tape).toBe('sample.jsonl.gz');
    expect(report.orders.sent).toBeGreaterThan(100);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    // lightweight-charts and the data inline (test/integration/report-page.test.ts draws it in Chromium).
    expect(html).toContain('<script type="application/json" id="report-data">');
    expect(html).toContain('TradingView Lightweight Charts');
    expect(html).not.toMatch(/<script[^>]*src=|<link[^>]*href=/);
    expect(readFileSync(join(again, 'report.html'), 'utf8')).toBe(html);
  }, 60_000);
});

describe('sluice replay', () => {
  /** The receiver's token rides in the URL, as Slack's and others' do. */
  const WEBHOOK = 'https://hooks.example.com/services/T000/B000/SuperSecretToken123';
  /** Records a ten-minute backtest of the stepper strategy (from `pluginFile`) to a tape. */
  async function record(pluginFile: string) {
    const d = tmp();
    const tapePath = join(d, 'session.jsonl');
    const yaml = `
mode: paper
sim: { seed: 9, faults: { lostResponseRate: 0.02, error5xxRate: 0.02 } }
strategies:
  - { id: step, use: ${pluginFile}, symbols: [BTCUSDT], everyMs: 1000 }
record: { path: ${tapePath} }
alerts: { webhookUrl: ${WEBHOOK} }
`;
    const result = await backtest(yaml, { durationMs: 10 * 60_000 });
    return { tapePath, result };
  }

  /** Replays the tape; `use` swaps the strategy file for the one recorded in the tape's config. */
  async function replay(tapePath: string, use?: string) {
    const tape = await readTape(tapePath);
    const recorded = tape.header.meta.config as never as Awaited<ReturnType<typeof parseConfig>>['config'];
    const config = use ? { ...recorded, strategies: recorded.strategies.map((s) => ({ ...s, use })) } : recorded;
    const strategies = await loadStrategies(config.strategies, ROOT);
    return runReplay({ config, strategies, log: quiet(), tape });
  }

  it('a recorded session replays exactly; a changed strategy fails with a readable diff', async () => {
    // Inside the package, so the copy resolves 'sluice/strategy' like any plugin of this project.
    mkdirSync(join(ROOT, 'scratch'), { recursive: true });
    const pluginDir = mkdtempSync(join(ROOT, 'scratch', 'replay-'));
    dirs.push(pluginDir);
    const plugin = join(pluginDir, 'stepper.ts');
    copyFileSync(join(ROOT, 'test/fixtures/backtest/stepper.ts'), plugin);
    const { tapePath, result } = await record(plugin);
    expect(result.report.orders.sent).toBeGreaterThan(100);
    const { requests } = await replay(tapePath);
    expect(requests).toBe((await readTape(tapePath)).calls.length);

    // A new file: the module loader caches the first one for the life of this process.
    const changed = join(pluginDir, 'stepper-changed.ts');
    writeFileSync(changed, readFileSync(plugin, 'utf8').replace("const OFFSET = '0.5';", "const OFFSET = '0.7';"));
    const err = await replay(tapePath, changed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TapeMismatchError);
    expect((err as Error).message).toMatch(/^request differs from the tape:\nspot\.order request #0 \(POST \/sapi\/v1\/order\), recorded as seq \d+:\n- body\.price: "[\d.]+"\n\+ body\.price: "[\d.]+"$/);
  }, 90_000);

  it('no tape holds the API secret or key, plain or gzip', async () => {
    const { tapePath, result } = await record(join(ROOT, 'test/fixtures/backtest/stepper.ts'));
    const { apiKey, apiSecret } = result.sim;
    const plain = readFileSync(tapePath, 'utf8');
    expect(plain.length).toBeGreaterThan(10_000);
    expect(plain).not.toContain(apiSecret);
    expect(plain).not.toContain(apiKey);
    // The header's config is what a replay re-runs, without the alerts' webhook and its token.
    expect(plain).not.toContain('SuperSecretToken123');
    expect((await readTape(tapePath)).header.meta.config).toMatchObject({ alerts: { webhookUrl: null }, sim: { seed: 9 } });
    const sample = gunzipSync(readFileSync(SAMPLE)).toString('utf8');
    expect(sample).not.toMatch(/x-ch-sign|x-ch-apikey/i);
  }, 60_000);
});
