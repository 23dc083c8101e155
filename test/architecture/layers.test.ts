import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { cycles, importsOf, moduleOf, readImports, violations, withoutExcepted, type ModuleRule } from './import-graph.js';
import { CYCLE_EXCEPTIONS, EXCEPTIONS, MODULES } from './layers.js';

// Compiled to dist/test/architecture/: the sources are three levels up.
const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

test('every import in src/ follows the layer rules of ARCHITECTURE.md', (t) => {
  const imports = readImports(SRC);
  assert.ok(imports.length > 300, `read ${imports.length} imports from ${SRC}`);
  const { violations: found, usedExceptions } = violations(MODULES, imports, EXCEPTIONS);
  const lines = found.map((v) => `${v.from}:${v.line} (${v.fromModule}) imports ${v.to} (${v.toModule})`);
  assert.deepEqual(lines, [], `imports that break the layer rules:\n${lines.join('\n')}`);
  for (const exception of EXCEPTIONS) {
    if (!usedExceptions.has(exception)) t.diagnostic(`unused layer exception, delete it: ${exception.from} -> ${exception.to}`);
  }
});

test('no import cycle between files of src/', (t) => {
  const { imports, usedExceptions } = withoutExcepted(readImports(SRC), CYCLE_EXCEPTIONS);
  const found = cycles(imports).map((c) => c.join(' <-> '));
  assert.deepEqual(found, [], `import cycles:\n${found.join('\n')}`);
  for (const exception of CYCLE_EXCEPTIONS) {
    if (!usedExceptions.has(exception)) t.diagnostic(`unused cycle exception, delete it: ${exception.from} -> ${exception.to}`);
  }
});

test('every module rule names modules and paths that exist', () => {
  for (const [name, rule] of Object.entries(MODULES)) {
    for (const dep of rule.mayImport) assert.ok(dep in MODULES, `${name} may import unknown module ${dep}`);
    if (rule.packages) continue;
    for (const path of rule.paths) assert.ok(existsSync(`${SRC}/${path}`), `${name}: src/${path} does not exist`);
  }
});

// The checker itself, on a small tree written here.
const RULES: Record<string, ModuleRule> = {
  low: { paths: ['low'], mayImport: [] },
  engine: { paths: ['low/engine'], mayImport: ['low', 'pkg'] },
  pkg: { paths: ['@vendor/db'], mayImport: [], packages: true },
  a: { paths: ['a'], mayImport: ['low'] },
  b: { paths: ['b', 'top.ts'], mayImport: ['low', 'a'] },
};

test('importsOf resolves relative specifiers to .ts sources and keeps package names without subpaths', () => {
  const text = [
    "import { x } from '../low/x.js';",
    "import type { Y } from './y.js';",
    "export { z } from './deep/z.js';",
    "import {",
    "  multi,",
    "} from '@vendor/db/sub';",
    "import 'node:fs';",
    "// import { not } from './commented.js' is a comment, not an import",
    "const s = \"import { no } from './string.js'\";",
  ].join('\n');
  assert.deepEqual(importsOf('a/f.ts', text), [
    { from: 'a/f.ts', to: 'low/x.ts', line: 1 },
    { from: 'a/f.ts', to: 'a/y.ts', line: 2 },
    { from: 'a/f.ts', to: 'a/deep/z.ts', line: 3 },
    { from: 'a/f.ts', to: '@vendor/db', line: 4 },
    { from: 'a/f.ts', to: 'node:fs', line: 7 },
  ]);
});

test('moduleOf takes the longest matching prefix and matches whole path segments', () => {
  assert.equal(moduleOf(RULES, 'low/engine/x.ts'), 'engine');
  assert.equal(moduleOf(RULES, 'low/x.ts'), 'low');
  assert.equal(moduleOf(RULES, 'lower/x.ts'), undefined);
  assert.equal(moduleOf(RULES, 'top.ts'), 'b');
});

test('violations reports forbidden, unruled and confined-package imports, and honours exceptions', () => {
  const imports = [
    { from: 'a/one.ts', to: 'low/x.ts', line: 1 }, // allowed
    { from: 'a/one.ts', to: 'a/two.ts', line: 2 }, // same module
    { from: 'low/x.ts', to: 'a/one.ts', line: 3 }, // upward: forbidden
    { from: 'a/one.ts', to: 'b/x.ts', line: 4 }, // sibling not listed: forbidden
    { from: 'a/one.ts', to: '@vendor/db', line: 5 }, // confined package
    { from: 'low/engine/e.ts', to: '@vendor/db', line: 6 }, // the engine may
    { from: 'a/one.ts', to: 'node:fs', line: 7 }, // free package
    { from: 'new/thing.ts', to: 'low/x.ts', line: 8 }, // no rule holds the file
    { from: 'b/x.ts', to: 'low/engine/e.ts', line: 9 }, // excepted below
  ];
  const exception = { from: 'b', to: 'low/engine', reason: 'test' };
  const unused = { from: 'a', to: 'nowhere', reason: 'test' };
  const { violations: found, usedExceptions } = violations(RULES, imports, [exception, unused]);
  assert.deepEqual(
    found.map((v) => [v.line, v.fromModule, v.toModule]),
    [
      [3, 'low', 'a'],
      [4, 'a', 'b'],
      [5, 'a', 'pkg'],
      [8, '(no module)', 'low'],
    ],
  );
  assert.deepEqual([...usedExceptions], [exception]);
});

test('cycles finds each strongly connected group of files once, and self-imports', () => {
  const edge = (from: string, to: string) => ({ from, to, line: 1 });
  const found = cycles([
    edge('a.ts', 'b.ts'),
    edge('b.ts', 'c.ts'),
    edge('c.ts', 'a.ts'),
    edge('c.ts', 'd.ts'),
    edge('d.ts', 'e.ts'),
    edge('s.ts', 's.ts'),
    edge('e.ts', 'node:fs'),
  ]);
  assert.deepEqual(found, [['a.ts', 'b.ts', 'c.ts'], ['s.ts']]);
});

test('an excepted import no longer closes a cycle', () => {
  const edge = (from: string, to: string) => ({ from, to, line: 1 });
  const closing = { from: 'low', to: 'a/c.ts', reason: 'test' };
  const unused = { from: 'b', to: 'a', reason: 'test' };
  const { imports, usedExceptions } = withoutExcepted([edge('a/c.ts', 'low/x.ts'), edge('low/x.ts', 'a/c.ts'), edge('a/d.ts', 'a/c.ts')], [closing, unused]);
  assert.deepEqual(imports, [edge('a/c.ts', 'low/x.ts'), edge('a/d.ts', 'a/c.ts')]);
  assert.deepEqual(cycles(imports), []);
  assert.deepEqual([...usedExceptions], [closing]);
});
