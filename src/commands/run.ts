// `sluice run`: load and check everything at the door, then build the daemon's app and run it
// until a signal stops it, with the ops endpoint, alerts and the kill-switch controls around it.
import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { systemClock } from '../core/clock.js';
import { ConfigError, JournalError, errorText } from '../core/errors.js';
import type { Order } from '../core/types.js';
import { DEFAULTS, locatedError, opsEnabled } from '../config/index.js';
import { buildApp, type App, type AppInputs } from '../app/build.js';
import { createLogger, prettyLogs } from '../app/logger.js';
import { preferSmallHeap } from '../app/heap.js';
import { createDaemonOpsSource, VenueWatch } from '../app/ops-source.js';
import { withKeyProblems } from '../app/preflight.js';
import { daemon } from '../app/profiles.js';
import { Alerts, closedLine, createMetrics, startOpsServer, type Metrics, type OpsServer } from '../ops/index.js';
import type { KillSwitchMode, RiskGate } from '../risk/index.js';
import { prepare, secretsOf } from './prepare.js';
import { SAME_REQUEST_MS, stopVerdict } from './stop-signal.js';

/** How often the dashboard samples prices, equity and realised PnL. */
export const DASHBOARD_SAMPLE_MS = 1000;

/** The exit code of a stop that left orders of ours unsettled at the venue (a `stop_unsettled` alert says which). */
export const EXIT_UNSETTLED = 3;

/**
 * The exit code of a stop that failed part way (a journal error in its last pass): what it left
 * at the venue, and whether the journal has the stop's last changes, is not known.
 */
export const EXIT_STOP_FAILED = 4;

