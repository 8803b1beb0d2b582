// "Did you mean": the closest known word to one that is probably a typo. Config keys, endpoint
// ids, plugin params and symbols all use it, so every hint reads the same.

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/** The closest candidate when it is plausibly a typo of `word`. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = c.toLowerCase() === lower ? 0 : distance(lower, c.toLowerCase());
    if (!best || d < best.d) best = { c, d };
  }
  if (best && best.d <= Math.max(2, Math.floor(word.length / 4))) return best.c;
  // A known word the given one begins, with only a suffix left off (stopLoss for stopLossPct).
  const started = lower.length >= 4 ? candidates.filter((c) => c.toLowerCase().startsWith(lower)) : [];
  return started.length === 1 ? started[0] : undefined;
}

/** Text longer than this is cut where a choice's value is shown: a pasted paragraph helps nobody. */
const SHOWN_CHARS = 40;

/**
 * A value given for a choice, as a problem shows it: `"lve"; did you mean live?` (text quoted,
 * a number or true/false as written, a guess among `options` when one is close), or undefined
 * for a list or a mapping. Only for a value written in the file: one from the environment may
 * be a secret, and its caller shows its kind instead.
 */
export function shownChoice(value: unknown, options: readonly unknown[] = []): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  const cut = value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}...` : value;
  const guess = closest(value, options.filter((o): o is string => typeof o === 'string'));
  return `${JSON.stringify(cut)}${guess && guess !== value ? `; did you mean ${guess}?` : ''}`;
}
