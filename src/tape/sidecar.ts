// Small JSON files beside a tape's event cache file (<digest>.incidents, <digest>.listings):
// what a pass over the tape found, kept so the next run over the same tape need not read it.
// Written whole under a temporary name, then renamed; one we cannot write costs the next run a
// pass, not this one, and one we cannot read (another version, damaged) is found again.
import { mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { partName } from './cache-file.js';

/** The payload of the sidecar at `path` when it is of `version`, else undefined. */
export function readSidecar(path: string, version: number): unknown {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown; payload?: unknown };
    if (v.version !== version) return undefined;
    try {
      // Used now: the cache's eviction keeps the recently used files.
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // not ours to touch
    }
    return v.payload;
  } catch {
    return undefined;
  }
}

export function writeSidecar<T>(path: string, version: number, payload: T): T {
  const tmp = partName(path);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, `${JSON.stringify({ version, payload })}\n`);
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
  }
  return payload;
}
