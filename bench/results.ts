// Writes one benchmark's section of bench/RESULTS.md, leaving every other section as it is.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A line in a section after which the text is written by hand (readings, before/after runs):
 * the benchmark rewrites what comes before it and keeps what follows.
 */
export const BY_HAND = '<!-- by hand: what follows is kept when the benchmark writes this section -->';

export function writeSection(title: string, section: string): string {
  const file = resolve(import.meta.dirname, 'RESULTS.md');
  // Read and write back at once: other benchmarks own (and rewrite) other sections.
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n\n';
  writeFileSync(file, replaceSection(text, title, section));
  return file;
}

/** `text` with the section titled `title` (a pattern) replaced by `section`, keeping what follows its BY_HAND line. */
export function replaceSection(text: string, title: string, section: string): string {
  const start = text.search(new RegExp(`^## ${title}\\s*$`, 'm'));
  if (start < 0) return `${text.replace(/\n*$/, '\n\n')}${section}`;
  const after = text.slice(start + 1).search(/^## /m);
  const end = after < 0 ? text.length : start + 1 + after;
  const old = text.slice(start, end);
  const marker = old.indexOf(BY_HAND);
  const kept = marker < 0 ? '' : `\n${old.slice(marker).replace(/\n*$/, '\n')}`;
  return `${text.slice(0, start)}${section.replace(/\n*$/, '\n')}${kept}${after < 0 ? '' : '\n'}${text.slice(end)}`;
}
