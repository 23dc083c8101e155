import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The browser agent's loaders as `scripts/build-browser-agent.js` built them from the pinned
 * `@newrelic/browser-agent` package (at install and build time) into `build/browser-agent/`.
 */
export interface AgentFile {
  readonly body: Buffer;
  readonly etag: string;
}

export interface AgentFiles {
  /** The agent version the loaders were built from, e.g. "1.322.0"; undefined when they are not built. */
  readonly version: string | undefined;
  get(file: string): Promise<AgentFile | undefined>;
}

/** The loader files, by the names New Relic's CDN gives them. */
export const LOADER_FILES: readonly string[] = ['nr-loader-rum.min.js', 'nr-loader-full.min.js', 'nr-loader-spa.min.js'];

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'node_modules'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** The built loaders under `dir` (default `<package>/build/browser-agent`), read once and kept. */
export async function openAgentFiles(dir = join(packageRoot(), 'build', 'browser-agent')): Promise<AgentFiles> {
  let version: string | undefined;
  try {
    version = (JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { version?: string }).version;
  } catch {
    version = undefined;
  }
  const cache = new Map<string, Promise<AgentFile | undefined>>();
  return {
    version,
    get(file) {
      if (!LOADER_FILES.includes(file)) return Promise.resolve(undefined);
      let entry = cache.get(file);
      if (!entry) {
        entry = readFile(join(dir, file)).then(
          (body) => ({ body, etag: `"${version ?? '0'}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` }),
          () => undefined,
        );
        cache.set(file, entry);
      }
      return entry;
    },
  };
}
