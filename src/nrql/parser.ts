import {
  type ClauseSpans,
  TIME_UNITS, WEEKDAYS, type Arg, type BucketSize, type CompareOp, type Condition, type DayRef, type EventTypeRef, type Expr,
  type Facet, type FacetCase, type FacetItem, type Interval, type OrderItem, type Query, type SelectItem, type SelectQuery,
  type ShowEventTypesQuery, type Span, type TimePoint, type Timeseries, type TimeUnit,
} from './ast.js';
import { RESERVED_WORDS, lex, shorten, where, type SymbolText, type Token } from './lexer.js';
import { NRQL_ERROR_CODES, NrqlError, closestMatch } from './nrql-error.js';

/** New Relic refuses query text of 4 KB or more; we count UTF-16 units. */
export const MAX_QUERY_LENGTH = 4096;

/**
 * Parentheses, brackets, function calls, unary minus and NOT nested deeper than this are
 * refused, so hostile input ends in an error instead of a stack overflow.
 */
export const MAX_NESTING = 100;

/**
 * Parses NRQL text into a `Query`: one pass of recursive descent over the tokens, no
 * backtracking except one bounded look at `FACET … ORDER BY`. Names are kept as written;
 * whether a function exists or an expression makes sense is the analyzer's business.
 */
export function parse(text: string): Query {
  if (text.length >= MAX_QUERY_LENGTH) {
    throw new NrqlError(
      NRQL_ERROR_CODES.QUERY_TOO_LONG,
      `Query text must be shorter than ${MAX_QUERY_LENGTH} characters; this one has ${text.length}`,
      { start: 0, end: text.length },
    );
  }
  const query = new Parser(text, lex(text)).query();
  const deepest = deepestNode(query, MAX_TREE_DEPTH);
  if (deepest) {
    throw new NrqlError(
      NRQL_ERROR_CODES.LIMIT_EXCEEDED,
      `${where(text, deepest.start)}, the query nests deeper than ${MAX_TREE_DEPTH} levels (each chained operator counts as one: ` +
        `a*b*c is two); split long chains of operators or conditions`,
      deepest,
    );
  }
  return query;
}

/**
 * A WHERE condition alone, to be ANDed into a query by a caller (NrqlRunOptions.where): parse
 * errors point into `text` itself. The condition stands in no query's text, so its nodes carry
 * empty spans at offset 0, and errors about it never point into the query it joins.
 */
export function parseCondition(text: string): Condition {
  if (text.length >= MAX_QUERY_LENGTH) {
    throw new NrqlError(NRQL_ERROR_CODES.QUERY_TOO_LONG, `A condition must be shorter than ${MAX_QUERY_LENGTH} characters; this one has ${text.length}`, { start: 0, end: text.length });
  }
  const condition = new Parser(text, lex(text)).conditionOnly();
  const deepest = deepestNode(condition, MAX_TREE_DEPTH);
  if (deepest) throw new NrqlError(NRQL_ERROR_CODES.LIMIT_EXCEEDED, `${where(text, deepest.start)}, the condition nests deeper than ${MAX_TREE_DEPTH} levels`, deepest);
  const detached = { start: 0, end: 0 };
  return JSON.parse(JSON.stringify(condition, (key, value) => (key === 'span' ? detached : value))) as Condition;
}

/**
 * How deep the syntax tree may be: chains such as `2*2*…*2` or `a AND b AND …` parse without
 * recursion but become one level each, and DuckDB refuses expressions past 1,000 of its levels
 * (`max_expression_depth`), which a chain of about 500 operators reaches; 300 leaves room for SQL that nests more per level.
 */
export const MAX_TREE_DEPTH = 300;

/** The span of a node deeper than `limit` nodes (counting those with a `kind`), if any. */
function deepestNode(node: unknown, limit: number, depth = 0): Span | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const counted = 'kind' in node;
  if (counted && depth + 1 > limit) return (node as { span?: Span }).span ?? { start: 0, end: 0 };
  for (const child of Array.isArray(node) ? node : Object.values(node)) {
    const found = deepestNode(child, limit, counted ? depth + 1 : depth);
    if (found) return found;
  }
  return undefined;
}

