// strategies[].exits: percentages as quoted decimals above 0 (stop-loss and trailing stop below
// 100), cooldownMs a whole number >= 0, unknown keys refused; each problem names its field.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { parseConfig } from '../../../src/config/index.js';

const entry = (exits: string) => `strategies:\n  - { id: trend, use: ./strategies/trend, symbols: [BTCUSDT], exits: ${exits} }\n`;

async function problems(exits: string): Promise<Array<[string, string]>> {
  const err = await parseConfig(entry(exits), { env: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => [p.path, p.message]);
}

describe('strategies[].exits', () => {
  it('takes every field as the README writes them, and is absent when not given', async () => {
    const { config } = await parseConfig(entry('{ stopLossPct: "2", takeProfitPct: "5", trailingStopPct: "1.5", cooldownMs: 60000 }'), { env: {} });
    expect(config.strategies[0]!.exits).toEqual({ stopLossPct: '2', takeProfitPct: '5', trailingStopPct: '1.5', cooldownMs: 60000 });
    const some = await parseConfig(entry('{ takeProfitPct: "150" }'), { env: {} });
    expect(some.config.strategies[0]!.exits).toEqual({ takeProfitPct: '150', cooldownMs: 0 });
    const none = await parseConfig('strategies:\n  - { id: trend, use: x, symbols: [BTCUSDT] }\n', { env: {} });
    expect(none.config.strategies[0]!.exits).toBeUndefined();
  });

  it('refuses a negative or zero percentage, stopLossPct or trailingStopPct of 100 or more, and non-numbers, naming each field and the fix', async () => {
    expect(await problems('{ stopLossPct: "-1" }')).toEqual([['strategies[0].exits.stopLossPct', 'must be greater than 0, e.g. "2"']]);
    expect(await problems('{ stopLossPct: "100" }')).toEqual([
      ['strategies[0].exits.stopLossPct', 'must be below 100 (a percentage of the price: stopLossPct "100" would need the price to reach 0), e.g. "2"'],
    ]);
    expect(await problems('{ trailingStopPct: "250" }')).toEqual([
      ['strategies[0].exits.trailingStopPct', 'must be below 100 (a percentage of the price: trailingStopPct "100" would need the price to reach 0), e.g. "1.5"'],
    ]);
    expect(await problems('{ stopLossPct: 2 }')).toEqual([['strategies[0].exits.stopLossPct', 'write money as a quoted decimal string, e.g. "2" (a bare YAML number is a float)']]);
    expect(await problems('{ takeProfitPct: lots, trailingStopPct: "0" }')).toEqual([
      ['strategies[0].exits.takeProfitPct', 'must be a decimal string like "5" (got text)'],
      ['strategies[0].exits.trailingStopPct', 'must be greater than 0, e.g. "1.5"'],
    ]);
    expect(await problems('{ stopLossPct: "2", cooldownMs: -5 }')).toEqual([['strategies[0].exits.cooldownMs', 'must be a whole number >= 0']]);
    // A known key with its suffix left off is guessed, not only listed.
    expect(await problems('{ stopLoss: "2" }')).toEqual([['strategies[0].exits.stopLoss', 'unknown key; did you mean stopLossPct?']]);
    expect(await problems('{ trailing: "2" }')).toEqual([['strategies[0].exits.trailing', 'unknown key; did you mean trailingStopPct?']]);
    expect(await problems('5')).toEqual([['strategies[0].exits', 'must be a mapping such as { stopLossPct: "2", takeProfitPct: "5", trailingStopPct: "1.5", cooldownMs: 60000 } (got a number)']]);
  });
});
