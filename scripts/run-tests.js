// Runs every compiled test file with Node's test runner, or those whose path contains one of the
// arguments. Unit tests (*.test.js) do no I/O; integration tests (*.int.test.js, test/e2e) start
// real servers, agents and engines.
import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

// --unit: the fast lane, unit tests only (no *.int.test.js, nothing under test/e2e), property and
// fuzz sizes scaled by TIMESLICE_FUZZ_SCALE (0.1 unless set).
const args = process.argv.slice(2);
const unit = args.includes('--unit');
const only = args.filter((a) => a !== '--unit');
if (unit && process.env.TIMESLICE_FUZZ_SCALE === undefined) process.env.TIMESLICE_FUZZ_SCALE = '0.1';
const isUnit = (f) => !f.endsWith('.int.test.js') && !f.split(sep).includes('e2e');
const roots = ['dist/src', 'dist/test'];
const files = roots
  .flatMap((root) => find(root))
  .filter((f) => (!unit || isUnit(f)) && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
