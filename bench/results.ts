// Writes one benchmark's section of bench/RESULTS.md, leaving every other section as it is.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export function writeSection(title: string, section: string): string {
  const file = resolve(import.meta.dirname, 'RESULTS.md');
  // Read and write back at once: other benchmarks own (and rewrite) other sections.
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  const start = text.search(new RegExp(`^## ${title}\\s*$`, 'm'));
  let next: string;
  if (start < 0) next = `${text.replace(/\n*$/, '\n\n')}${section}`;
  else {
    const after = text.slice(start + 1).search(/^## /m);
    const end = after < 0 ? text.length : start + 1 + after;
    next = `${text.slice(0, start)}${section}${after < 0 ? '' : '\n'}${text.slice(end)}`;
  }
  writeFileSync(file, next);
  return file;
}
