// Tapes travel by content hash: the submitter uploads a tape's bytes once (a tape already in
// Redis is not sent again), and a worker fetches it into a local directory once, checks the
// hash, and reuses the file (and so the decoded-event cache keyed by the same bytes) for every
// run after. A worker never reads the submitter's filesystem.
//
// In Redis a tape is chunks of at most 8 MiB (no single command blocks the server for long, and
// no value nears Redis's 512 MB limit) under sluice:tape:<sha256>:<i>, and a meta key written
// last, so a tape whose meta key exists is complete. All expire after KEEP_SECONDS; each use
// renews them.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Redis } from 'ioredis';
import { systemClock, type Clock } from '../core/clock.js';
import { KEEP_SECONDS, PREFIX, type TapeRef } from './types.js';

export const TAPE_CHUNK_BYTES = 8 * 1024 * 1024;
/** A worker keeps the most recently used tapes up to this size; older ones are deleted. */
export const TAPE_DIR_MAX_BYTES = 2 * 1024 ** 3;

const metaKey = (sha256: string) => `${PREFIX}:tape:${sha256}`;
const chunkKey = (sha256: string, i: number) => `${PREFIX}:tape:${sha256}:${i}`;

export class TapeMissingError extends Error {
  constructor(tape: TapeRef) {
    super(`tape ${tape.name} (sha256 ${tape.sha256.slice(0, 12)}) is not in Redis (kept ${KEEP_SECONDS / 86400} days after its last use, and lost if Redis restarts without its data): submit the sweep again`);
    this.name = 'TapeMissingError';
  }
}

/** Renews the tape's expiry; false when its meta key is gone. */
async function touch(redis: Redis, sha256: string, chunks: number): Promise<boolean> {
  const multi = redis.multi().expire(metaKey(sha256), KEEP_SECONDS);
  for (let i = 0; i < chunks; i++) multi.expire(chunkKey(sha256, i), KEEP_SECONDS);
  const replies = (await multi.exec()) ?? [];
  return replies[0]?.[1] === 1;
}

async function readMeta(redis: Redis, sha256: string): Promise<{ bytes: number; chunks: number } | undefined> {
  const text = await redis.get(metaKey(sha256));
  return text === null ? undefined : (JSON.parse(text) as { bytes: number; chunks: number });
}

/** The sha256 of a file's bytes. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Uploads the tape unless Redis holds it already; `uploaded` says whether bytes were sent. */
export async function uploadTape(redis: Redis, path: string): Promise<{ tape: TapeRef; uploaded: boolean }> {
  const sha256 = await fileSha256(path);
  const tape: TapeRef = { sha256, name: basename(path), bytes: statSync(path).size };
  const meta = await readMeta(redis, sha256);
  if (meta && (await touch(redis, sha256, meta.chunks))) return { tape, uploaded: false };
  let chunks = 0;
  let hashed = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: TAPE_CHUNK_BYTES })) {
    hashed.update(chunk as Buffer);
    await redis.set(chunkKey(sha256, chunks++), chunk as Buffer, 'EX', KEEP_SECONDS);
  }
  // The file changed while it was read: the chunks are not the bytes the hash names.
  if (hashed.digest('hex') !== sha256) throw new Error(`${path} changed while it was uploaded; upload it again once nothing writes to it`);
  await redis.set(metaKey(sha256), JSON.stringify({ bytes: tape.bytes, chunks }), 'EX', KEEP_SECONDS);
  return { tape, uploaded: true };
}

/**
 * The tape as a local file under `dir` (<sha256>.tape), fetched from Redis when this machine
 * does not have it yet; its hash is checked before it is used.
 */
export async function fetchTape(redis: Redis, tape: TapeRef, dir: string, clock: Clock = systemClock): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${tape.sha256}.tape`);
  if (existsSync(path) && statSync(path).size === tape.bytes) {
    // Its time of last use, for pruning.
    const now = clock.now() / 1000;
    utimesSync(path, now, now);
    return path;
  }
  const meta = await readMeta(redis, tape.sha256);
  if (!meta || !(await touch(redis, tape.sha256, meta.chunks))) throw new TapeMissingError(tape);
  const part = `${path}.${randomBytes(4).toString('hex')}.part`;
  const hash = createHash('sha256');
  const fd = openSync(part, 'w');
  try {
    for (let i = 0; i < meta.chunks; i++) {
      const chunk = await redis.getBuffer(chunkKey(tape.sha256, i));
      if (chunk === null) throw new TapeMissingError(tape);
      hash.update(chunk);
      writeSync(fd, chunk);
    }
  } catch (err) {
    closeSync(fd);
    rmSync(part, { force: true });
    throw err;
  }
  closeSync(fd);
  if (hash.digest('hex') !== tape.sha256) {
    rmSync(part, { force: true });
    throw new Error(`tape ${tape.name} fetched from Redis does not match its sha256 ${tape.sha256.slice(0, 12)}: it was changed there; submit the sweep again`);
  }
  renameSync(part, path);
  pruneTapes(dir, TAPE_DIR_MAX_BYTES, path);
  return path;
}

/** Deletes the least recently used tapes beyond `maxBytes`, never `keep`. */
export function pruneTapes(dir: string, maxBytes: number, keep: string): void {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.tape'))
    .map((n) => {
      const path = join(dir, n);
      const st = statSync(path);
      return { path, size: st.size, used: st.mtimeMs };
    })
    .sort((a, b) => b.used - a.used);
  let total = 0;
  for (const f of files) {
    total += f.size;
    if (total > maxBytes && f.path !== keep) rmSync(f.path, { force: true });
  }
}
