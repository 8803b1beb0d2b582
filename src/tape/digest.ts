// What names a tape's cached products (its decoded events, its recorded incidents): a hash of
// its bytes and of the code that decodes it, so an edited tape or another version of the
// decoder never reads stale ones.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-root.js';

/** Digests of the tapes this process hashed, by path: a sweep's runs open one tape again and again. */
const digests = new Map<string, { file: string; digest: string }>();
const KEPT_DIGESTS = 64;

/**
 * The hash of a tape's bytes and of the decoder; hashed again only when the file is another one
 * or was written since (its device, inode, size, and change and modification times, to the
 * nanosecond: any write moves the change time), so a 24 h tape is not read whole for every run.
 */
export async function tapeDigest(tapePath: string): Promise<string> {
  const s = statSync(tapePath, { bigint: true });
  const file = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  const known = digests.get(tapePath);
  if (known?.file === file) return known.digest;
  const hash = createHash('sha256').update(decoderHash());
  for await (const chunk of createReadStream(tapePath, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  const digest = hash.digest('hex').slice(0, 40);
  digests.delete(tapePath);
  digests.set(tapePath, { file, digest });
  if (digests.size > KEPT_DIGESTS) digests.delete(digests.keys().next().value!);
  return digest;
}

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
