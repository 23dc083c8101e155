import type { PlanSource } from '../plan/aggregate-plan.js';
import type { RowExpr } from '../plan/expressions.js';

/**
 * Where the rows of a plan source live in an engine's tables: what the generic renderer needs to
 * know of a physical schema. Each store has its own (`store/duckdb/sources.ts`) and hands it to
 * the renderer with its dialect; nothing here names a table.
 */
export interface PhysicalSchema {
  source(source: PlanSource): PhysicalSource;
}

/** The physical type of a typed column, for the conversions a use asks for. */
export type ColumnKind = 'integer' | 'double' | 'string' | 'boolean' | 'timestamp';

export interface TypedColumn {
  readonly column: string;
  readonly kind: ColumnKind;
}

/**
 * One table (or one event type within a table) that rows of a source come from, and where each
 * logical field lives in it: a typed column, or else an attribute in one of its JSON attribute
 * maps (searched in order). A field the branch has neither for is read from the maps, where it
 * is simply absent (NULL) unless the sender gave it.
 */
export interface SourceBranch {
  readonly table: string;
  /** `eventType()` of its rows. */
  readonly eventType: string;
  readonly accountColumn: string;
  readonly timeColumn: string;
  /** Rows of this branch are those of the table whose `column` equals `value` (custom event types). */
  readonly typeColumn?: { readonly column: string; readonly value: string };
  readonly typed: Readonly<Record<string, TypedColumn>>;
  /** Fields this branch computes from its other fields (what another branch of the source stores). */
  readonly computed?: Readonly<Record<string, RowExpr>>;
  readonly attributeMaps: readonly string[];
  /**
   * Rows of this branch count only inside (`inside: true`) or only outside this part of the plan's
   * window: hourly rollups answer their hours, 1-minute tables the rest (`TimesliceSource.hourly`).
   */
  readonly timeRange?: { readonly beginMs: number; readonly endMs: number; readonly inside: boolean };
}

/**
 * Where a plan source lives. `uniform`: every branch has the same columns and mapping (the
 * timeslice tables), so branches can be unioned as whole rows; otherwise each branch projects
 * the fields a query uses.
 */
export interface PhysicalSource {
  readonly branches: readonly SourceBranch[];
  readonly uniform: boolean;
}
