// TapeWriter: what a crash leaves of a gzip tape, and a write error told once while trading goes on.
import { closeSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readTape, TapeWriter } from '../../../src/tape/index.js';
import { call, T0, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const calls = (n: number) => Array.from({ length: n }, (_, i) => call(i, 'spot', 'GET', '/sapi/v1/depth', { query: 'symbol=BTCUSDT', response: `{"bids":[["${30000 + i}","1"]],"asks":[]}` }));

describe('a gzip tape', () => {
  it('is readable up to its last flush while still open, as a killed daemon leaves it', async () => {
    const path = tmp.path('open.jsonl.gz');
    const writer = new TapeWriter(path, { gzip: true, startedAt: T0 });
    for (const c of calls(40)) writer.write(c);
    await writer.flush();
    // Never closed: the gzip member has no end, as after kill -9.
    const tape = await readTape(path);
    expect(tape.header.startedAt).toBe(T0);
    expect(tape.calls.map((c) => c.seq)).toEqual(calls(40).map((c) => c.seq));
    expect(tape.calls[39]!).toMatchObject({ response: { body: '{"bids":[["30039","1"]],"asks":[]}' } });
    await writer.close();
  });
});

describe('a write error', () => {
  it('is told once, stops the recording, and close() rejects with it (plain tape)', async () => {
    const errors: Error[] = [];
    const writer = new TapeWriter(tmp.path('broken.jsonl'), { startedAt: T0, onError: (e) => errors.push(e) });
    // The file's descriptor taken away under the writer: every write now fails (EBADF).
    closeSync((writer as unknown as { fd: number }).fd);
    for (const c of calls(3)) writer.write(c);
    expect(errors.length).toBe(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('EBADF');
    expect(writer.failed).toBe(errors[0]);
    (writer as unknown as { fd: undefined }).fd = undefined;
    await expect(writer.close()).rejects.toBe(errors[0]);
  });

  it('is told once when the file stream fails (gzip tape, a full disk)', async () => {
    const errors: Error[] = [];
    const writer = new TapeWriter(tmp.path('full.jsonl.gz'), { gzip: true, startedAt: T0, onError: (e) => errors.push(e) });
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const file = (writer as unknown as { file: WriteStream }).file;
    const closed = new Promise<void>((resolve) => file.once('close', () => resolve()));
    file.destroy(full);
    await closed;
    for (const c of calls(3)) writer.write(c);
    expect(errors).toEqual([full]);
    await expect(writer.close()).rejects.toBe(full);
  });
});