/** Clause names as messages and duplicate checks spell them. */
type ClauseName =
  | 'SELECT' | 'FROM' | 'WHERE' | 'FACET' | 'TIMESERIES' | 'SINCE' | 'UNTIL' | 'COMPARE WITH' | 'LIMIT' | 'OFFSET'
  | 'ORDER BY' | 'WITH TIMEZONE' | 'WITH METRIC_FORMAT' | 'EXTRAPOLATE';

/** The words a clause can start with: the candidates for "did you mean". */
const CLAUSE_WORDS = ['SELECT', 'FROM', 'WHERE', 'FACET', 'TIMESERIES', 'SINCE', 'UNTIL', 'COMPARE', 'LIMIT', 'OFFSET', 'ORDER', 'WITH', 'EXTRAPOLATE'];

const COMPARE_OPS: ReadonlyMap<SymbolText, CompareOp> = new Map<SymbolText, CompareOp>([
  ['=', '='], ['!=', '!='], ['<>', '!='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>='],
]);

const UNITS: ReadonlyMap<string, TimeUnit> = new Map(TIME_UNITS.flatMap((u) => [[u, u], [`${u}s`, u]] as const));
const DAYS: ReadonlySet<string> = new Set<string>(['today', 'yesterday', ...WEEKDAYS]);
const CALENDAR_UNITS: ReadonlySet<string> = new Set(['hour', 'day', 'week', 'month', 'quarter', 'year']);

type Parsed = Expr | Condition;
type CalendarUnit = Extract<TimePoint, { kind: 'calendar' }>['unit'];

const CONDITION_KINDS: ReadonlySet<string> = new Set(['compare', 'in', 'like', 'rlike', 'is', 'and', 'or', 'not']);

function isCondition(node: Parsed): node is Condition {
  return CONDITION_KINDS.has(node.kind);
}

function cover(from: Span, to: Span): Span {
  return { start: from.start, end: to.end };
}

interface SelectClauses {
  select?: SelectItem[];
  from?: EventTypeRef[];
  where?: Condition;
  facet?: Facet;
  timeseries?: Timeseries;
  since?: TimePoint;
  until?: TimePoint;
  compareWith?: Interval;
  limit?: number | 'max';
  offset?: number;
  orderBy?: OrderItem[];
  timezone?: string;
  metricFormat?: string;
  extrapolate?: boolean;
  spans: { -readonly [K in keyof ClauseSpans]?: Span };
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly seen = new Set<ClauseName>();

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
  ) {}

  // ── query and clauses ─────────────────────────────────────────────────────────────────────

  /** A WHERE clause's condition and nothing after it. */
  conditionOnly(): Condition {
    if (this.peek().kind === 'end') throw this.unexpected('a condition');
    const condition = this.condition();
    if (this.peek().kind !== 'end') throw this.unexpected('the end of the condition');
    return condition;
  }

  query(): Query {
    const first = this.peek();
    if (this.atWord('show')) return this.finish(this.showEventTypes());
    if (this.atEndOfQuery()) throw this.unexpected('SELECT, FROM or SHOW EVENT TYPES');
    const clauses: SelectClauses = { spans: {} };
    while (!this.atEndOfQuery()) this.clause(clauses);
    const last = this.tokens[this.pos - 1]!;
    const span = cover(first.span, last.span);
    for (const [name, present] of [['SELECT', clauses.select], ['FROM', clauses.from]] as const) {
      if (present === undefined) {
        throw new NrqlError(NRQL_ERROR_CODES.MISSING_CLAUSE, `The query has no ${name} clause; a query needs both SELECT and FROM`, span);
      }
    }
    const query: SelectQuery = {
      kind: 'select',
      select: clauses.select!,
      from: clauses.from!,
      ...(clauses.where && { where: clauses.where }),
      ...(clauses.facet && { facet: clauses.facet }),
      ...(clauses.timeseries && { timeseries: clauses.timeseries }),
      ...(clauses.since && { since: clauses.since }),
      ...(clauses.until && { until: clauses.until }),
      ...(clauses.compareWith && { compareWith: clauses.compareWith }),
      ...(clauses.limit !== undefined && { limit: clauses.limit }),
      ...(clauses.offset !== undefined && { offset: clauses.offset }),
      ...(clauses.orderBy && { orderBy: clauses.orderBy }),
      ...(clauses.timezone !== undefined && { timezone: clauses.timezone }),
      ...(clauses.metricFormat !== undefined && { metricFormat: clauses.metricFormat }),
      extrapolate: clauses.extrapolate ?? false,
      ...(Object.keys(clauses.spans).length > 0 && { clauseSpans: clauses.spans }),
      span,
    };
    return this.finish(query);
  }

  /** A trailing `;` is allowed; anything else after a complete query is an error. */
  private finish<Q extends Query>(query: Q): Q {
    if (this.atSymbol(';')) this.pos++;
    if (this.peek().kind !== 'end') throw this.unexpected('the end of the query');
    return query;
  }

  private atEndOfQuery(): boolean {
    return this.peek().kind === 'end' || this.atSymbol(';');
  }

  private showEventTypes(): ShowEventTypesQuery {
    const start = this.next().span;
    this.expectWord('event', 'EVENT');
    let end = this.expectWord('types', 'TYPES').span;
    let since: TimePoint | undefined;
    let until: TimePoint | undefined;
    while (this.atWord('since') || this.atWord('until')) {
      const keyword = this.next();
      const which = this.lower(keyword) === 'since' ? 'SINCE' : 'UNTIL';
      this.once(which, keyword.span);
      const point = this.timePoint();
      if (which === 'SINCE') since = point;
      else until = point;
      end = point.span;
    }
    return { kind: 'showEventTypes', ...(since && { since }), ...(until && { until }), span: cover(start, end) };
  }

  private clause(c: SelectClauses): void {
    const token = this.peek();
    const word = token.kind === 'word' ? this.lower(token) : '';
    switch (word) {
      case 'select':
        this.once('SELECT', this.next().span);
        c.select = this.list(() => this.selectItem());
        return;
      case 'from':
        this.once('FROM', this.next().span);
        c.from = this.list(() => this.eventType());
        return;
      case 'where':
        this.once('WHERE', this.next().span);
        c.where = this.condition();
        return;
      case 'facet':
        this.once('FACET', token.span);
        c.facet = this.facet();
        return;
      case 'timeseries':
        this.once('TIMESERIES', token.span);
        c.timeseries = this.timeseries();
        return;
      case 'since':
        this.once('SINCE', this.next().span);
        c.since = this.timePoint();
        return;
      case 'until':
        this.once('UNTIL', this.next().span);
        c.until = this.timePoint();
        return;
      case 'compare':
        this.once('COMPARE WITH', cover(token.span, this.peek(1).span));
        this.next();
        this.expectWord('with', 'WITH');
        c.compareWith = this.interval();
        this.expectWord('ago', 'AGO');
        c.spans.compareWith = this.since(token);
        return;
      case 'limit':
        this.once('LIMIT', this.next().span);
        if (this.atWord('max')) {
          this.pos++;
          c.limit = 'max';
        } else {
          c.limit = this.wholeNumber();
        }
        c.spans.limit = this.since(token);
        return;
      case 'offset':
        this.once('OFFSET', this.next().span);
        c.offset = this.wholeNumber();
        c.spans.offset = this.since(token);
        return;
      case 'order':
        this.once('ORDER BY', cover(token.span, this.peek(1).span));
        this.next();
        this.expectWord('by', 'BY');
        c.orderBy = this.list(() => this.orderItem());
        return;
      case 'with':
        this.withClause(c);
        return;
      case 'extrapolate':
        this.once('EXTRAPOLATE', this.next().span);
        c.extrapolate = true;
        return;
      case 'join':
        throw this.unsupported('Joins (JOIN)', token.span);
      case 'inner':
      case 'left':
      case 'right':
      case 'outer':
        if (this.isWord(this.peek(1), 'join')) throw this.unsupported('Joins (JOIN)', cover(token.span, this.peek(1).span));
    }
    throw this.unexpected('a clause keyword', clauseSuggestion(token));
  }

  /** The span from `start` to the last token read. */
  private since(start: Token): Span {
    return cover(start.span, this.tokens[this.pos - 1]!.span);
  }

  /** Clauses are checked at their keyword, so the error points at the second one. */
  private once(name: ClauseName, span: Span): void {
    if (this.seen.has(name)) {
      throw new NrqlError(
        NRQL_ERROR_CODES.DUPLICATE_CLAUSE,
        `${where(this.text, span.start)}, duplicate ${name} clause: each clause may appear only once`,
        span,
      );
    }
    this.seen.add(name);
  }

  private withClause(c: SelectClauses): void {
    const withToken = this.peek();
    const what = this.peek(1);
    if (this.isWord(what, 'timezone') || this.isWord(what, 'metric_format')) {
      const timezone = this.isWord(what, 'timezone');
      this.once(timezone ? 'WITH TIMEZONE' : 'WITH METRIC_FORMAT', cover(withToken.span, what.span));
      this.pos += 2;
      const value = this.string(timezone ? 'a time zone name in quotes' : 'a metric name pattern in quotes');
      if (timezone) c.timezone = value;
      else c.metricFormat = value;
      c.spans[timezone ? 'timezone' : 'metricFormat'] = this.since(withToken);
      return;
    }
    if (this.tokens.slice(this.pos + 1).some((t) => this.isWord(t, 'as'))) {
      throw this.unsupported('Query variables (WITH … AS)', withToken.span);
    }
    this.pos++;
    throw this.unexpected('TIMEZONE or METRIC_FORMAT');
  }

  private selectItem(): SelectItem {
    const token = this.peek();
    if (this.atSymbol('*')) {
      this.pos++;
      return { expr: { kind: 'star', span: token.span }, span: token.span };
    }
    const expr = this.expr();
    const alias = this.alias();
    return { expr, ...(alias && { alias: alias.value }), span: cover(expr.span, alias?.span ?? expr.span) };
  }

  /** `AS 'label'` or `AS label`. */
  private alias(): { value: string; span: Span } | undefined {
    if (!this.atWord('as')) return undefined;
    this.pos++;
    const token = this.peek();
    if (token.kind === 'string') {
      this.pos++;
      return { value: token.value, span: token.span };
    }
    return this.name('a label');
  }

  /** An unreserved word or a backtick-quoted name. */
  private name(expected: string): { value: string; span: Span } {
    const token = this.peek();
    if (token.kind === 'quotedName') {
      this.pos++;
      return { value: token.name, span: token.span };
    }
    if (token.kind === 'word' && !RESERVED_WORDS.has(this.lower(token))) {
      this.pos++;
      return { value: token.text, span: token.span };
    }
    throw this.unexpected(expected);
  }

  private eventType(): EventTypeRef {
    const { value, span } = this.name('an event type');
    return { name: value, span };
  }

  private facet(): Facet {
    const start = this.next().span;
    const items = this.list(() => this.facetItem());
    let orderBy: Expr | undefined;
    if (this.atWord('order') && this.isWord(this.peek(1), 'by')) {
      // `FACET x ORDER BY e` orders the facets; when a direction or a second item follows, it
      // is the query's ORDER BY written next to the FACET (as the change-tracking docs do).
      const save = this.pos;
      this.pos += 2;
      const e = this.expr();
      if (this.atWord('asc') || this.atWord('desc') || this.atSymbol(',')) this.pos = save;
      else orderBy = e;
    }
    const end = orderBy?.span ?? items[items.length - 1]!.span;
    return { items, ...(orderBy && { orderBy }), span: cover(start, end) };
  }

  private facetItem(): FacetItem {
    if (this.atWord('cases') && this.isSymbol(this.peek(1), '(')) return this.facetCases();
    const expr = this.expr();
    const alias = this.alias();
    return { kind: 'facetExpr', expr, ...(alias && { alias: alias.value }), span: cover(expr.span, alias?.span ?? expr.span) };
  }

  private facetCases(): FacetItem {
    const start = this.next().span;
    this.expectSymbol('(');
    const cases = this.list((): FacetCase => {
      const whereToken = this.expectWord('where', 'WHERE');
      const condition = this.condition();
      const label = this.alias();
      return { condition, ...(label && { label: label.value }), span: cover(whereToken.span, label?.span ?? condition.span) };
    });
    let end = this.expectSymbol(')').span;
    let otherwise: Expr | undefined;
    if (this.atWord('or')) {
      this.pos++;
      otherwise = this.expr();
      end = otherwise.span;
    }
    return { kind: 'facetCases', cases, ...(otherwise && { otherwise }), span: cover(start, end) };
  }

  private timeseries(): Timeseries {
    const start = this.next().span;
    const size = this.bucketSize();
    let slideBy: { size: BucketSize; span: Span } | undefined;
    if (this.atWord('slide')) {
      this.pos++;
      this.expectWord('by', 'BY');
      slideBy = this.bucketSize();
      if (slideBy === undefined) throw this.unexpected('AUTO, MAX or a step such as 1 minute');
    }
    const end = slideBy?.span ?? size?.span ?? start;
    return { size: size?.size ?? 'auto', ...(slideBy && { slideBy: slideBy.size }), bare: size === undefined, span: cover(start, end) };
  }

  private bucketSize(): { size: BucketSize; span: Span } | undefined {
    const token = this.peek();
    if (this.atWord('auto') || this.atWord('max')) {
      this.pos++;
      return { size: this.lower(token) as 'auto' | 'max', span: token.span };
    }
    if (token.kind !== 'number') return undefined;
    const size = this.interval();
    return { size, span: cover(token.span, this.tokens[this.pos - 1]!.span) };
  }

  private interval(): Interval {
    const amount = this.wholeNumber();
    const unit = UNITS.get(this.lowerAt(0));
    if (unit === undefined) throw this.unexpected('a time unit such as minutes');
    this.pos++;
    return { amount, unit };
  }

  private timePoint(): TimePoint {
    const token = this.peek();
    if (token.kind === 'number') {
      if (UNITS.has(this.lowerAt(1))) {
        const interval = this.interval();
        const ago = this.expectWord('ago', 'AGO');
        return { kind: 'ago', interval, span: cover(token.span, ago.span) };
      }
      return { kind: 'epochMs', ms: this.wholeNumber(), span: token.span };
    }
    if (token.kind === 'string') {
      this.pos++;
      return { kind: 'dateTime', text: token.value, span: token.span };
    }
    const word = token.kind === 'word' ? this.lower(token) : '';
    if (word === 'now') {
      this.pos++;
      return { kind: 'now', span: token.span };
    }
    if (DAYS.has(word)) {
      this.pos++;
      if (!this.atWord('at')) return { kind: 'day', day: word as DayRef, span: token.span };
      this.pos++;
      const atToken = this.peek();
      const at = this.string("a time of day in quotes such as '09:30'");
      return { kind: 'day', day: word as DayRef, at, span: cover(token.span, atToken.span) };
    }
    if (word === 'this' || word === 'last') {
      this.pos++;
      const unitToken = this.peek();
      const unit = this.lowerAt(0);
      if (!CALENDAR_UNITS.has(unit)) throw this.unexpected('HOUR, DAY, WEEK, MONTH, QUARTER or YEAR');
      this.pos++;
      return { kind: 'calendar', which: word, unit: unit as CalendarUnit, span: cover(token.span, unitToken.span) };
    }
    throw this.unexpected("a time such as 1 hour ago, NOW, today, an epoch time in milliseconds or a quoted date");
  }

  private orderItem(): OrderItem {
    const expr = this.expr();
    const direction = this.peek();
    if (this.atWord('asc') || this.atWord('desc')) {
      this.pos++;
      return { expr, descending: this.lower(direction) === 'desc', explicit: true, span: cover(expr.span, direction.span) };
    }
    return { expr, descending: false, explicit: false, span: expr.span };
  }

  // ── expressions ───────────────────────────────────────────────────────────────────────────

  /** A full expression, where `a OR b` is coalescing (SELECT, FACET, ORDER BY, arguments). */
  private expr(): Expr {
    let left = this.additive();
    while (this.atWord('or')) {
      this.pos++;
      const right = this.additive();
      left = { kind: 'coalesce', left, right, span: cover(left.span, right.span) };
    }
    return left;
  }

  /** `first`: an operand already read (a parenthesised group in a condition), to continue from. */
  private additive(first?: Expr): Expr {
    let left = this.term(first);
    for (let op = this.peek(); this.isSymbol(op, '+') || this.isSymbol(op, '-'); op = this.peek()) {
      this.pos++;
      const right = this.term();
      left = { kind: 'arithmetic', op: (op as { symbol: '+' | '-' }).symbol, left, right, span: cover(left.span, right.span) };
    }
    return left;
  }

  private term(first?: Expr): Expr {
    let left = this.unary(first);
    for (let op = this.peek(); this.isSymbol(op, '*') || this.isSymbol(op, '/'); op = this.peek()) {
      this.pos++;
      const right = this.unary();
      left = { kind: 'arithmetic', op: (op as { symbol: '*' | '/' }).symbol, left, right, span: cover(left.span, right.span) };
    }
    return left;
  }

  private unary(first?: Expr): Expr {
    if (first) return this.postfix(first);
    const minus = this.peek();
    if (!this.isSymbol(minus, '-')) return this.postfix(this.primary());
    this.pos++;
    const operand = this.peek();
    // `-1` is the number -1 (so it prints back as written), unless a field access binds to the 1.
    if (operand.kind === 'number' && !this.isSymbol(this.peek(1), '[')) {
      this.pos++;
      return { kind: 'number', value: -operand.value, span: cover(minus.span, operand.span) };
    }
    const inner = this.nested(() => this.unary());
    return { kind: 'negate', operand: inner, span: cover(minus.span, inner.span) };
  }

  /** `x['field']`, any number of times. */
  private postfix(target: Expr): Expr {
    let node = target;
    while (this.atSymbol('[')) {
      this.pos++;
      const field = this.string("a field name in quotes such as 'count'");
      const close = this.expectSymbol(']');
      node = { kind: 'fieldAccess', target: node, field, span: cover(node.span, close.span) };
    }
    return node;
  }

  private primary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case 'number':
        this.pos++;
        return { kind: 'number', value: token.value, span: token.span };
      case 'string':
        this.pos++;
        return { kind: 'string', value: token.value, span: token.span };
      case 'quotedName':
        this.pos++;
        return { kind: 'attribute', name: token.name, span: token.span };
      case 'word': {
        const word = this.lower(token);
        if (word === 'true' || word === 'false') {
          this.pos++;
          return { kind: 'boolean', value: word === 'true', span: token.span };
        }
        if (word === 'null') {
          this.pos++;
          return { kind: 'null', span: token.span };
        }
        if (RESERVED_WORDS.has(word)) break;
        if (this.isSymbol(this.peek(1), '(')) return this.call();
        this.pos++;
        return { kind: 'attribute', name: token.text, span: token.span };
      }
      case 'symbol':
        if (token.symbol !== '(') break;
        return this.parenthesised(() => this.expr());
    }
    throw this.unexpected('an expression');
  }

  private call(): Expr {
    const name = this.next() as Extract<Token, { kind: 'word' }>;
    return this.nested(() => {
      this.expectSymbol('(');
      const args = this.atSymbol(')') ? [] : this.list(() => this.arg());
      const close = this.expectSymbol(')', "',' or ')'");
      return { kind: 'call', name: name.text, args, span: cover(name.span, close.span) };
    });
  }

  private arg(): Arg {
    const token = this.peek();
    if (this.atSymbol('*')) {
      this.pos++;
      return { kind: 'star', span: token.span };
    }
    if (this.atWord('where')) {
      this.pos++;
      const condition = this.condition();
      const label = this.alias();
      return { kind: 'whereArg', condition, ...(label ? { label: label.value } : {}), span: cover(token.span, label?.span ?? condition.span) };
    }
    if (token.kind === 'word' && !RESERVED_WORDS.has(this.lower(token)) && this.isSymbol(this.peek(1), ':')) {
      this.pos += 2;
      const value = this.expr();
      return { kind: 'namedArg', name: token.text, value, span: cover(token.span, value.span) };
    }
    if (token.kind === 'number' && UNITS.has(this.lowerAt(1))) {
      const interval = this.interval();
      return { kind: 'interval', interval, span: cover(token.span, this.tokens[this.pos - 1]!.span) };
    }
    return this.expr();
  }

  // ── conditions ────────────────────────────────────────────────────────────────────────────

  /** OR of ANDs of (NOT) predicates; `first`: the first predicate, already read. */
  private condition(first?: Condition): Condition {
    let left = this.andCondition(first);
    while (this.atWord('or')) {
      this.pos++;
      const right = this.andCondition();
      left = { kind: 'or', left, right, span: cover(left.span, right.span) };
    }
    return left;
  }

  private andCondition(first?: Condition): Condition {
    let left = first ?? this.notCondition();
    while (this.atWord('and')) {
      this.pos++;
      const right = this.notCondition();
      left = { kind: 'and', left, right, span: cover(left.span, right.span) };
    }
    return left;
  }

  private notCondition(): Condition {
    const token = this.peek();
    if (!this.atWord('not')) return this.predicate();
    this.pos++;
    const operand = this.nested(() => this.notCondition());
    return { kind: 'not', operand, span: cover(token.span, operand.span) };
  }

  private predicate(): Condition {
    const operand = this.operand();
    return isCondition(operand) ? operand : this.predicateTail(operand);
  }

  /**
   * The left side of a predicate: an expression without coalescing `OR` (that `OR` is the
   * boolean one here), or a parenthesised group, which may hold a condition or an expression.
   */
  private operand(): Parsed {
    if (!this.atSymbol('(')) return this.additive();
    const group = this.group();
    return isCondition(group) ? group : this.additive(group);
  }

  /**
   * `( … )` where a predicate starts: a condition (`(a = 1 OR b = 2)`) or an expression
   * (`(a + b) > 3`, `(a OR b) IS NULL`, where `OR` coalesces). The first operand decides.
   */
  private group(): Parsed {
    return this.parenthesised((): Parsed => {
      if (this.atWord('not')) return this.condition();
      let first = this.operand();
      if (!isCondition(first) && this.atPredicateOperator()) first = this.predicateTail(first);
      if (isCondition(first)) return this.condition(first);
      let left = first;
      while (this.atWord('or')) {
        this.pos++;
        const right = this.additive();
        left = { kind: 'coalesce', left, right, span: cover(left.span, right.span) };
      }
      return left;
    });
  }

  private atPredicateOperator(): boolean {
    const token = this.peek();
    if (token.kind === 'symbol') return COMPARE_OPS.has(token.symbol);
    return ['in', 'like', 'rlike', 'is', 'not'].some((w) => this.atWord(w));
  }

  private predicateTail(expr: Expr): Condition {
    const token = this.peek();
    if (token.kind === 'symbol' && COMPARE_OPS.has(token.symbol)) {
      this.pos++;
      const right = this.additive();
      return { kind: 'compare', op: COMPARE_OPS.get(token.symbol)!, left: expr, right, span: cover(expr.span, right.span) };
    }
    if (this.atWord('is')) {
      this.pos++;
      const negated = this.skipWord('not');
      const test = this.peek();
      const word = test.kind === 'word' ? this.lower(test) : '';
      if (word !== 'null' && word !== 'true' && word !== 'false') throw this.unexpected('NULL, TRUE or FALSE');
      this.pos++;
      return { kind: 'is', expr, test: word, negated, span: cover(expr.span, test.span) };
    }
    const negated = this.skipWord('not');
    if (this.atWord('in')) {
      this.pos++;
      this.expectSymbol('(');
      const values = this.list(() => this.literal());
      const close = this.expectSymbol(')', "',' or ')'");
      return { kind: 'in', expr, values, negated, span: cover(expr.span, close.span) };
    }
    if (this.atWord('like') || this.atWord('rlike')) {
      const kind = this.atWord('like') ? 'like' : 'rlike';
      this.pos++;
      const patternToken = this.peek();
      const pattern = this.string(kind === 'like' ? "a pattern in quotes such as 'check%'" : "a regular expression such as r'ch.*'");
      return { kind, expr, pattern, negated, span: cover(expr.span, patternToken.span) };
    }
    throw this.unexpected(negated ? 'IN, LIKE or RLIKE' : 'a comparison such as =, IN, LIKE or IS');
  }

  private literal(): Expr {
    const token = this.peek();
    if (token.kind === 'string' || token.kind === 'number' || this.atWord('true') || this.atWord('false') || this.atWord('null')) {
      return this.primary();
    }
    const number = this.peek(1);
    if (this.isSymbol(token, '-') && number.kind === 'number') {
      this.pos += 2;
      return { kind: 'number', value: -number.value, span: cover(token.span, number.span) };
    }
    throw this.unexpected('a literal value');
  }

  // ── tokens ────────────────────────────────────────────────────────────────────────────────

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.pos++;
    return token;
  }

  private lower(token: Token): string {
    return token.kind === 'word' ? token.lower : '';
  }

  private lowerAt(ahead: number): string {
    return this.lower(this.peek(ahead));
  }

  private isWord(token: Token, word: string): boolean {
    return token.kind === 'word' && token.lower === word;
  }

  private atWord(word: string): boolean {
    return this.isWord(this.peek(), word);
  }

  private isSymbol(token: Token, symbol: SymbolText): boolean {
    return token.kind === 'symbol' && token.symbol === symbol;
  }

  private atSymbol(symbol: SymbolText): boolean {
    return this.isSymbol(this.peek(), symbol);
  }

  /** Consumes `word` when it is next. */
  private skipWord(word: string): boolean {
    if (!this.atWord(word)) return false;
    this.pos++;
    return true;
  }

  private expectWord(word: string, shown: string): Token {
    if (!this.atWord(word)) throw this.unexpected(shown);
    return this.next();
  }

  private expectSymbol(symbol: SymbolText, expected = `'${symbol}'`): Token {
    if (!this.atSymbol(symbol)) throw this.unexpected(expected);
    return this.next();
  }

  private string(expected: string): string {
    const token = this.peek();
    if (token.kind !== 'string') throw this.unexpected(expected);
    this.pos++;
    return token.value;
  }

  /** Digits only, at most 2^53 − 1 so the value is exact and prints back as the same digits. */
  private wholeNumber(): number {
    const token = this.peek();
    if (token.kind !== 'number' || !token.integer) throw this.unexpected('a whole number');
    if (!Number.isSafeInteger(token.value)) {
      throw new NrqlError(
        NRQL_ERROR_CODES.SYNTAX,
        `${where(this.text, token.span.start)}, number out of range '${shorten(this.text.slice(token.span.start, token.span.end))}'; expected a whole number below 2^53`,
        token.span,
      );
    }
    this.pos++;
    return token.value;
  }

  /** `item , item , …` */
  private list<T>(item: () => T): T[] {
    const items = [item()];
    while (this.atSymbol(',')) {
      this.pos++;
      items.push(item());
    }
    return items;
  }

  /** `( inner )`, the node's span widened to the parentheses. */
  private parenthesised<T extends Parsed>(inner: () => T): T {
    return this.nested(() => {
      const open = this.expectSymbol('(');
      const node = inner();
      const close = this.expectSymbol(')');
      return { ...node, span: cover(open.span, close.span) };
    });
  }

  private nested<T>(inner: () => T): T {
    if (this.depth >= MAX_NESTING) {
      const span = this.peek().span;
      throw new NrqlError(
        NRQL_ERROR_CODES.LIMIT_EXCEEDED,
        `${where(this.text, span.start)}, expressions nest deeper than ${MAX_NESTING} levels`,
        span,
      );
    }
    this.depth++;
    const result = inner();
    this.depth--;
    return result;
  }

  // ── errors ────────────────────────────────────────────────────────────────────────────────

  /** New Relic's message for the current token, with what the grammar allows there. */
  private unexpected(expected: string, suggestion?: string): NrqlError {
    const token = this.peek();
    if (this.startsSubquery(this.pos)) return this.unsupported('Subqueries (SELECT inside parentheses)', cover(token.span, this.peek(1).span));
    if (this.startsSubquery(this.pos - 1)) return this.unsupported('Subqueries (SELECT inside parentheses)', cover(this.tokens[this.pos - 1]!.span, token.span));
    const what = token.kind === 'end' ? 'end of query' : `'${shorten(this.text.slice(token.span.start, token.span.end))}'`;
    return new NrqlError(
      NRQL_ERROR_CODES.SYNTAX,
      `${where(this.text, token.span.start)}, unexpected ${what}; expected ${expected}`,
      token.span,
      suggestion,
    );
  }

  /** `(SELECT …` or `(FROM … SELECT …` at token `index`. */
  private startsSubquery(index: number): boolean {
    const open = this.tokens[index];
    const first = this.tokens[index + 1];
    if (open === undefined || first === undefined || !this.isSymbol(open, '(')) return false;
    if (this.isWord(first, 'select')) return true;
    return this.isWord(first, 'from') && this.tokens.slice(index + 2).some((t) => this.isWord(t, 'select'));
  }

  /** `feature` names it as a plural: "… are not supported". */
  private unsupported(feature: string, span: Span): NrqlError {
    return new NrqlError(NRQL_ERROR_CODES.UNSUPPORTED, `${where(this.text, span.start)}, ${feature} are not supported by this service`, span);
  }
}

/** "did you mean" for a misspelt clause keyword (`FORM` → FROM: a swap of neighbours is one edit). */
function clauseSuggestion(token: Token): string | undefined {
  if (token.kind !== 'word') return undefined;
  return closestMatch(token.text, CLAUSE_WORDS);
}