export async function runCommand(configPath: string): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  // Before the app is built: V8 reads it as it sizes its heap after each collection.
  if (config.engine.heap === 'small') preferSmallHeap();
  const log = createLogger({
    level: config.log.level,
    pretty: prettyLogs(config.log.pretty, process.stdout.isTTY),
    secrets: secretsOf(prepared.loaded),
  });
  const secrets = secretsOf(prepared.loaded);
  const now = () => systemClock.now();

  // Ops: metrics, the local endpoint and webhook alerts. The source reads the app late (the app
  // takes the call tap that feeds it), so the endpoint can answer 503 "starting" from the first moment.
  let app: App | undefined;
  const watch = new VenueWatch();
  const alerts = new Alerts({ webhookUrl: config.alerts.webhookUrl, minIntervalMs: config.alerts.minIntervalMs, now, sleep: (ms) => systemClock.sleep(ms), log, secrets });
  const source = createDaemonOpsSource({ config, app: () => app, watch, now, alerts: () => alerts.recent() });
  const metrics = createMetrics(source, { now });
  let alertedBanUntil = 0;
  const onCall: AppInputs['onCall'] = (record) => {
    metrics.onCall(record);
    const ban = watch.observe(record);
    // Every call refused during a ban carries it; one alert per ban (a longer ban is a new one).
    if (ban && ban.untilMs > alertedBanUntil) {
      alertedBanUntil = ban.untilMs;
      alerts.send('ban', `the venue banned this key until ${new Date(ban.untilMs).toISOString()}: all requests are paused until then`, { endpoint: record.endpoint, until: ban.untilMs, httpStatus: record.httpStatus });
    }
  };

  // Bind before the app takes the journal lock: a port in use then stops start-up having touched nothing.
  let ops: OpsServer | undefined;
  let sampling: ReturnType<typeof setInterval> | undefined;
  if (opsEnabled(config)) {
    const token = prepared.loaded.httpToken;
    const serve = (port: number) => startOpsServer({ host: config.http.host, port, source, metrics, now, log, ...(token !== undefined ? { token } : {}) });
    try {
      ops = await serve(config.http.port).catch((err: unknown) => {
        // The paper demo's dashboard (http.enabled: auto) moves to a free port rather than not
        // start: a second demo, or a test, may hold the default one. A port set on purpose stays fatal.
        if (config.http.enabled !== 'auto' || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
        log.warn({ port: config.http.port }, 'the ops port is in use: the dashboard takes a free one');
        return serve(0);
      });
    } catch (err) {
      log.fatal({ err: errorText(err), host: config.http.host, port: config.http.port }, 'could not start the ops endpoint (http.host, http.port): is the port in use?');
      log.flush();
      return 1;
    }
    // Listening from here (its /healthz says starting); the dashboard's URL is printed once the daemon has started.
    log.info({ url: ops.url, routes: ['/', '/events', '/healthz', '/metrics', '/status.json'] }, `ops endpoint listening on ${ops.url}; the dashboard's URL follows once the daemon has started`);
    sampling = setInterval(() => {
      try {
        source.sample();
      } catch (err) {
        log.warn({ err: errorText(err) }, 'dashboard sample failed');
      }
    }, DASHBOARD_SAMPLE_MS);
    sampling.unref();
  }
  /** `say: 'always'`: the line says so when all went well too (a stop's last words); otherwise only trouble. */
  const closeOps = async (say: 'always' | 'trouble' = 'trouble') => {
    clearInterval(sampling);
    await ops?.close().catch((err: unknown) => log.warn({ err: errorText(err) }, 'ops endpoint did not close cleanly'));
    // Held-back alerts go out now, and the process waits for the webhook (bounded) before it exits.
    const line = closedLine(await alerts.close(), ops !== undefined);
    if (line.level === 'warn') log.warn(line.fields, line.msg);
    else if (say === 'always') log.info(line.fields, line.msg);
  };

  try {
    app = buildApp({ config, profile: daemon(config, systemClock), credentials, strategies: prepared.strategies, log, onCall, alert: (kind, message, details) => alerts.send(kind, message, details) });
  } catch (err) {
    // A journal that is locked, corrupt or from a newer sluice: say so and touch nothing.
    if (!(err instanceof JournalError)) throw err;
    log.fatal({ err: err.message }, 'could not open the journal');
    await closeOps();
    log.flush();
    return 1;
  }
  const running: App = app;
  watchEngine(running, metrics);
  // Reachability is judged per reconcile pass, so an outage is alerted as it starts and ends, not per request.
  running.engine.events.on('reconciled', () => {
    const change = watch.passEnded();
    if (!change) return;
    log.warn({ alert: change.kind }, change.message);
    alerts.send(change.kind, change.message, change.details);
  });
  log.info(
    { mode: config.mode, strategies: prepared.strategies.map((s) => `${s.entry.id} (${s.definition.name}: ${s.entry.symbols.join(',')})`) },
    config.mode === 'paper' ? 'starting on the built-in simulated exchange (paper mode: no real money)' : 'starting live',
  );
  if (config.mode === 'paper' && config.journal.path !== DEFAULTS.journal.path) {
    log.warn({ journalPath: config.journal.path }, 'journal.path is not used in paper mode: the paper journal is kept in memory (the simulator starts fresh each run), so nothing is written there');
  }

  let stopping: Promise<void> | undefined;
  let firstSignal: { signal: string; at: number } | undefined;
  let unsettled = 0;
  let stopFailed: { err: unknown } | undefined;
  let markStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));
  const stop = (signal: string) => {
    const verdict = stopVerdict(firstSignal, signal, now());
    if (verdict === 'same') {
      log.info({ signal, withinMs: SAME_REQUEST_MS }, `${signal} again within ${SAME_REQUEST_MS} ms of the first: taken as the same stop request (Ctrl-C under npm or npx arrives twice); another one after that hurries the stop`);
      return;
    }
    if (verdict === 'hurry') {
      log.warn({ signal }, 'stopping at once: handlers still running are abandoned and no more settling passes run; the cancels asked for are still sent, and the next start settles the rest');
      running.hurry();
      return;
    }
    firstSignal = { signal, at: now() };
    log.info({ signal }, 'stopping: strategies first, then queued intents and open orders per config');
    stopping = running
      .stop()
      .then(
        (outcome) => void (unsettled = outcome.unsettled.length),
        (err: unknown) => void (stopFailed = { err }),
      )
      .finally(markStopped);
  };
  const halted = (by: string) =>
    alerts.send('halt', `trading halted by ${by}: no new orders until it is lifted (cancels still pass)`, { killSwitch: 'halted', by });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGUSR2', () => {
    const mode = running.riskGate.toggleHalt();
    log.warn({ killSwitch: mode }, 'kill switch toggled by SIGUSR2');
    if (mode === 'halted') halted('SIGUSR2');
  });

  const killFile = config.risk.killSwitch.file;
  let fileState: KillSwitchMode | undefined;
  const watchKillFile = killFile
    ? setInterval(() => {
        fileState = applyKillFile(killFile, fileState, running.riskGate, log, config.risk.killSwitch.mode, (mode) => {
          if (mode === 'halted') halted(`the kill-switch file ${killFile}`);
        });
      }, 1000)
    : undefined;
  try {
    await running.start();
  } catch (thrown) {
    // A refusal names its config field with the line (a symbol the venue does not list, a feed it
    // cannot serve), with the key's refusal beside it, as `sluice validate` lists them: one round.
    const err = await withKeyProblems(thrown, running, config);
    log.fatal({ err: err instanceof ConfigError ? locatedError(err, readFileSync(configPath, 'utf8'), configPath).message : errorText(err) }, 'could not start');
    clearInterval(watchKillFile);
    await running.stop().catch((err: unknown) => log.error({ err: errorText(err) }, 'the stop after the failed start failed too: run `sluice status` to see what is open'));
    // Its last line says the ops endpoint closed: the listening line named its URL.
    await closeOps(ops ? 'always' : 'trouble');
    log.flush();
    return 1;
  }
  // A stop during the start (a ban's wait) ends the start early: nothing ran.
  if (!stopping) {
    // Only now, so a start refused (a symbol the venue does not list) never shows a URL to a daemon
    // that is not running. stderr, so stdout stays JSON.
    const token = prepared.loaded.httpToken;
    if (ops) process.stderr.write(`dashboard: ${ops.url}/${token !== undefined ? ` (needs the token: open ${ops.url}/?token=... once)` : ''}\n`);
    log.info(running.engine.summary(), 'running; Ctrl-C stops');
  }
  await stopped;
  clearInterval(watchKillFile);
  await closeOps('always');
  if (stopFailed) {
    log.error(
      { err: errorText(stopFailed.err), exitCode: EXIT_STOP_FAILED },
      'the stop failed before it finished: orders of ours may still be open at the venue, and the journal may lack the stop\'s last changes. Run `sluice status` to see what is open, cancel on the venue by hand what should not rest, or start sluice again to reconcile',
    );
    log.flush();
    return EXIT_STOP_FAILED;
  }
  // Not a clean stop: whoever runs sluice (systemd, a script) hears that orders may still be resting.
  if (unsettled > 0) log.error({ unsettled, exitCode: EXIT_UNSETTLED }, `exiting with ${unsettled} orders of ours unsettled at the venue (the stop_unsettled alert names them)`);
  log.flush();
  return unsettled > 0 ? EXIT_UNSETTLED : 0;
}

