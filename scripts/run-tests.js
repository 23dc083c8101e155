// Runs every compiled test file with Node's test runner. Unit tests (*.test.js) do no I/O;
// integration tests (*.int.test.js, test/e2e) start real servers, agents and engines.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const roots = ['dist/src', 'dist/test'];
const only = process.argv.slice(2);
const files = roots.flatMap((root) => find(root)).filter((f) => only.length === 0 || only.some((o) => f.includes(o))).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
