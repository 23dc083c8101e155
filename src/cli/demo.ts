import type { ServeConfig } from '../config.js';

export async function demoCommand(_config: ServeConfig, _durationSeconds: number): Promise<number> {
  throw new Error('demo: not built yet');
}
