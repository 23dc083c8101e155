import type { Buckets, PlanSource, RowOrder, TimeWindow } from '../../plan/aggregate-plan.js';
import type { AggregateCall, OutputExpr, Predicate, RowExpr } from '../../plan/expressions.js';
import type { Span } from '../ast.js';
import type { DictionaryName, NrqlDictionaries } from '../dictionaries.js';

/** What the analyzer makes of a query: the plan's parts and how results are shaped. */

export interface AnalyzeContext {
  readonly accountIds: readonly number[];
  readonly nowMs: number;
  readonly dictionaries: NrqlDictionaries;
}

/** The query's window, and the texts `metadata.timeWindow` shows. */
export interface QueryWindow extends TimeWindow {
  readonly since: string;
  readonly until: string;
}

export interface ResultColumn {
  readonly key: string;
  readonly output: OutputExpr;
  readonly decode?: DictionaryName;
  readonly listLimit?: number;
}

export interface FacetKey {
  /** The name `metadata.facets` lists and the extra key beside `facet` in a row. */
  readonly label: string;
  readonly expr: RowExpr;
  readonly decode?: DictionaryName;
}

interface Common {
  readonly source: PlanSource;
  readonly accountIds: readonly number[];
  readonly window: QueryWindow;
  readonly where: Predicate;
  readonly eventTypes: readonly string[];
  /** COMPARE WITH: the earlier window and its metadata text. */
  readonly compare?: { readonly window: TimeWindow; readonly text: string };
  /** RLIKE patterns (and where each is written), to be checked by the SQL engine's regex library before the query runs. */
  readonly regexPatterns: readonly { readonly pattern: string; readonly span: Span }[];
}

/** Aggregates, optionally per facet and per time bucket. */
export interface AnalyzedAggregate extends Common {
  readonly kind: 'aggregate';
  readonly aggregates: readonly AggregateCall[];
  readonly columns: readonly ResultColumn[];
  readonly buckets?: Buckets;
  readonly facets: readonly FacetKey[];
  readonly facetLimit: number;
  /** With FACET: what ranks facets, an output over the aggregates (descending), or the number of rows. */
  readonly rankBy?: OutputExpr;
  /**
   * The aggregate counting rows where the first aggregate's attribute has a value: only facets
   * with such rows are listed (the rest count in otherResult).
   */
  readonly facetPresence?: number;
}

export interface RowColumn {
  readonly key: string;
  readonly expr: RowExpr;
  readonly decode?: DictionaryName;
}

/** Event rows (`SELECT *`, attribute lists). */
export interface AnalyzedRows extends Common {
  readonly kind: 'rows';
  readonly columns: readonly RowColumn[];
  /** `SELECT *` (alone or beside other items): every attribute of each row. */
  readonly all: boolean;
  readonly orderBy: readonly RowOrder[];
  readonly limit: number;
  readonly offset: number;
}

export interface AnalyzedShowEventTypes {
  readonly kind: 'showEventTypes';
  readonly accountIds: readonly number[];
  readonly window: QueryWindow;
}

export type AnalyzedQuery = AnalyzedAggregate | AnalyzedRows | AnalyzedShowEventTypes;

