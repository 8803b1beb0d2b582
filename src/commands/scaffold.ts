// `sluice init DIR` and `sluice new-strategy NAME`: a strategy project of your own that depends
// on sluice (the path freqtrade's create-userdir and new-strategy open), so strategies live in
// your repo, not inside a sluice checkout.
//
// The project is an ES module package ("type": "module"): plugins are ES modules, and sluice
// imports them as they are (TypeScript, no build step). Its test script runs vitest on the
// strategies with the harness sluice exports as `sluice/testing`.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { STRATEGY_ID } from '../config/index.js';
import { PACKAGE_ROOT } from '../core/package-root.js';

const NAME = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * The config id for a strategy NAME: the name without dashes, cut to 12 characters. The id is
 * part of every client order id, so it is shorter and plainer than a directory name may be.
 */
export function strategyIdOf(name: string): string {
  return name.replace(/-/g, '').slice(0, 12);
}

/** How the new project names its sluice dependency: the installed version, or this checkout's path. */
function sluiceSpec(): string {
  const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return PACKAGE_ROOT.split(sep).includes('node_modules') ? `^${own.version}` : `file:${PACKAGE_ROOT}`;
}

/** The versions sluice itself tests and typechecks with, for the project's own tests and editor. */
function devDependencies(): Record<string, string> {
  const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  return Object.fromEntries(['vitest', 'typescript', '@types/node'].map((p) => [p, own.devDependencies?.[p] ?? 'latest']));
}

/** A refusal that says what to do; the CLI prints it and exits 1. */
export class ScaffoldError extends Error {}

export function initProject(dir: string): string[] {
  const root = resolve(dir);
  if (existsSync(root) && readdirSync(root).length > 0) throw new ScaffoldError(`${root} is not empty: init makes a new project; pick a new directory (or add a strategy to this one with \`sluice new-strategy NAME\`)`);
  const name = basename(root).toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'strategies';
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name,
        private: true,
        type: 'module',
        scripts: {
          start: 'sluice run --config sluice.yaml',
          validate: 'sluice validate --config sluice.yaml',
          plan: 'sluice plan --config sluice.yaml',
          backtest: 'sluice backtest --config sluice.yaml --duration 30',
          test: 'vitest run',
          typecheck: 'tsc',
        },
        dependencies: { sluice: sluiceSpec() },
        devDependencies: devDependencies(),
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, noEmit: true, types: ['node'] },
        include: ['strategies'],
      },
      null,
      2,
    )}\n`,
    'sluice.yaml': CONFIG,
    '.gitignore': GITIGNORE,
    '.npmrc': NPMRC,
    'README.md': readme(name),
    ...strategyFiles('example'),
  };
  return write(root, files);
}

/** Adds strategies/NAME to the project in `dir`, and an entry for it to `config` when that file exists. */
export function newStrategy(name: string, dir: string, config = 'sluice.yaml'): string[] {
  if (!NAME.test(name)) throw new ScaffoldError(`"${name}" cannot name a strategy: use lower-case letters, digits and dashes, starting with a letter (e.g. dip-buyer)`);
  const id = strategyIdOf(name);
  if (!STRATEGY_ID.test(id)) throw new ScaffoldError(`"${name}" gives no usable strategy id ("${id}"): ids are 1-12 lower-case letters or digits; pick another name`);
  const root = resolve(dir);
  if (existsSync(join(root, 'strategies', name))) throw new ScaffoldError(`strategies/${name} already exists in ${root}: pick another name`);
  const configPath = resolve(root, config);
  // Read and checked before anything is written: a refusal leaves the project as it was.
  const doc = existsSync(configPath) ? configWithRoomFor(configPath, name, id) : undefined;
  const written = write(root, strategyFiles(name));
  if (doc) {
    addToConfig(doc, configPath, name, id);
    written.push(`${relative(root, configPath)} (strategy "${name}" added as id ${id}, disabled: set enabled: true to run it)`);
  }
  return written;
}

function write(root: string, files: Record<string, string>): string[] {
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text, { flag: 'wx' });
  }
  return Object.keys(files);
}

/** The config as a document that can take strategy `id`; refuses a file it cannot add to. */
function configWithRoomFor(path: string, name: string, id: string): Document.Parsed {
  const doc = parseDocument(readFileSync(path, 'utf8'));
  if (doc.errors.length > 0) throw new ScaffoldError(`${path} is not valid YAML (${doc.errors[0]!.message}); add the strategy by hand`);
  if (!isMap(doc.contents)) throw new ScaffoldError(`${path} is not a YAML mapping; add the strategy by hand`);
  const list: unknown = doc.toJS().strategies;
  const taken = Array.isArray(list) && list.some((s) => typeof s === 'object' && s !== null && (s as { id?: unknown }).id === id);
  if (taken) {
    throw new ScaffoldError(
      `${path} already has a strategy with id "${id}", the id "${name}" makes (dashes dropped, cut to 12 characters: it is part of every client order id): pick a name that differs in its first 12 letters and digits`,
    );
  }
  return doc;
}

/** Appends the strategy to the config's `strategies` list, keeping the file's comments and layout. */
function addToConfig(doc: Document.Parsed, path: string, name: string, id: string): void {
  const list = doc.get('strategies');
  const entry = doc.createNode({ id, use: `./strategies/${name}/index.ts`, enabled: false, symbols: ['BTCUSDT'], everyMs: 1000, params: {} });
  if (isSeq(list)) list.add(entry);
  else doc.set('strategies', doc.createNode([entry.toJSON()]));
  writeFileSync(path, doc.toString({ flowCollectionPadding: false }));
}

function strategyFiles(name: string): Record<string, string> {
  return { [`strategies/${name}/index.ts`]: strategySource(name), [`strategies/${name}/index.test.ts`]: strategyTest(name) };
}

function strategySource(name: string): string {
  return `// ${name}: buys when the price has dropped dropPct below the highest price seen, and sells
