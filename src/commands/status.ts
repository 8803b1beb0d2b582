// `sluice status`: journal and venue side by side; exit 1 when positions drift or open orders disagree.
import { existsSync } from 'node:fs';
import { JournalError } from '../core/errors.js';
import { buildApp, type App } from '../app/build.js';
import { createLogger } from '../app/logger.js';
import { inspect } from '../app/profiles.js';
import { statusReport } from '../app/status.js';
import { prepare, secretsOf } from './prepare.js';

export async function statusCommand(configPath: string): Promise<number> {
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
  let app: App;
  try {
    // The real journal without lock or write: status works while the daemon runs.
    app = buildApp({ config, profile: inspect(config, 'read-only'), credentials, strategies: prepared.strategies, log });
  } catch (err) {
    if (!(err instanceof JournalError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  try {
    await app.client.start();
    const { text, drift, ordersDisagree } = await statusReport(app);
    process.stdout.write(`${text}\n`);
    return drift || ordersDisagree ? 1 : 0;
  } finally {
    await app.client.close();
    app.journal.close();
  }
}
