// Lines for problems found after the config was loaded (a plugin's params, checked when the
// plugin loads), so they point at the file like the config's own problems do.
import { ConfigError, type ConfigProblem } from '../core/errors.js';
import { lineOf, parseYamlText, type Path, type Segment } from './yaml.js';

/** The segments of a path formatPath wrote: `strategies[0].params["a b"]` -> strategies, 0, params, a b. */
export function parsePath(formatted: string): Path {
  const out: Segment[] = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (const m of formatted.matchAll(re)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(m[2]) as string);
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

/** The problems with the line of each path in `yamlText` (where it is there), in file order. */
export function locateProblems(yamlText: string, problems: readonly ConfigProblem[]): ConfigProblem[] {
  const { parsed } = parseYamlText(yamlText);
  const located = problems.map((p) => (p.line !== undefined ? p : { ...p, line: lineOf(parsed, parsePath(p.path)) }));
  return located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

/** `err` again, its problems located in the config text and named by its file. */
export function locatedError(err: ConfigError, yamlText: string, source: string): ConfigError {
  return new ConfigError(locateProblems(yamlText, err.problems), source);
}
