// `{ ...base, member }` where `base` may lack the member gives, on Node 20 (V8 11.3), every
// object made there a hidden class of its own: the code that reads them keeps deoptimizing and
// being compiled again (src/core/amend.ts). On the paths that run per request, order, fill or
// market event, such objects are made with amend() or spelled out. The type checker tells
// which members a spread's type always has.
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
/**
 * Folders whose code runs per request, order, fill or market event, and app/, which builds the
 * parts once per start: a sweep starts a backtest per run in one thread, and a part built with a
 * class of its own deoptimizes the code that reads it in every run (the rest runs per command or report).
 */
const HOT = ['app', 'core', 'strategy', 'risk', 'batcher', 'limiter', 'exchange', 'executor', 'positions', 'reconciler', 'store', 'sim', 'tape', 'engine'];

/** Each object literal that starts with a spread and then adds a member its type may lack: "file:line: members". */
function spreadsAddingMembers(sources: Record<string, string> | undefined): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(resolve(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error('tsconfig.json does not parse');
  const files = sources ? Object.keys(sources) : parsed.fileNames.filter((f) => HOT.some((d) => f.startsWith(resolve(ROOT, 'src', d) + '/')));
  const host = ts.createCompilerHost(parsed.options);
  if (sources) {
    const read = host.readFile.bind(host);
    host.readFile = (f) => sources[f] ?? read(f);
    host.fileExists = (f) => f in sources || ts.sys.fileExists(f);
  }
  const program = ts.createProgram(files, parsed.options, host);
  const checker = program.getTypeChecker();
  const membersOf = (e: ts.Expression) => checker.getPropertiesOfType(checker.getApparentType(checker.getTypeAtLocation(e)));
  const found: string[] = [];
  for (const file of files) {
    const sf = program.getSourceFile(file)!;
    const visit = (n: ts.Node): void => {
      const [first, ...rest] = ts.isObjectLiteralExpression(n) ? n.properties : [];
      if (first && ts.isSpreadAssignment(first)) {
        // Members the spread always brings (an optional one may be absent).
        const always = new Set(membersOf(first.expression).filter((s) => (s.flags & ts.SymbolFlags.Optional) === 0).map((s) => s.name));
        const added = rest.flatMap((p) => (ts.isSpreadAssignment(p) ? membersOf(p.expression).map((s) => s.name) : p.name ? [p.name.getText(sf)] : [])).filter((name) => !always.has(name));
        if (added.length > 0) found.push(`${file.slice(ROOT.length + 1)}:${sf.getLineAndCharacterOfPosition(first.getStart(sf)).line + 1}: ${added.join(', ')}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return found;
}

describe('objects made on the hot paths share their hidden classes', () => {
  it('no object literal there starts with a spread and adds a member its type may lack: use amend(base, { ... })', () => {
    expect(spreadsAddingMembers(undefined)).toEqual([]);
  });

  it('the check finds an added member and an optional one, and passes overrides and amend()', () => {
    const file = resolve(ROOT, 'src/engine/__spread_probe__.ts');
    const text = [
      "import { amend } from '../core/amend.js';",
      'interface Order { id: string; status: string; venueId?: string }',
      'export const a = (o: Order) => ({ ...o, status: "done" });',
      'export const b = (o: Order) => ({ ...o, venueId: "1" });',
      'export const c = (o: Order) => ({ ...o, note: "x" });',
      'export const d = (o: Order) => amend(o, { note: "x" });',
      'export const e = (o: Order) => ({ id: o.id, ...{ extra: 1 }, more: 2 });',
    ].join('\n');
    expect(spreadsAddingMembers({ [file]: text })).toEqual(['src/engine/__spread_probe__.ts:4: venueId', 'src/engine/__spread_probe__.ts:5: note']);
  });
});
