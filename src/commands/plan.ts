// `sluice plan`: one round of every strategy against the venue's current state, through a
// gateway that sends nothing, printed as batches and risk verdicts.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/errors.js';
import type { OrderIntent } from '../core/types.js';
import { locatedError } from '../config/index.js';
import { toBatches } from '../batcher/index.js';
import { buildApp } from '../app/build.js';
import { createLogger } from '../app/logger.js';
import { planJournal } from '../app/plan-journal.js';
import { inspect } from '../app/profiles.js';
import type { RiskRejection } from '../risk/index.js';
import { prepare, secretsOf } from './prepare.js';

export async function planCommand(configPath: string): Promise<number> {
  const prepared = await prepare(configPath);
  if (!prepared) return 1;
  const { config, credentials } = prepared.loaded;
  // Warnings (foreign orders found, say) go to stderr: stdout is the plan.
  const log = createLogger({ level: 'warn', pretty: false, secrets: secretsOf(prepared.loaded), destination: process.stderr });
  // Planning must not consume sequences or record intents in the real journal: a live plan works
  // on a scratch copy of it (the positions and open orders risk judges), anything else in memory.
  const scratch = await planJournal(config);
  const app = buildApp({ config, profile: inspect(config, 'memory'), credentials, strategies: prepared.strategies, log, ...(scratch ? { journal: scratch.journal } : {}) });
  const rejected: RiskRejection[] = [];
  app.engine.events.on('rejected', (r) => rejected.push(r));
  try {
    await app.client.start();
    await app.engine.runOnce();
  } catch (err) {
    // What only the venue can tell: a symbol it does not list, a feed its market cannot poll.
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${locatedError(err, readFileSync(configPath, 'utf8'), configPath).message}\n`);
    return 1;
  } finally {
    await app.client.close();
    scratch?.discard();
  }
  // Shown as the batcher groups them (up to 10 of one symbol and kind); the dispatcher then
  // sends each group as one batch request or as singles, whichever the free capacity favours.
  const intents = app.dryRun!.batches.flatMap((b) => b.items);
  const batches = toBatches(intents);
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const lines = [`plan: ${n(intents.length, 'intent', 'intents')} accepted by risk, ${rejected.length} rejected, ${n(batches.length, 'batch', 'batches')} (nothing sent)`];
  for (const b of batches) lines.push(`  batch ${b.market} ${b.symbol} ${b.kind} x${b.items.length}: ${b.items.map(describe).join('; ')}`);
  for (const r of rejected) lines.push(`  rejected ${describe(r.intent)}: ${r.reason}`);
  for (const h of app.engine.hosts.filter((x) => !x.enabled)) lines.push(`  disabled ${h.id}: ${h.disabledBy?.message}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function describe(i: OrderIntent): string {
  return i.kind === 'place' ? `${i.clientOrderId} ${i.side} ${i.type} ${i.volume} ${i.symbol}${i.price ? ` @ ${i.price}` : ''}` : `cancel ${i.clientOrderId}`;
}
