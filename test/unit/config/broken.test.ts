// Each broken config in test/fixtures/configs/broken/ with what `sluice validate` must say about
// it: the YAML path, the line, and the start of the fix. Line 1 of every fixture is a comment
// saying what is wrong with it.
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { loadConfig } from '../../../src/config/index.js';

const DIR = resolve(import.meta.dirname, '../../fixtures/configs/broken');
// Obviously fake values: a failing assertion may print them.
const CREDS = { SLUICE_API_KEY: 'test-key-not-real', SLUICE_API_SECRET: 'test-secret-not-real' };

interface Case {
  file: string;
  env?: NodeJS.ProcessEnv;
  /** Fragments of the ConfigError message, usually `path (line N): start of the message`. */
  expect: string[];
  /** Text that must not appear anywhere in the message (secrets, pasted values). */
  never?: string[];
  problems?: number;
}

const cases: Case[] = [
  { file: 'unknown-top-level.yaml', expect: ['strategis (line 3): unknown key; did you mean strategies?'], problems: 1 },
  { file: 'unknown-nested-key.yaml', expect: ['venue.timeouts.conectMs (line 4): unknown key; did you mean connectMs?'] },
  {
    file: 'unknown-key-no-guess.yaml',
    expect: ['engine.turbo (line 3): unknown key; remove it (known keys here: summaryEveryMs, marketDataEveryMs, reconcileEveryMs, maxQueueMs, handlerTimeoutMs, shutdown, onStrategyFailure, heap)'],
  },
  { file: 'wrong-type.yaml', expect: ['venue.recvWindowMs (line 3): must be a whole number from 1 to 60000 (got text)'] },
  { file: 'quoted-number.yaml', expect: ['http.port (line 3): must be a whole number from 0 to 65535 (got a quoted number); remove the quotes'] },
  {
    file: 'money-bare-number.yaml',
    expect: ['risk.maxNotionalPerOrder (line 3): write money as a quoted decimal string, e.g. "10000"'],
  },
  {
    file: 'money-not-plain.yaml',
    expect: [
      'risk.maxNotionalPerOrder (line 3): must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write "10000"',
      'risk.maxNotionalPerMinute (line 4): must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write the digits out, e.g. "100000" (that exponent is beyond any amount)',
      'sim.fees.maker (line 6): must be plain decimal text: digits, one optional point, an optional leading minus, no exponent; write "0.001"',
    ],
    problems: 3,
  },
  { file: 'money-negative.yaml', expect: ['risk.maxPosition.BTCUSDT (line 4): must be 0 or more, e.g. "0.5"'] },
  {
    file: 'max-position-twice.yaml',
    expect: ['risk.maxPosition.btcusdt (line 5): this symbol is listed twice (symbols are case-insensitive): keep one'],
    problems: 1,
  },
  {
    file: 'max-position-untraded.yaml',
    expect: [
      'risk.maxPosition.BTCUSTD (line 7): no strategy trades BTCUSTD, so this cap limits nothing; did you mean BTCUSDT?',
      'risk.maxPosition.DOGEUSDT (line 10): no strategy trades DOGEUSDT, so this cap limits nothing; fix it to a symbol a strategy trades (BTCUSDT, ETHUSDT, SOLUSDT), or remove it',
    ],
    problems: 2, // ethusdt is ETHUSDT (symbols are case-insensitive); SOLUSDT's strategy is disabled, not gone
  },
  {
    file: 'drift-tolerance-untraded.yaml',
    expect: ['reconcile.drift.tolerance["E-BTC-USTD"] (line 6): no strategy trades E-BTC-USTD, so this tolerance applies to nothing; did you mean E-BTC-USDT?'],
    problems: 1,
  },
  { file: 'negative-limit.yaml', expect: ['risk.maxOpenOrders (line 3): must be a whole number >= 1'] },
  {
    file: 'limits-unknown-endpoint.yaml',
    expect: ['venue.limits["spot.orders"] (line 4): unknown endpoint id; did you mean spot.order? (valid ids: spot.ping,', 'futures.editLever)'],
  },
  {
    file: 'limits-above-venue.yaml',
    expect: ['venue.limits["spot.order"] (line 4): must be at most 100, the venue\'s own limit for spot.order per 2 s'],
  },
  { file: 'duplicate-strategy-id.yaml', expect: ['strategies[1].id (line 6): duplicate id: strategies[0] already uses it'], problems: 1 },
  {
    file: 'bad-strategy-id.yaml',
    expect: ['strategies[0].id (line 3): must be 1-12 lower-case letters or digits (a-z, 0-9; no dashes or capitals)'],
  },
  { file: 'missing-use.yaml', expect: ['strategies[0].use (line 3): required: the plugin module path, e.g. strategies/grid/index.ts'] },
  {
    file: 'strategy-key-typo.yaml',
    expect: ['strategies[0].symbols (line 3): required: a list of symbols, e.g. [BTCUSDT]', 'strategies[0].symbol (line 5): unknown key; did you mean symbols?'],
    problems: 2,
  },
  { file: 'empty-symbols.yaml', expect: ['strategies[0].symbols (line 5): must list at least one symbol, e.g. [BTCUSDT]'] },
  { file: 'every-ms-too-small.yaml', expect: ['strategies[0].everyMs (line 6): must be a whole number >= 50'] },
  { file: 'dashed-spot-symbol.yaml', expect: ['strategies[0].symbols[0] (line 5): spot symbols have no dashes', 'need market: futures'] },
  { file: 'live-without-url.yaml', env: CREDS, expect: ['venue.spotUrl: required in live mode: set the venue origin'], problems: 1 },
  {
    file: 'live-without-credentials.yaml',
    env: {},
    expect: ['credentials: live mode needs API credentials: set SLUICE_API_KEY and SLUICE_API_SECRET in the environment, or set credentials.file'],
    problems: 1,
  },
  { file: 'url-with-path.yaml', env: CREDS, expect: ['venue.spotUrl (line 4): must be an origin only'] },
  {
    file: 'url-with-password.yaml',
    env: CREDS,
    expect: ['venue.spotUrl (line 4): must not contain a user name or password'],
    never: ['pw-not-real-123', 'trader'],
  },
  {
    file: 'api-secret-in-yaml.yaml',
    env: CREDS,
    expect: [
      'credentials.apiKey (line 6): credentials never go in YAML: delete this line and set SLUICE_API_KEY and SLUICE_API_SECRET',
      'credentials.apiSecret (line 7): credentials never go in YAML',
    ],
    never: ['key-not-real-123', 'secret-not-real-456', 'did you mean'],
    problems: 2,
  },
  {
    file: 'unset-env-var.yaml',
    env: CREDS,
    expect: ['venue.spotUrl (line 4): environment variable SLUICE_TEST_UNSET_URL is not set: export it, or write ${SLUICE_TEST_UNSET_URL:-default}'],
    problems: 1, // not also "required in live mode": the hole is reported once
  },
  { file: 'malformed-reference.yaml', expect: ['journal.path (line 3): malformed ${...} reference: write ${NAME} or ${NAME:-default}'] },
  { file: 'yaml-syntax-error.yaml', expect: ['(syntax) (line 5): Flow sequence in block collection must be sufficiently indented and end with a ]', 'fix the YAML'], never: ['BTCUSDT'] },
  {
    file: 'rates-out-of-range.yaml',
    expect: ['sim.faults.error5xxRate (line 4): must be a number from 0 to 1', 'sim.faults.resetRate (line 5): must be a number from 0 to 1'],
    problems: 2,
  },
  { file: 'retry-delays-inverted.yaml', expect: ['venue.retry.maxDelayMs (line 5): must be >= venue.retry.baseDelayMs'] },
  { file: 'latency-inverted.yaml', expect: ['sim.latencyMs.min (line 3): must be <= sim.latencyMs.max'] },
  { file: 'bad-enum.yaml', expect: ['log.level (line 3): must be one of fatal | error | warn | info | debug | trace (got "verbose")'], problems: 1 },
  { file: 'not-a-mapping.yaml', expect: ['(top level) (line 2): must be a mapping of key: value lines (got a list)'] },
  {
    file: 'several-problems.yaml',
    env: {},
    expect: [
      'has 8 problems',
      'venue.recvWindowMs (line 4): must be a whole number from 1 to 60000',
      'venue.retyr (line 5): unknown key; did you mean retry?',
      'strategies[0].id (line 7): must be 1-12 lower-case letters or digits',
      'strategies[0].symbols (line 9): must list at least one symbol',
      'strategies[1].everyMs (line 13): must be a whole number >= 50',
      'risk.maxNotionalPerOrder (line 15): write money as a quoted decimal string',
      'venue.spotUrl (line 3): required in live mode',
      'credentials: live mode needs API credentials',
    ],
    problems: 8,
  },
];

describe('broken configs: every problem with its path, line and fix', () => {
  it('covers every fixture in the folder', () => {
    expect(cases.map((c) => c.file).sort()).toEqual(readdirSync(DIR).sort());
  });

  it.each(cases)('$file', async (c) => {
    const err = await loadConfig(resolve(DIR, c.file), c.env ?? {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const { message, problems } = err as ConfigError;
    for (const fragment of c.expect) expect(message).toContain(fragment);
    for (const text of c.never ?? []) expect(message).not.toContain(text);
    if (c.problems !== undefined) expect(problems).toHaveLength(c.problems);
    // Every problem points somewhere and says something.
    for (const p of problems) {
      expect(p.path).not.toBe('');
      expect(p.message.length).toBeGreaterThan(10);
    }
  });

  it('lists problems in file order, those without a line last', async () => {
    const err = (await loadConfig(resolve(DIR, 'several-problems.yaml'), {}).catch((e: unknown) => e)) as ConfigError;
    const lines = err.problems.map((p) => p.line ?? Infinity);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });
});
