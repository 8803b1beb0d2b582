// bench/results.ts: a benchmark's --write replaces its own section of RESULTS.md, keeps every
// other section, and keeps what follows the section's by-hand marker.
import { describe, expect, it } from 'vitest';
import { BY_HAND, replaceSection } from '../../bench/results.js';

const doc = ['# Benchmark results', '', '## Engine (issue 4)', '', 'old table', '', BY_HAND, '', 'a reading by hand', '', '## Limiter', '', 'limiter table', ''].join('\n');

describe('replaceSection', () => {
  it('replaces what the benchmark wrote, keeps the readings after the marker and the next section', () => {
    expect(replaceSection(doc, 'Engine \\(issue 4\\)', '## Engine (issue 4)\n\nnew table\n')).toBe(
      ['# Benchmark results', '', '## Engine (issue 4)', '', 'new table', '', BY_HAND, '', 'a reading by hand', '', '## Limiter', '', 'limiter table', ''].join('\n'),
    );
  });

  it('replaces a section without a marker whole, the last one included, and appends one it does not find', () => {
    expect(replaceSection(doc, 'Limiter', '## Limiter\n\nnew\n')).toBe(doc.replace('limiter table\n', 'new\n'));
    expect(replaceSection('# Benchmark results\n', 'Journal', '## Journal\n\nrows\n')).toBe('# Benchmark results\n\n## Journal\n\nrows\n');
  });
});
