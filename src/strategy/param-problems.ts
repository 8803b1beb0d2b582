// A plugin's params problems as config problems: one per issue, at its YAML path, worded like
// the core config's (an unknown key gets "did you mean", a bare number where the plugin wants a
// decimal string says to quote it). Schemas are read by their zod definition, not by class, so a
// plugin that imports its own copy of zod is read the same.
import type { ConfigProblem } from '../core/errors.js';
import { closest, shownChoice } from '../core/spelling.js';

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
  values?: unknown[];
}

interface Def {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  entries?: Record<string, unknown>;
  values?: unknown[];
  options?: unknown[];
}

const defOf = (schema: unknown): Def => ((schema as { _zod?: { def?: Def } } | null)?._zod?.def ?? {});

/** The schema under wrappers (defaults, optional, nullable, transforms). */
function structural(schema: unknown): unknown {
  for (let i = 0; i < 20; i++) {
    const def = defOf(schema);
    if (def.innerType !== undefined && ['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type ?? '')) schema = def.innerType;
    else if (def.type === 'pipe' && def.in !== undefined) schema = def.in;
    else break;
  }
  return schema;
}

/** The keys the object schema at `path` (inside `schema`) knows, or undefined when it is not an object. */
export function paramKeys(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let node = structural(schema);
  for (const seg of path) {
    const def = defOf(node);
    if (def.type === 'object' && def.shape) node = structural(def.shape[String(seg)]);
    else if (def.type === 'array') node = structural(def.element);
    else return undefined;
  }
  const def = defOf(node);
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** How a YAML value of a param is written: what a sweep's text value must become for the schema. */
export type ParamKind = 'number' | 'string' | 'boolean';

const kindOfValue = (v: unknown): ParamKind | undefined => (typeof v === 'number' || typeof v === 'bigint' ? 'number' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : undefined);

/**
 * The kind of value the schema takes at `path` (a decimalParam is a string, z.number() a
 * number, an enum of strings a string); undefined where the schema does not say one kind.
 */
export function paramKind(schema: unknown, path: readonly PropertyKey[]): ParamKind | undefined {
  let node = structural(schema);
  for (const seg of path) {
    const def = defOf(node);
    if (def.type === 'object' && def.shape) node = structural(def.shape[String(seg)]);
    else if (def.type === 'array') node = structural(def.element);
    else return undefined;
  }
  const def = defOf(node);
  switch (def.type) {
    case 'number':
    case 'int':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'enum':
    case 'literal': {
      const kinds = new Set((def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? [])).map(kindOfValue));
      return kinds.size === 1 ? [...kinds][0] : undefined;
    }
    case 'union': {
      const kinds = new Set((def.options ?? []).map((o) => paramKind(o, [])));
      return kinds.size === 1 ? [...kinds][0] : undefined;
    }
    default:
      return undefined;
  }
}

const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((v, seg) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg] : undefined), value);

const formatSub = (path: readonly PropertyKey[]) => path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`)).join('');

/**
 * `at` is the entry's path, e.g. `strategies[0]`. `fromEnvironment`: the paths whose values came
 * from ${VAR}; a choice's value is quoted only where it did not (it may be a secret).
 */
export function paramProblems(issues: readonly Issue[], schema: unknown, params: unknown, at: string, plugin: string, fromEnvironment: ReadonlySet<string> = new Set()): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const where = `(plugin ${plugin})`;
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      const known = paramKeys(schema, issue.path);
      for (const key of issue.keys) {
        const guess = known ? closest(key, known) : undefined;
        const fix = guess ? `did you mean ${guess}?` : known ? `remove it (known params here: ${known.join(', ') || 'none'})` : 'remove it';
        problems.push({ path: `${at}.params${formatSub([...issue.path, key])}`, message: `unknown key; ${fix} ${where}` });
      }
      continue;
    }
    const value = valueAt(params, issue.path);
    const path = `${at}.params${formatSub(issue.path)}`;
    let hint = '';
    if (issue.code === 'invalid_type' && issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
      hint = `: write it quoted, e.g. "${String(value)}" (money and quantities are decimal strings)`;
    } else if (issue.code === 'invalid_type' && issue.expected === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
      hint = `: write it without quotes, e.g. ${value.trim()}`;
    } else if ((issue.code === 'invalid_value' || issue.code === 'invalid_union') && !fromEnvironment.has(path)) {
      const shown = shownChoice(value, issue.values);
      if (shown) hint = ` (got ${shown})`;
    }
    problems.push({ path, message: `${issue.message}${hint} ${where}` });
  }
  return problems;
}
