import { createRequire } from 'node:module';
import os from 'node:os';
import { version as duckdbVersion } from '@duckdb/node-api';

export interface MachineFacts {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly duckdb: string;
  readonly duckdbNodeApi: string;
  readonly platform: string;
  readonly loadAverage: readonly number[];
}

/** What a benchmark figure depends on besides the code: recorded with every result. */
export function machineFacts(): MachineFacts {
  const require = createRequire(import.meta.url);
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    duckdb: duckdbVersion(),
    duckdbNodeApi: (require('@duckdb/node-api/package.json') as { version: string }).version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
