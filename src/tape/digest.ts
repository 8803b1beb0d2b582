// What names a tape's cached products (its decoded events, its recorded incidents): a hash of
// its bytes and of the code that decodes it, so an edited tape or another version of the
// decoder never reads stale ones.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-root.js';

/** A file's version: its device, inode, size, and change and modification times, to the nanosecond (any write moves the change time). */
function fileVersion(path: string): string {
  const s = statSync(path, { bigint: true });
  return `${path}\0${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/**
 * `compute` once per version of a file, for the latest `kept` versions: a sweep's runs open one
 * tape again and again. A failure is not kept, so the next call tries again.
 */
export function perFileVersion<T>(kept: number, compute: (path: string) => Promise<T>): (path: string) => Promise<T> {
  const memo = new Map<string, Promise<T>>();
  return (path) => {
    const key = fileVersion(path);
    let found = memo.get(key);
    if (!found) {
      found = compute(path);
      memo.set(key, found);
      found.catch(() => memo.delete(key));
      if (memo.size > kept) memo.delete(memo.keys().next().value!);
    }
    return found;
  };
}

/** The hash of a tape's bytes and of the decoder; hashed again only for another version of the file, so a 24 h tape is not read whole for every run. */
export const tapeDigest = perFileVersion(64, async (tapePath: string): Promise<string> => {
  const hash = createHash('sha256').update(decoderHash());
  for await (const chunk of createReadStream(tapePath, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 40);
});

let decoderDigest: string | undefined;
/**
 * What decides the events and incidents a tape gives: the tape reader and decoders, the cache's
 * format, the codec, error table and endpoint table they use (every source file of src/tape and
 * src/exchange), and the decimal normalisation of the codec's slow path (src/core/decimal.ts
 * and decimal.js's version).
 */
function decoderHash(): string {
  if (decoderDigest) return decoderDigest;
  const hash = createHash('sha256');
  // The sources, not the module beside this one: the same key from src/ and from a build.
  for (const dir of ['src/tape', 'src/exchange']) {
    const at = join(PACKAGE_ROOT, dir);
    for (const name of readdirSync(at).filter((n) => n.endsWith('.ts')).sort()) hash.update(name).update(readFileSync(join(at, name)));
  }
  hash.update(readFileSync(join(PACKAGE_ROOT, 'src/core/decimal.ts')));
  hash.update(readFileSync(createRequire(import.meta.url).resolve('decimal.js/package.json')));
  return (decoderDigest = hash.digest('hex'));
}
