import type { Clock } from '../clock.js';
import { QueryTimeoutError, QueryTooDeepError, type PlanExecutor } from '../store/plan-executor.js';
import { analyze, type AnalyzedQuery } from './analyze.js';
import type { Condition, Query } from './ast.js';
import type { NrqlDictionaries } from './dictionaries.js';
import { execute, type NrqlResult } from './execute.js';
import { format } from './format.js';
import { NrqlError } from './nrql-error.js';
import { parse } from './parser.js';
import type { QueryAdmission } from './query-admission.js';

export interface NrqlEngineDeps {
  readonly executor: PlanExecutor;
  readonly dictionaries: NrqlDictionaries;
  readonly clock: Clock;
  /** Statement timeout when a query names none, in milliseconds. */
  readonly defaultTimeoutMs?: number;
  /** Admits each query (all its statements) before it runs; without one every query runs at once. */
  readonly admission?: QueryAdmission;
}

export interface NrqlRunOptions {
  /** The accounts the query reads (NerdGraph's `account(id)` or `nrql(accounts: [...])`). */
  readonly accountIds: readonly number[];
  readonly timeoutMs?: number;
  /**
   * A condition ANDed into the query's WHERE, as NerdGraph's `entity { nrdbQuery }` adds the
   * entity's GUID. It has no place in the text, so its nodes carry empty spans at offset 0.
   */
  readonly where?: Condition;
}

/** A query's answer: NerdGraph's result container plus the query as it was sent (NerdGraph's `nrql`). */
export interface NrqlAnswer extends NrqlResult {
  readonly nrql: string;
}

/** Each stage's output for one query, for `EXPLAIN`-style inspection and tests. */
export interface NrqlExplanation {
  readonly query: Query;
  readonly canonical: string;
  readonly analyzed: AnalyzedQuery;
}

export const DEFAULT_NRQL_TIMEOUT_MS = 30_000;

/**
 * NRQL over the store: lex → parse → analyze → plan → SQL → execute → shape. Every failure a
 * caller can cause is an `NrqlError` with a stable code; a query that runs past its timeout is
 * cancelled in the engine and reported as `NRQL_TIMEOUT`.
 */
export class NrqlEngine {
  constructor(private readonly deps: NrqlEngineDeps) {}

  explain(text: string, options: NrqlRunOptions): NrqlExplanation {
    const query = withCondition(parse(text), options.where);
    const analyzed = analyze(query, { accountIds: options.accountIds, nowMs: this.deps.clock.now(), dictionaries: this.deps.dictionaries });
    return { query, canonical: format(query), analyzed };
  }

  async run(text: string, options: NrqlRunOptions): Promise<NrqlAnswer> {
    const { analyzed } = this.explain(text, options);
    const timeoutMs = options.timeoutMs ?? this.deps.defaultTimeoutMs ?? DEFAULT_NRQL_TIMEOUT_MS;
    // One budget for the whole query: its wait for admission, its RE2 checks and every statement of its plans.
    const started = performance.now();
    const deadline = started + timeoutMs;
    const work = async (): Promise<NrqlAnswer> => {
      if (analyzed.kind !== 'showEventTypes') {
        for (const { pattern, span } of analyzed.regexPatterns) {
          const refused = await this.deps.executor.regexError(pattern);
          if (refused !== undefined) throw new NrqlError('NRQL_BAD_ARGUMENTS', `RLIKE: not a valid RE2 regular expression: ${refused}`, span);
        }
      }
      try {
        const result = await execute(analyzed, { executor: this.deps.executor, dictionaries: this.deps.dictionaries, options: { timeoutMs, deadline } });
        return { ...result, nrql: text };
      } catch (error) {
        if (error instanceof QueryTimeoutError) {
          throw new NrqlError('NRQL_TIMEOUT', `The query ran longer than its ${timeoutMs / 1000} s timeout and was cancelled; narrow its time window or its facets`);
        }
        // The parser bounds the tree's depth; this is the engine's own bound, should its SQL nest deeper still.
        if (error instanceof QueryTooDeepError) throw new NrqlError('NRQL_LIMIT_EXCEEDED', 'The query nests too deeply for the engine; split long chains of operators or conditions');
        throw error;
      }
    };
    return this.deps.admission ? this.deps.admission.run(options.accountIds, work, deadline) : work();
  }
}

function withCondition(query: Query, where: Condition | undefined): Query {
  if (!where || query.kind !== 'select') return query;
  const combined: Condition = query.where ? { kind: 'and', left: query.where, right: where, span: query.where.span } : where;
  return { ...query, where: combined };
}
