import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openTape, readTape, streamTape, TapeFormatError, type TapeCall } from '../../../src/tape/index.js';
import { call, T0, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const header = JSON.stringify({ tape: 1, kind: 'header', startedAt: T0, meta: { run: 'x' } });
const lines = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify(call(i, 'spot', 'GET', '/sapi/v1/ticker', { query: 'symbol=BTCUSDT' })));

async function readError(path: string): Promise<TapeFormatError> {
  const err = await readTape(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TapeFormatError);
  return err as TapeFormatError;
}

describe('readTape', () => {
  it('names the file and line of a malformed line', async () => {
    const path = tmp.path('bad-json.jsonl');
    writeFileSync(path, [header, ...lines(2), '{"kind":"call",', ...lines(1)].join('\n') + '\n');
    const err = await readError(path);
    expect(err.line).toBe(4);
    expect(err.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: not JSON`));
  });

  it('names the line of a call without an answer, and a tape without a header', async () => {
    const noAnswer = tmp.path('no-answer.jsonl');
    const broken = { ...call(1, 'spot', 'GET', '/sapi/v1/depth'), response: undefined };
    writeFileSync(noAnswer, [header, ...lines(1), JSON.stringify(broken), ...lines(1)].join('\n') + '\n');
    expect((await readError(noAnswer)).message).toBe(`${noAnswer}:3: a call needs a response or a failure`);

    const noHeader = tmp.path('no-header.jsonl');
    writeFileSync(noHeader, lines(2).join('\n') + '\n');
    expect((await readError(noHeader)).message).toBe(`${noHeader}:1: the first line must be the header, got kind "call"`);

    const empty = tmp.path('empty.jsonl');
    writeFileSync(empty, '');
    expect((await readError(empty)).message).toBe(`${empty}:1: empty tape: no header`);
  });

  it('drops a last line cut short by a crash (plain and gzip without its trailer)', async () => {
    const full = [header, ...lines(3)].join('\n') + '\n';
    const cut = full + lines(4)[3]!.slice(0, 40);
    const plain = tmp.path('crashed.jsonl');
    writeFileSync(plain, cut);
    expect((await readTape(plain)).calls.map((c) => c.seq)).toEqual([0, 1, 2]);

    const gz = tmp.path('crashed.jsonl.gz');
    const whole = gzipSync(Buffer.from(cut));
    writeFileSync(gz, whole.subarray(0, whole.length - 8)); // no CRC and size: never closed
    expect((await readTape(gz)).calls.map((c) => c.seq)).toEqual([0, 1, 2]);
  });

  it('detects gzip by its magic bytes, not by the file name', async () => {
    const path = tmp.path('looks-plain.jsonl');
    writeFileSync(path, gzipSync(Buffer.from([header, ...lines(2)].join('\n') + '\n')));
    const tape = await readTape(path);
    expect(tape.header).toEqual({ tape: 1, kind: 'header', startedAt: T0, meta: { run: 'x' } });
    expect(tape.calls).toHaveLength(2);
  });

  it('refuses a tape of another version', async () => {
    const path = tmp.path('v2.jsonl');
    writeFileSync(path, JSON.stringify({ tape: 2, kind: 'header', startedAt: T0, meta: {} }) + '\n');
    expect((await readError(path)).message).toMatch(/:1: tape version 2 is not 1/);
  });
});

describe('streaming', () => {
  it('yields the calls one by one, across many chunks, in file order', async () => {
    const path = tmp.path('long.jsonl.gz');
    writeFileSync(path, gzipSync(Buffer.from([header, ...lines(3000)].join('\n') + '\n')));
    const { header: h, calls } = await openTape(path);
    expect(h.meta).toEqual({ run: 'x' });
    let n = 0;
    for await (const c of calls) expect(c.seq).toBe(n++);
    expect(n).toBe(3000);
  });

  it('stops with the line number at a malformed line, after yielding the good ones', async () => {
    const path = tmp.path('stream-bad.jsonl');
    writeFileSync(path, [header, ...lines(2), 'garbage', ...lines(1)].join('\n') + '\n');
    const seen: TapeCall[] = [];
    const err = await (async () => {
      for await (const c of streamTape(path)) seen.push(c);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen).toHaveLength(2);
    expect(err).toBeInstanceOf(TapeFormatError);
    expect((err as TapeFormatError).message).toMatch(/stream-bad\.jsonl:4: not JSON/);
  });
});