// what it bought once the price is takeProfitPct above its entry. One order at a time.
import { d, dec, decimalParam, defineStrategy, z, type Decimal } from "sluice/strategy";

export default defineStrategy({
  apiVersion: 2,
  name: '${name}',
  params: z
    .object({
      dropPct: decimalParam('0.05'),
      takeProfitPct: decimalParam('0.05'),
      volume: decimalParam('0.001'),
    })
    .strict(),
  create(ctx) {
    const high = new Map<string, Decimal>();
    const pct = (x: Decimal, p: Decimal) => dec.mul(x, dec.div(p, d('100')));
    return {
      onTick() {
        for (const symbol of ctx.symbols) {
          const last = ctx.lastPrice(symbol);
          if (!last || ctx.openOrders(symbol).length > 0) continue;
          const top = dec.max(high.get(symbol) ?? last, last);
          high.set(symbol, top);
          // This strategy's own position (ctx.position is the whole account's). Flat: nothing
          // held, or only dust below what one order can sell.
          const held = ctx.ownPosition(symbol);
          if (!ctx.isFlat(symbol)) {
            const target = dec.add(held.avgEntryPrice, pct(held.avgEntryPrice, ctx.params.takeProfitPct));
            // netQuantity: a spot buy's fee is taken in the base coin, so less than quantity is held.
            const volume = dec.truncate(held.netQuantity, ctx.instrument(symbol)!.quantityPrecision);
            if (dec.gte(last, target)) ctx.place({ symbol, side: 'SELL', type: 'LIMIT', price: last, volume });
          } else if (dec.lte(last, dec.sub(top, pct(top, ctx.params.dropPct)))) {
            ctx.place({ symbol, side: 'BUY', type: 'LIMIT', price: last, volume: ctx.params.volume });
            high.set(symbol, last);
          }
        }
      },
      onFill(fill) {
        ctx.log.info('filled', { side: fill.side, price: fill.price, volume: fill.volume });
      },
      onOrderEvent(e) {
        if (e.kind === 'rejected') ctx.log.warn('order not placed', { reason: e.reason });
      },
    };
  },
});
`;
}

function strategyTest(name: string): string {
  return `import { describe, expect, it } from "vitest";
import { d } from "sluice/strategy";
import { harness } from "sluice/testing";
import strategy from "./index.js";

