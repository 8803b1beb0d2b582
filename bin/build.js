#!/usr/bin/env node
// Compiles src/ to JavaScript under dist/<digest>/, one file per source (esbuild strips the
// types, as tsx did at run time; nothing is bundled, so every module keeps its identity, and no
// source maps: bin/sluice.js says why). The
// digest covers every source file and the compiler, so a build never changes once written: a
// running daemon keeps importing its own modules (undici, the ops endpoint) while a newer build
// appears beside it, and a prune never removes a build a live process holds. bin/sluice.js
// builds when the sources have none yet; a read-only install (Docker, systemd's ProtectSystem)
// builds at install time: `npm run build`.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
/** Builds other than the current one kept, besides those held: the ones a new run most likely returns to. */
const KEEP = 3;
/** `<digest>.<pid>`: the build a running process imports from (its modules load lazily). */
const HELD = join(DIST, '.held');
const OPTIONS = { format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent' };

function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
    .sort();
}

function digest(files, compiler) {
  const hash = createHash('sha256').update(JSON.stringify([compiler, OPTIONS]));
  for (const f of files) hash.update(relative(SRC, f)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * The directory of the build of the current sources, compiling them first when there is none.
 * `hold`: no prune removes it while this process runs.
 */
export async function built({ hold = false } = {}) {
  const out = await buildOfSources();
  if (hold) holdWhileRunning(out);
  return out;
}

async function buildOfSources() {
  const files = sources();
  const esbuild = await import('esbuild');
  const out = join(DIST, digest(files, esbuild.version));
  if (existsSync(out)) {
    try {
      utimesSync(out, new Date(), new Date()); // used now: the last a prune removes
    } catch {
      // a read-only install never prunes
    }
    return out;
  }
  const tmp = join(DIST, `.tmp-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(DIST, { recursive: true });
    esbuild.buildSync({ ...OPTIONS, entryPoints: files, outdir: tmp, outbase: SRC });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = /** @type {{ code?: string }} */ (err).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      throw new Error(`sluice has no build of its sources in ${DIST}, and cannot write one there (${code}): run \`npm run build\` in ${ROOT} as the user who installed it`);
    }
    throw err;
  }
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process built the same sources first
  }
  prune(out);
  return out;
}

function holdWhileRunning(build) {
  const marker = join(HELD, `${basename(build)}.${process.pid}`);
  try {
    mkdirSync(HELD, { recursive: true });
    writeFileSync(marker, '');
  } catch {
    return; // a read-only install never prunes
  }
  process.once('exit', () => rmSync(marker, { force: true }));
}

/** Digests of the builds live processes hold; the markers of processes gone (kill -9) are removed. */
function heldBuilds() {
  const held = new Set();
  for (const marker of existsSync(HELD) ? readdirSync(HELD) : []) {
    const [digest, pid] = marker.split('.');
    if (alive(Number(pid))) held.add(digest);
    else rmSync(join(HELD, marker), { force: true });
  }
  return held;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {{ code?: string }} */ (err).code === 'EPERM'; // alive, another user's
  }
}

/** Drops the oldest builds, keeping the current one, those held, and the KEEP used last before it. */
function prune(current) {
  const held = heldBuilds();
  const builds = [];
  for (const name of readdirSync(DIST)) {
    if (!/^[0-9a-f]{16}$|^\.tmp-/.test(name) || held.has(name)) continue; // not a build, or held: leave it
    const path = join(DIST, name);
    try {
      const { mtimeMs } = statSync(path);
      // A .tmp- directory is a build under way, or one a killed process left an hour ago.
      if (path !== current && !(name.startsWith('.tmp-') && Date.now() - mtimeMs < 3_600_000)) builds.push({ path, mtimeMs });
    } catch {
      // removed by another process meanwhile
    }
  }
  builds.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path } of builds.slice(KEEP)) rmSync(path, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(relative(ROOT, await built()));
