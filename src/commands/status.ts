// `sluice status`: journal and venue side by side; exit 1 when positions drift or open orders disagree.
import { existsSync } from 'node:fs';
import { systemClock } from '../core/clock.js';
import { errorText, JournalError, VenueError } from '../core/errors.js';
import { buildApp, type App } from '../app/build.js';
import { createLogger } from '../app/logger.js';
import { inspect } from '../app/profiles.js';
import { daemonStatus, daemonStrategies } from '../app/daemon-probe.js';
import { statusReport, type StatusReport, type StatusStrategies } from '../app/status.js';
import { prepare, secretsOf } from './prepare.js';

export interface StatusOptions {
  /** Waits between the two looks (the system clock's sleep; a test does what a daemon would meanwhile). */
  wait?: (ms: number) => Promise<void>;
}

export async function statusCommand(configPath: string, opts: StatusOptions = {}): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  if (config.mode !== 'live') {
    // Not a failure: there is simply nothing outside the paper daemon's own process to read.
    process.stdout.write(
      'status: nothing to show in paper mode: the paper daemon keeps its journal in memory and trades a simulator that starts fresh each run, so nothing outlives it to compare; while it runs, read its summary lines or its ops endpoint (/status.json). status compares a live journal with the venue (mode: live)\n',
    );
    return 0;
  }
  if (!existsSync(config.journal.path)) {
    process.stderr.write(`no journal at ${config.journal.path}: has the daemon run with this config? (journal.path)\n`);
    return 1;
  }
  const log = createLogger({ level: 'warn', pretty: false, secrets: secretsOf(prepared.loaded) });
  // Only a running daemon knows a strategy it disabled (a handler threw): asked when its ops endpoint is on.
  const daemon = daemonStrategies(await daemonStatus(config, prepared.loaded.httpToken));
  const known: StatusStrategies = daemon ? { configured: config.strategies, daemon } : { configured: config.strategies };
  // The real journal without lock or write: status works while the daemon runs.
  const look = async (first?: StatusReport): Promise<StatusReport | string> => {
    let app: App;
    try {
      app = buildApp({ config, profile: inspect(config, 'read-only'), credentials, strategies: prepared.strategies, log });
    } catch (err) {
      if (!(err instanceof JournalError)) throw err;
      return err.message;
    }
    try {
      // The daemon's promise: no request to a venue that banned this key (status records no ban of its own, so each run would meet it again).
      const bannedUntil = app.journal.banUntil();
      if (bannedUntil > systemClock.now()) return `status: the venue was not asked: the journal records a venue ban until ${new Date(bannedUntil).toISOString()}, and nothing is sent before it ends; run sluice status again after it`;
      await app.client.start();
      return await statusReport(app, first, known);
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      return `status: the venue did not answer (${errorText(err)}), so the journal cannot be compared with it: try again, or run sluice doctor (venue.spotUrl, the network, the credentials)`;
    } finally {
      await app.client.close();
      app.journal.close();
    }
  };
  let report = await look();
  // A running daemon journals a fill or an answer on its next pass: a difference seen once may
  // be one on its way. As the daemon's own drift rule, only one that lasts graceMs counts: the
  // second look counts what both saw (statusReport), never what only it saw.
  const graceMs = config.reconcile.drift.graceMs;
  if (typeof report !== 'string' && report.differences.size > 0 && graceMs > 0) {
    process.stderr.write(`status: the journal and the venue differ; looking again in ${graceMs / 1000} s (reconcile.drift.graceMs), as a running daemon may not have journaled a fill or an answer yet\n`);
    await (opts.wait ?? systemClock.sleep)(graceMs);
    report = await look(report);
  }
  if (typeof report === 'string') {
    process.stderr.write(`${report}\n`);
    return 1;
  }
  process.stdout.write(`${report.text}\n`);
  return report.drift || report.ordersDisagree ? 1 : 0;
}