/**
 * Engine events feed what has no hook of its own: intent-to-ack latency, read from the order's
 * history (the intent's `pending` entry and the `acknowledged` one the engine writes on the
 * venue's answer). A disabled plugin is alerted by the engine itself, as it happens.
 */
function watchEngine(app: App, metrics: Metrics): void {
  const seen = new Set<string>();
  const onOrder = (order: Order) => {
    if (order.status === 'pending' || order.status === 'unknown' || order.status === 'rejected') return;
    if (seen.has(order.clientOrderId)) {
      if (order.status === 'filled' || order.status === 'canceled') seen.delete(order.clientOrderId);
      return;
    }
    if (order.status !== 'filled' && order.status !== 'canceled') seen.add(order.clientOrderId);
    let history;
    try {
      history = app.journal.history(order.clientOrderId);
    } catch {
      return; // the journal closed under a late event (shutdown)
    }
    const first = history[0];
    const ack = history.find((e) => e.reason === 'acknowledged');
    if (first && ack && first.status === 'pending') metrics.observeIntentToAck(Math.max(0, ack.at - first.at));
  };
  app.engine.events.on('order', onOrder);
}

/**
 * The kill-switch file: present means halted, or reduce-only when it says so; removed means the
 * configured mode. Only a change of the file acts, so SIGUSR2 is not undone a second later.
 */
function applyKillFile(
  file: string,
  last: KillSwitchMode | undefined,
  gate: RiskGate,
  log: Logger,
  configured: KillSwitchMode,
  changed: (mode: KillSwitchMode) => void,
): KillSwitchMode {
  const wanted: KillSwitchMode = existsSync(file) ? (readFileSync(file, 'utf8').includes('reduce_only') ? 'reduce_only' : 'halted') : configured;
  if (wanted !== last && (last !== undefined || wanted !== configured)) {
    gate.setKillSwitch(wanted);
    log.warn({ killSwitch: wanted, file }, 'kill switch changed by its file');
    changed(wanted);
  }
  return wanted;
}
