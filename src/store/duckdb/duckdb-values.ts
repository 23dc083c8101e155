import { BOOLEAN, DOUBLE, DuckDBTimestampValue, INTEGER, TIMESTAMP, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { ColumnType } from '../append-tables.js';

export function timestampValue(epochMs: number): DuckDBTimestampValue {
  return new DuckDBTimestampValue(BigInt(Math.round(epochMs)) * 1000n);
}

export const DUCKDB_TYPES: Readonly<Record<ColumnType, DuckDBType>> = { INTEGER, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP };

/**
 * Bind types for write parameters: a number that is a whole number beyond ±2^53 (an Apdex T of
 * 1e19 says so to JavaScript) would be bound as BIGINT and refused by DuckDB beyond int64, so
 * such numbers go as DOUBLE; every other value keeps DuckDB's inference.
 */
export function paramTypes(values: readonly DuckDBValue[]): DuckDBType[] {
  // The binding reads an undefined entry as "infer" (DuckDBPreparedStatement.bind); its typings say otherwise.
  return values.map((v) => (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) ? DOUBLE : undefined)) as DuckDBType[];
}
