// strategies[].lossLimit: { daily: "<decimal>" } above 0, quoted; unknown keys refused; each
// problem names its field. Symbols of different quote currencies under one limit are refused at
// start (instruments.test.ts), since the config alone does not know a symbol's quote.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { parseConfig } from '../../../src/config/index.js';

const entry = (limit: string) => `strategies:\n  - { id: trend, use: ./strategies/trend, symbols: [BTCUSDT], lossLimit: ${limit} }\n`;

async function problems(limit: string): Promise<Array<[string, string]>> {
  const err = await parseConfig(entry(limit), { env: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => [p.path, p.message]);
}

describe('strategies[].lossLimit', () => {
  it('takes daily as a quoted decimal, and is absent when not given', async () => {
    const { config } = await parseConfig(entry('{ daily: "250.5" }'), { env: {} });
    expect(config.strategies[0]!.lossLimit).toEqual({ daily: '250.5' });
    const none = await parseConfig('strategies:\n  - { id: trend, use: x, symbols: [BTCUSDT] }\n', { env: {} });
    expect(none.config.strategies[0]!.lossLimit).toBeUndefined();
  });

  it('refuses zero, negative, bare numbers, text, missing daily, unknown keys and a non-mapping, naming the field and the fix', async () => {
    expect(await problems('{ daily: "0" }')).toEqual([['strategies[0].lossLimit.daily', 'must be greater than 0, e.g. "250"']]);
    expect(await problems('{ daily: "-10" }')).toEqual([['strategies[0].lossLimit.daily', 'must be greater than 0, e.g. "250"']]);
    expect(await problems('{ daily: 250 }')).toEqual([['strategies[0].lossLimit.daily', 'write money as a quoted decimal string, e.g. "250" (a bare YAML number is a float)']]);
    expect(await problems('{ daily: lots }')).toEqual([['strategies[0].lossLimit.daily', 'must be a decimal string like "250" (got text)']]);
    expect((await problems('{}'))[0]![0]).toBe('strategies[0].lossLimit.daily');
    expect(await problems('{ daily: "5", weekly: "9" }')).toEqual([['strategies[0].lossLimit.weekly', expect.stringMatching(/^unknown key/)]]);
    expect(await problems('5')).toEqual([['strategies[0].lossLimit', 'must be a mapping such as { daily: "250" } (quote currency lost in one UTC day) (got a number)']]);
  });
});
