import { pathToFileURL } from 'node:url';

/**
 * Runs a benchmark when its file is the one node was started with (`node dist/bench/x.js --a=1`),
 * with `--name=value` flags (`--name` alone is `true`) as `npm run bench` hands them over.
 */
export function runAlone(moduleUrl: string, bench: (flags: ReadonlyMap<string, string>) => Promise<unknown>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const flags = new Map<string, string>();
  for (const arg of process.argv.slice(2)) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (m) flags.set(m[1]!, m[2] ?? 'true');
  }
  bench(flags).catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  });
}
