import { BOOLEAN, DOUBLE, DuckDBTimestampValue, INTEGER, TIMESTAMP, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import type { ColumnType } from './append-tables.js';

export function timestampValue(epochMs: number): DuckDBTimestampValue {
  return new DuckDBTimestampValue(BigInt(Math.round(epochMs)) * 1000n);
}

export const DUCKDB_TYPES: Readonly<Record<ColumnType, DuckDBType>> = { INTEGER, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP };
