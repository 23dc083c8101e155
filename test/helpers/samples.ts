import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One captured agent request from `shared/reference/agent-samples` (body already decompressed). */
export interface AgentSample {
  readonly http_method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly raw_body_bytes: number;
  readonly decoded_body_bytes: number;
  readonly body: unknown;
  readonly response_status: number;
  readonly response_body: unknown;
}

/** The repository root: the nearest folder above this file (in test/ or dist/test/) holding package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'tsconfig.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no repository root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * The captured payloads live in the `shared/` folder beside the repository (CI checks it out
 * there), or beside a folder further up (a git worktree nested a level deeper).
 */
export const SAMPLES_DIR = samplesDir();

function samplesDir(): string {
  const beside = resolve(repoRoot(), '..', 'shared', 'reference', 'agent-samples');
  for (let dir = resolve(repoRoot(), '..'); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'reference', 'agent-samples');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return beside;
  }
}

const cache = new Map<string, unknown>();

function readJson(file: string): unknown {
  const path = join(SAMPLES_DIR, file);
  if (!cache.has(path)) cache.set(path, JSON.parse(readFileSync(path, 'utf8')));
  // A fresh copy each time, so no test can change what another one reads.
  return structuredClone(cache.get(path));
}

/** A captured request, e.g. `sample('metric_data')` reads `metric_data.json`. */
export function sample(name: string): AgentSample {
  return readJson(`${name}.json`) as AgentSample;
}

/** The decoded transaction trace the lab wrote beside `transaction_sample_data.json`. */
export function decodedTraceSample(): unknown {
  return (readJson('transaction_sample_data-decoded.json') as { decoded: unknown }).decoded;
}

/** A copy of a sample's body with the lab's run id (`lab-run-1`) replaced by a real one in the envelope. */
export function withRunId(body: unknown, runId: string): unknown {
  const copy = structuredClone(body);
  if (!Array.isArray(copy)) return copy;
  return copy.map((v) => (v === 'lab-run-1' ? runId : v));
}
