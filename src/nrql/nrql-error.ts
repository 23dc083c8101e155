import type { Span } from './ast.js';

/**
 * Every way an NRQL query can fail, by stable code. The code is what tests, the CLI and the
 * graph API's `errors[].extensions` key on; the message is for people.
 */
export const NRQL_ERROR_CODES = {
  /** The text does not follow the grammar: an unexpected token, a missing `)`… */
  SYNTAX: 'NRQL_SYNTAX',
  /** A string, backtick name or regex without its closing quote. */
  UNTERMINATED: 'NRQL_UNTERMINATED',
  /** The query text is 4 KB or longer. */
  QUERY_TOO_LONG: 'NRQL_QUERY_TOO_LONG',
  /** A clause written twice (`WHERE … WHERE …`). */
  DUPLICATE_CLAUSE: 'NRQL_DUPLICATE_CLAUSE',
  /** No SELECT or no FROM. */
  MISSING_CLAUSE: 'NRQL_MISSING_CLAUSE',
  /** A part of NRQL outside the supported subset (JOIN, subqueries, funnel()…). */
  UNSUPPORTED: 'NRQL_UNSUPPORTED',
  UNKNOWN_FUNCTION: 'NRQL_UNKNOWN_FUNCTION',
  /** Wrong number or kind of arguments to a function. */
  BAD_ARGUMENTS: 'NRQL_BAD_ARGUMENTS',
  /** An expression used where its kind does not fit (an aggregate in WHERE, attributes mixed with aggregates…). */
  INVALID_EXPRESSION: 'NRQL_INVALID_EXPRESSION',
  /** A time point, zone or window that cannot be resolved (unknown zone, SINCE after UNTIL…). */
  BAD_TIME: 'NRQL_BAD_TIME',
  /** LIMIT above 5000, more than 366 buckets, more than 5 facets, uniques limit above 10000. */
  LIMIT_EXCEEDED: 'NRQL_LIMIT_EXCEEDED',
  /** The statement ran longer than its timeout and was cancelled. */
  TIMEOUT: 'NRQL_TIMEOUT',
} as const;

export type NrqlErrorCode = (typeof NRQL_ERROR_CODES)[keyof typeof NRQL_ERROR_CODES];

/** A position in the query for people: 1-based line and column (column counts UTF-16 units). */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

export class NrqlError extends Error {
  override readonly name = 'NrqlError';

  constructor(
    readonly code: NrqlErrorCode,
    message: string,
    /** The text the error is about, when there is one. */
    readonly span?: Span,
    /** A likely intended spelling ("did you mean `uniqueCount`?"). */
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

export function positionOf(query: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < query.length; i++) {
    if (query.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The closest of `candidates` to `word` (case-insensitive edit distance at most 2, or a
 * case-only difference), for "did you mean" hints.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const target = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(target, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.min(2, Math.floor(target.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The body of a refused query, as the NRQL route sends it and `timeslice query` prints it: the REST
 * error shape, with the NRQL error's code and position.
 */
export function nrqlErrorBody(error: NrqlError, query: string) {
  const at = error.span ? positionOf(query, error.span.start) : undefined;
  return {
    error: {
      title: error.message,
      code: error.code,
      ...(at ? { line: at.line, column: at.column } : {}),
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    },
  };
}
