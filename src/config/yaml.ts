// The YAML side of loading: parse with positions, interpolate ${VAR} in values, and find the
// line of any path so every problem can point at the file.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parse as parseYaml, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigProblem } from '../core/errors.js';

export type Segment = string | number;
export type Path = readonly Segment[];

/** `strategies[1].everyMs`; keys that are not identifiers are quoted: `venue.limits["spot.order"]`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out || '(top level)';
}

export interface ParsedYaml {
  doc: Document.Parsed;
  lines: LineCounter;
}

/**
 * Syntax problems carry yaml's first sentence without the source text it quotes (that text
 * may be a secret someone pasted), and one problem per line: later ones are mostly echoes.
 */
export function parseYamlText(text: string): { parsed: ParsedYaml; problems: ConfigProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const problems: ConfigProblem[] = [];
  for (const e of doc.errors) {
    const line = e.linePos?.[0].line;
    if (problems.some((p) => p.line === line)) continue;
    const what = (e.message.split(/ at line \d+|\n/)[0] ?? 'invalid YAML').replace(/: ".*$/, '');
    problems.push({ path: '(syntax)', line, message: `${what}: fix the YAML (indentation, a missing ':', an unclosed quote or bracket; quote \${...} inside { } or [ ])` });
  }
  return { parsed: { doc, lines }, problems };
}

function keyOf(node: unknown): string | undefined {
  return isScalar(node) ? String(node.value) : undefined;
}

/**
 * 1-based line of the deepest part of `path` present in the file (the key's line for mapping
 * entries); undefined when not even the first segment is there.
 */
export function lineOf({ doc, lines }: ParsedYaml, path: Path): number | undefined {
  const at = (node: unknown) => {
    const offset = (node as Node | null)?.range?.[0];
    return offset === undefined ? undefined : lines.linePos(offset).line;
  };
  let node: unknown = doc.contents;
  let line = path.length === 0 ? at(node) : undefined;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyOf(p.key) === String(seg));
      if (!pair) break;
      line = at(pair.key) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      if (!node) break;
      line = at(node) ?? line;
    } else break;
  }
  return line;
}

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;
const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

export interface Interpolation {
  problems: ConfigProblem[];
  /** Formatted path -> variable names used there (messages name the variable, never the value). */
  sources: Map<string, string[]>;
}

/**
 * Replaces ${VAR} and ${VAR:-default} in every string value (keys are left alone); $${ is a
 * literal ${. An unquoted scalar that is exactly one reference takes the type YAML would give
 * the substituted text, so `port: ${PORT}` is a number and `spotUrl: ${URL:-}` is null;
 * a quoted one stays a string. An unset variable without a default is a problem.
 */
export function interpolate(parsed: ParsedYaml, env: NodeJS.ProcessEnv): Interpolation {
  const result: Interpolation = { problems: [], sources: new Map() };
  const seen = new Set<unknown>();
  const visit = (node: unknown, path: Segment[]): void => {
    if (seen.has(node)) return; // an anchored node is rewritten once, wherever it is referenced
    seen.add(node);
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyOf(pair.key);
        if (key !== undefined) visit(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => visit(item, [...path, i]));
    } else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('${')) {
      const original = node.value;
      const names: string[] = [];
      let failed = false;
      const substituted = original.replace(REFERENCE, (ref, name: string | undefined, fallback: string | undefined) => {
        if (ref === '$${') return '${';
        const at = { path: formatPath(path), line: lineOf(parsed, path) };
        if (name === undefined) {
          failed = true;
          result.problems.push({ ...at, message: 'malformed ${...} reference: write ${NAME} or ${NAME:-default} (or $${ for a literal ${)' });
          return '';
        }
        names.push(name);
        const value = env[name];
        if (value !== undefined && value !== '') return value;
        if (fallback !== undefined) return fallback;
        failed = true;
        result.problems.push({ ...at, message: `environment variable ${name} is not set: export it, or write \${${name}:-default}` });
        return '';
      });
      if (names.length > 0) result.sources.set(formatPath(path), names);
      if (failed) return;
      node.value = node.type === 'PLAIN' && WHOLE_REFERENCE.test(original) ? retype(substituted) : substituted;
    }
  };
  visit(parsed.doc.contents, []);
  return result;
}

/** What YAML would make of `text` as an unquoted scalar: number, boolean, null, else the text. */
function retype(text: string): unknown {
  try {
    const v: unknown = parseYaml(text);
    return v === null || typeof v === 'number' || typeof v === 'boolean' ? v : text;
  } catch {
    return text;
  }
}