describe('${name}', () => {
  it('waits for a price, then buys a drop below the highest price seen', async () => {
    const { host, view } = harness(strategy, { dropPct: '1', volume: '0.002' });
    expect((await host.tick()).intents).toEqual([]);
    view.prices.set('BTCUSDT', d('100'));
    expect((await host.tick()).intents).toEqual([]);
    view.prices.set('BTCUSDT', d('98.9'));
    const out = await host.tick();
    expect(out.intents).toMatchObject([{ kind: 'place', side: 'BUY', type: 'LIMIT', price: '98.9', volume: '0.002' }]);
  });

  it('sells its position once the price is takeProfitPct above the entry', async () => {
    const { host, view } = harness(strategy, { takeProfitPct: '2' });
    view.prices.set('BTCUSDT', d('102'));
    // Bought 0.001 BTC, of which the venue took 0.000001 as the fee: 0.000999 is held.
    view.ownPositions.set('BTCUSDT', { market: 'spot', symbol: 'BTCUSDT', quantity: d('0.001'), netQuantity: d('0.000999'), avgEntryPrice: d('100'), realizedPnl: d('0'), fees: d('0'), otherFees: { BTC: d('0.000001') }, unbookedQuantity: d('0') });
    expect((await host.tick()).intents).toMatchObject([{ kind: 'place', side: 'SELL', price: '102', volume: '0.00099' }]);
  });

  it('counts dust below what one order can sell as flat, and buys again', async () => {
    const { host, view } = harness(strategy, { dropPct: '1', volume: '0.002' });
    view.ownPositions.set('BTCUSDT', { market: 'spot', symbol: 'BTCUSDT', quantity: d('0.000004'), netQuantity: d('0.000004'), avgEntryPrice: d('100'), realizedPnl: d('0'), fees: d('0'), otherFees: {}, unbookedQuantity: d('0') });
    view.prices.set('BTCUSDT', d('100'));
    await host.tick();
    view.prices.set('BTCUSDT', d('98.9'));
    expect((await host.tick()).intents).toMatchObject([{ kind: 'place', side: 'BUY', volume: '0.002' }]);
  });
});
`;
}

const CONFIG = `# Your strategies, in paper mode: the built-in simulated exchange, no credentials, no real money.
# Every knob and its default: node_modules/sluice/config/default.yaml. Check this file with
# \`npm run validate\`; switch to real money with mode: live and the venue's URL (credentials come
# from SLUICE_API_KEY and SLUICE_API_SECRET in the environment, never from this file).
mode: paper

strategies:
  - id: example
    use: ./strategies/example/index.ts
    symbols: [BTCUSDT]
    everyMs: 1000
    params:
      dropPct: "0.05"
      takeProfitPct: "0.05"
      volume: "0.001"

journal:
  path: .sluice/journal.db     # live mode's durable journal (paper mode keeps it in memory)
`;

/** Why: see sluice's own .npmrc (Ctrl-C through npx or npm start exits 0, after sluice has stopped). */
const NPMRC = `# npm runs scripts and npx through /bin/sh; Debian's dash dies at Ctrl-C without waiting for
# sluice's orderly stop (npm then exits 130). bash hands the command the process instead.
script-shell=bash
`;

const GITIGNORE = `node_modules/
# Journals (orders and fills of live runs), recorded tapes and reports: data, not code.
.sluice/
*.db
*.db-wal
*.db-shm
*.lock
*.lock.holder
tapes/
*.jsonl
*.jsonl.gz
backtest/reports/
# Credentials never go in the repository.
.env
*.env
credentials*
`;

function readme(name: string): string {
  return `# ${name}

Strategies for [sluice](https://www.npmjs.com/package/sluice).

\`\`\`sh
npm install
npm test              # the strategies' tests (vitest, with sluice/testing)
npm run validate      # the config, every plugin's params, and the venue's symbols (and key, live)
npm run backtest      # 30 simulated minutes on the built-in simulator
npm start             # the daemon, paper mode (Ctrl-C stops it)
npx sluice new-strategy my-idea   # strategies/my-idea from a template, added to sluice.yaml
\`\`\`
`;
}
