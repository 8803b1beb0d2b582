import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyLogs, scrub } from '../../../src/app/logger.js';

const SECRET = 'sEcReT-9f8e7d6c5b4a';
const KEY = 'kEy-0a1b2c3d4e';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', pretty: false, secrets: [KEY, SECRET], destination }) };
}

describe('logger', () => {
  it('redacts secrets by key: credentials, headers, nested fields', () => {
    const { lines, log } = capture();
    log.info({ apiSecret: 'x-not-listed', headers: { 'X-CH-APIKEY': 'k2', 'X-CH-SIGN': 'abcd' }, nested: { secret: 'zz' } }, 'request');
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.apiSecret).toBe('[REDACTED]');
    expect(line.headers).toEqual({ 'X-CH-APIKEY': '[REDACTED]', 'X-CH-SIGN': '[REDACTED]' });
    expect(line.nested).toEqual({ secret: '[REDACTED]' });
  });

  it('removes the secret and the key by value wherever they appear, messages and errors included', () => {
    const { lines, log } = capture();
    log.error({ err: `venue said: bad key ${KEY}`, detail: [`${SECRET}`] }, `oops ${SECRET}`);
    expect(lines.join('')).not.toContain(SECRET);
    expect(lines.join('')).not.toContain(KEY);
    expect(lines.join('')).toContain('[REDACTED]');
  });

  it('log.pretty auto is readable lines on a terminal and JSON elsewhere; true and false are kept', () => {
    expect(prettyLogs('auto', true)).toBe(true);
    expect(prettyLogs('auto', false)).toBe(false);
    expect(prettyLogs('auto', undefined)).toBe(false);
    expect(prettyLogs(false, true)).toBe(false);
    expect(prettyLogs(true, false)).toBe(true);
  });

  it('scrub ignores values too short to be secrets', () => {
    expect(scrub('a b c', ['a', ''])).toBe('a b c');
    expect(scrub('xx SECRET1 yy SECRET1', ['SECRET1'])).toBe('xx [REDACTED] yy [REDACTED]');
  });
});
