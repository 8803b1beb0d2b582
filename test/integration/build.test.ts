// bin/build.js: the sources compiled to dist/<digest>/, a build per set of sources, never changed
// once written (a daemon running from it keeps importing its modules), the oldest pruned.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
let root: string;

function checkout(): string {
  root = mkdtempSync(join(tmpdir(), 'sluice-build-'));
  mkdirSync(join(root, 'bin'));
  cpSync(join(ROOT, 'bin/build.js'), join(root, 'bin/build.js'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  mkdirSync(join(root, 'src/core'), { recursive: true });
  writeFileSync(join(root, 'src/core/a.ts'), "import type { B } from './b.js';\nexport const x: number = 1;\nexport type A = B;\n");
  writeFileSync(join(root, 'src/core/b.ts'), 'export type B = string;\n');
  return root;
}

const build = async () => (await promisify(execFile)(process.execPath, [join(root, 'bin/build.js')], { cwd: root })).stdout.trim();

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('bin/build.js', () => {
  it('compiles each source to JavaScript once per set of sources, and leaves older builds as they were', async () => {
    checkout();
    const first = await build();
    expect(first).toMatch(/^dist\/[0-9a-f]{16}$/);
    const a = readFileSync(join(root, first, 'core/a.js'), 'utf8');
    expect(a).toContain('const x = 1;');
    expect(a).not.toContain('number');
    expect(a).not.toContain('sourceMappingURL'); // bin/sluice.js: the maps' memory
    expect(await build()).toBe(first);

    writeFileSync(join(root, 'src/core/a.ts'), 'export const x: number = 2;\n');
    const second = await build();
    expect(second).not.toBe(first);
    expect(readFileSync(join(root, second, 'core/a.js'), 'utf8')).toContain('const x = 2;');
    expect(readFileSync(join(root, first, 'core/a.js'), 'utf8')).toBe(a);
  });

  it('keeps the current build and the three used before it, and nothing else there is touched', async () => {
    checkout();
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist/notes.txt'), 'mine');
    const builds: string[] = [];
    for (let i = 0; i < 6; i++) {
      writeFileSync(join(root, 'src/core/a.ts'), `export const x = ${i};\n`);
      builds.push(await build());
    }
    expect(readdirSync(join(root, 'dist')).sort()).toEqual([...builds.slice(2).map((b) => b.slice('dist/'.length)), 'notes.txt'].sort());
  });

  it('never prunes a build a running process holds, and forgets the hold once that process is gone', async () => {
    checkout();
    writeFileSync(join(root, 'src/core/a.ts'), 'export const x = "held";\n');
    // A daemon from this build: holds it until it exits (it reads stdin until the test closes it).
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `const { built } = await import(${JSON.stringify(pathToFileURL(join(root, 'bin/build.js')).href)}); console.log(await built({ hold: true })); process.stdin.resume();`], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
    const held = basename(line.toString().trim());
    expect(held).toMatch(/^[0-9a-f]{16}$/);
    expect(readdirSync(join(root, 'dist/.held'))).toEqual([`${held}.${holder.pid}`]);

    const later: string[] = [];
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(root, 'src/core/a.ts'), `export const x = ${i};\n`);
      later.push(basename(await build()));
    }
    expect(readdirSync(join(root, 'dist')).filter((n) => /^[0-9a-f]{16}$/.test(n)).sort()).toEqual([held, ...later.slice(1)].sort());

    holder.stdin!.end();
    await once(holder, 'exit');
    // It exited cleanly and took its hold along; a process killed with -9 leaves a marker that the
    // next prune finds dead and removes.
    expect(readdirSync(join(root, 'dist/.held'))).toEqual([]);
    writeFileSync(join(root, 'dist/.held', `${held}.${await deadPid()}`), '');
    writeFileSync(join(root, 'src/core/a.ts'), 'export const x = 5;\n');
    const last = basename(await build());
    expect(readdirSync(join(root, 'dist')).filter((n) => /^[0-9a-f]{16}$/.test(n)).sort()).toEqual([...later.slice(2), last].sort());
    expect(readdirSync(join(root, 'dist/.held'))).toEqual([]);
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}
