import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Compares `actual` with the golden file at `relativePath` (from the repository root). With
 * UPDATE_GOLDEN=1 the file is (re)written instead, for review in the diff; a missing golden
 * file is a failure, never silently created.
 */
export function assertGolden(relativePath: string, actual: string): void {
  const path = join(process.cwd(), relativePath);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `golden file ${relativePath} is missing; run with UPDATE_GOLDEN=1 and review it`);
  assert.equal(actual, readFileSync(path, 'utf8'), `differs from ${relativePath} (UPDATE_GOLDEN=1 rewrites it)`);
}
