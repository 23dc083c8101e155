import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/** One import in the source tree: from a file to a file under src/ (paths relative to src/), or to a package. */
export interface Import {
  readonly from: string;
  /** `src/`-relative path of the imported file, or the package name (`@duckdb/node-api`, `node:fs`). */
  readonly to: string;
  readonly line: number;
}

const STATEMENT = /^\s*(?:import|export)\b(?:[^'";]*?\bfrom\s*)?\s*['"]([^'"]+)['"]/gm;

/** The package an import specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The static imports and re-exports of one module's text. Relative specifiers are resolved against
 * the importing file and mapped from the emitted `.js` name back to its `.ts` source.
 */
export function importsOf(file: string, text: string): Import[] {
  const out: Import[] = [];
  for (const match of text.matchAll(STATEMENT)) {
    const specifier = match[1]!;
    const line = text.slice(0, match.index).split('\n').length + (match[0].match(/^\s*/)![0].split('\n').length - 1);
    const to = specifier.startsWith('.')
      ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
      : packageOf(specifier);
    out.push({ from: file, to, line });
  }
  return out;
}

/** Every non-test TypeScript module under `root`, as `root`-relative POSIX paths. */
export function sourceFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) out.push(...sourceFiles(root, rel));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

export function readImports(root: string): Import[] {
  return sourceFiles(root).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')));
}

/** A module of the layer rules: the files it holds (path prefixes under src/) and the modules it may import. */
export interface ModuleRule {
  readonly paths: readonly string[];
  readonly mayImport: readonly string[];
  /** The paths are package names: only the modules that list this one may import them. */
  readonly packages?: boolean;
}

/** An import the rules forbid that is allowed for now, with the reason and what removes it. */
export interface Exception {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

export interface Violation extends Import {
  readonly fromModule: string;
  readonly toModule: string;
}

/** The module holding a path: the rule with the longest matching path prefix (a file or a folder). */
export function moduleOf(rules: Readonly<Record<string, ModuleRule>>, path: string): string | undefined {
  let best: string | undefined;
  let bestLength = -1;
  for (const [name, rule] of Object.entries(rules)) {
    if (rule.packages) continue;
    for (const prefix of rule.paths) {
      const matches = path === prefix || path.startsWith(`${prefix}/`);
      if (matches && prefix.length > bestLength) {
        best = name;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

function isPackage(to: string): boolean {
  return !to.endsWith('.ts');
}

function covers(prefix: string, path: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Imports that break the rules. A file import is checked between modules; a package import only
 * when a module rule names that package (so `@duckdb/node-api` can be confined while `node:fs`
 * and the rest stay free). A file no rule holds is a violation of its own: a new folder needs a rule.
 */
export function violations(
  rules: Readonly<Record<string, ModuleRule>>,
  imports: readonly Import[],
  exceptions: readonly Exception[] = [],
): { violations: Violation[]; usedExceptions: Set<Exception> } {
  const packageModule = new Map<string, string>();
  for (const [name, rule] of Object.entries(rules)) if (rule.packages) for (const p of rule.paths) packageModule.set(p, name);
  const out: Violation[] = [];
  const usedExceptions = new Set<Exception>();
  for (const imp of imports) {
    const fromModule = moduleOf(rules, imp.from) ?? '(no module)';
    let toModule: string;
    if (isPackage(imp.to)) {
      const confined = packageModule.get(imp.to);
      if (confined === undefined) continue;
      toModule = confined;
    } else {
      toModule = moduleOf(rules, imp.to) ?? '(no module)';
    }
    if (fromModule !== '(no module)' && (fromModule === toModule || rules[fromModule]!.mayImport.includes(toModule))) continue;
    const exception = exceptions.find((e) => covers(e.from, imp.from) && covers(e.to, imp.to));
    if (exception) {
      usedExceptions.add(exception);
      continue;
    }
    out.push({ ...imp, fromModule, toModule });
  }
  return { violations: out, usedExceptions };
}

/**
 * The imports but those an exception names (by file or folder prefixes), and the exceptions that
 * matched one: for cycles that a listed, temporary import closes.
 */
export function withoutExcepted(imports: readonly Import[], exceptions: readonly Exception[]): { imports: Import[]; usedExceptions: Set<Exception> } {
  const usedExceptions = new Set<Exception>();
  const kept = imports.filter((imp) => {
    const exception = exceptions.find((e) => covers(e.from, imp.from) && covers(e.to, imp.to));
    if (exception) usedExceptions.add(exception);
    return exception === undefined;
  });
  return { imports: kept, usedExceptions };
}

/** The import cycles between files (strongly connected components of more than one file, or a file importing itself). */
export function cycles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const imp of imports) {
    if (isPackage(imp.to)) continue;
    edges.set(imp.from, [...(edges.get(imp.from) ?? []), imp.to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}
