// TradingView's lightweight-charts (Apache-2.0), as its standalone build: one script that defines
// window.LightweightCharts. The ops server serves it from node_modules and the reports inline
// it, so nothing ever loads it from a CDN and every page works with no network.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/** The standalone production build in node_modules (its package exports only the ES module). */
export function chartLibraryPath(): string {
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js');
}

/** The library's text, read once. It keeps its license header, as Apache-2.0 asks. */
export function chartLibrarySource(): string {
  if (cached === undefined) {
    const text = readFileSync(chartLibraryPath(), 'utf8');
    // Inlined into a <script> element, the text must not close it early.
    cached = text.replace(/<\/(script)/gi, '<\\/$1');
  }
  return cached;
}
