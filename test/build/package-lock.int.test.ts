// The committed lockfile must be the one npm writes on a fresh `npm install`. A lockfile written
// from a node_modules that held only this platform's optional packages (npm before 10 pruned the
// others: DuckDB's bindings for darwin, win32 and musl) gets them added back by npm 11 on the next
// install, so every clone showed a modified package-lock.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface LockEntry { readonly version?: string; readonly optionalDependencies?: Record<string, string>; readonly dependencies?: Record<string, string> }

/** Optional dependencies a locked package names but the lockfile has no entry for (npm's lookup: nested, then up the tree). */
function missingOptionalPackages(lock: { packages: Record<string, LockEntry> }): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      let dir = path;
      let found = false;
      for (;;) {
        if (lock.packages[`${dir === '' ? '' : `${dir}/`}node_modules/${name}`]) { found = true; break; }
        if (dir === '') break;
        const cut = dir.lastIndexOf('/node_modules/');
        dir = cut < 0 ? '' : dir.slice(0, cut);
      }
      if (!found) missing.push(`${path || '(root)'} → ${name}`);
    }
  }
  return missing;
}

test('package-lock.json locks every platform\'s optional packages, as npm 11 writes it', () => {
  const lock = JSON.parse(readFileSync(`${repoRoot}package-lock.json`, 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
  assert.equal(lock.lockfileVersion, 3);
  assert.deepEqual(missingOptionalPackages(lock), []);
  const bindings = Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/@duckdb/node-bindings-')).sort();
  assert.deepEqual(bindings, [
    'darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-arm64-musl', 'linux-x64', 'linux-x64-musl', 'win32-arm64', 'win32-x64',
  ].map((p) => `node_modules/@duckdb/node-bindings-${p}`));
});

test('the check finds a platform binding that a pruned lockfile left out', () => {
  const pruned = {
    packages: {
      '': { dependencies: { '@duckdb/node-bindings': '1.5.6-r.1' } },
      'node_modules/@duckdb/node-bindings': { optionalDependencies: { '@duckdb/node-bindings-linux-x64': '1.5.6-r.1', '@duckdb/node-bindings-darwin-arm64': '1.5.6-r.1' } },
      'node_modules/@duckdb/node-bindings-linux-x64': { version: '1.5.6-r.1' },
    },
  };
  assert.deepEqual(missingOptionalPackages(pruned), ['node_modules/@duckdb/node-bindings → @duckdb/node-bindings-darwin-arm64']);
});
