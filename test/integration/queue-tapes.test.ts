// Tapes by content hash through a real redis-server: uploaded once, fetched once per machine,
// checked against their hash, in chunks when large.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchTape, fileSha256, pruneTapes, TAPE_CHUNK_BYTES, TapeMissingError, uploadTape } from '../../src/queue/index.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';

let redis: RedisServer;
let client: Redis;
const dir = mkdtempSync(join(tmpdir(), 'sluice-qtapes-'));
beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('tapes in Redis', () => {
  it('are uploaded once, in chunks, and fetched to a file with the same bytes', async () => {
    const path = join(dir, 'big.jsonl');
    const bytes = randomBytes(TAPE_CHUNK_BYTES * 2 + 1234);
    writeFileSync(path, bytes);
    const first = await uploadTape(client, path);
    expect(first.uploaded).toBe(true);
    expect(first.tape).toEqual({ sha256: await fileSha256(path), name: 'big.jsonl', bytes: bytes.length });
    expect((await client.keys(`sluice:tape:${first.tape.sha256}*`)).sort()).toEqual([0, 1, 2].map((i) => `sluice:tape:${first.tape.sha256}:${i}`).concat(`sluice:tape:${first.tape.sha256}`).sort());
    expect(await client.ttl(`sluice:tape:${first.tape.sha256}:2`)).toBeGreaterThan(6 * 24 * 3600);
    // The same bytes under another name are not sent again.
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, bytes);
    const again = await uploadTape(client, copy);
    expect(again).toEqual({ tape: { ...first.tape, name: 'copy.jsonl' }, uploaded: false });

    const machine = join(dir, 'machine-a');
    const local = await fetchTape(client, first.tape, machine);
    expect(local).toBe(join(machine, `${first.tape.sha256}.tape`));
    expect(readFileSync(local).equals(bytes)).toBe(true);
    expect(readdirSync(machine)).toEqual([`${first.tape.sha256}.tape`]);
    // Fetched once: the local file serves later runs, even with Redis's copy gone.
    await client.del(...(await client.keys('sluice:tape:*')));
    expect(await fetchTape(client, first.tape, machine)).toBe(local);
    await expect(fetchTape(client, first.tape, join(dir, 'machine-b'))).rejects.toThrow(TapeMissingError);
    await expect(fetchTape(client, first.tape, join(dir, 'machine-b'))).rejects.toThrow(/tape big\.jsonl \(sha256 [0-9a-f]{12}\) is not in Redis .*: submit the sweep again/);
  });

  it('refuses bytes that do not match their hash', async () => {
    const path = join(dir, 'small.jsonl');
    writeFileSync(path, 'one\ntwo\n');
    const { tape } = await uploadTape(client, path);
    await client.set(`sluice:tape:${tape.sha256}:0`, 'one\nTWO\n');
    await expect(fetchTape(client, tape, join(dir, 'machine-c'))).rejects.toThrow(/does not match its sha256 [0-9a-f]{12}: it was changed there; submit the sweep again/);
    expect(readdirSync(join(dir, 'machine-c'))).toEqual([]);
  });

  it('a machine keeps the most recently used tapes within its budget', () => {
    const machine = join(dir, 'machine-d');
    mkdirSync(machine);
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      writeFileSync(join(machine, `${name}.tape`), Buffer.alloc(100));
      utimesSync(join(machine, `${name}.tape`), 1000 + i, 1000 + i);
    }
    // a is the oldest: over a 250-byte budget it goes, unless it is the one just used.
    pruneTapes(machine, 250, join(machine, 'c.tape'));
    expect(readdirSync(machine).sort()).toEqual(['b.tape', 'c.tape']);
    pruneTapes(machine, 50, join(machine, 'b.tape'));
    expect(readdirSync(machine)).toEqual(['b.tape']);
  });
});
