/**
 * An independent reading of the NRQL functions REST v2 values map to, for property tests.
 *
 * Nothing here comes from `src/`: the grammar is the small subset the spec's value table
 * (service-interface §4.5) uses, and the meaning of each aggregate over timeslice data points is
 * transcribed from reference/nrql.md §4 and §5.2:
 *
 * - Over the value itself (`count(V)` …): summary semantics. count = Σ count, sum = Σ total,
 *   average = Σ total / Σ count, min = min of mins, max = max of maxes,
 *   stddev = √(Σ sumOfSquares / Σ count − (Σ total / Σ count)²) (population; clamped at 0 as
 *   rest-v2 §5.2 writes it), apdex = (s + t/2) / (s + t + f) with s = Σ count, t = Σ total,
 *   f = Σ totalExclusive.
 * - Over a per-point number (`average(V['totalExclusive'] / V['count'])`): row semantics, each
 *   data point contributes its own number; a point whose number is null (division by zero)
 *   contributes nothing.
 * - Empty input: count and sum give 0; average, min, max, stddev and apdex give null. Division
 *   by zero gives null (nrql.md §4's recommendation), and null propagates through arithmetic.
 * - `rate(x, n unit)` = x · n seconds / (length of the slice in seconds).
 */

/** One stored data point: the six numbers of one harvest row, times in seconds. */
export interface Point {
  readonly count: number;
  readonly total: number;
  readonly totalExclusive: number;
  readonly min: number;
  readonly max: number;
  readonly sumOfSquares: number;
}

export const FIELDS = ['count', 'total', 'totalExclusive', 'min', 'max', 'sumOfSquares'] as const;
type Field = (typeof FIELDS)[number];

type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'value' }
  | { kind: 'field'; field: Field }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr }
  | { kind: 'agg'; name: 'count' | 'sum' | 'average' | 'min' | 'max' | 'stddev' | 'apdex'; arg: Expr }
  | { kind: 'rate'; of: Expr; seconds: number };

const AGGREGATES = new Set(['count', 'sum', 'average', 'min', 'max', 'stddev', 'apdex']);
const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** Parses a function of the subset; `valueName` is how the value attribute is written (`V`, `newrelic.timeslice.value`). */
export function parseFunction(text: string, valueName: string): Expr {
  let i = 0;
  const ws = () => { while (i < text.length && text[i] === ' ') i++; };
  const fail = (what: string): never => { throw new Error(`cannot parse ${JSON.stringify(text)} at ${i}: ${what}`); };
  const eat = (s: string): boolean => {
    ws();
    if (text.startsWith(s, i)) { i += s.length; return true; }
    return false;
  };
  const expect = (s: string) => { if (!eat(s)) fail(`expected '${s}'`); };

  const atom = (): Expr => {
    ws();
    if (eat('(')) { const e = sum(); expect(')'); return e; }
    const num = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i));
    if (num) { i += num[0].length; return { kind: 'num', value: Number(num[0]) }; }
    if (text.startsWith(valueName, i)) {
      i += valueName.length;
      if (eat('[')) {
        ws();
        const m = /^'([A-Za-z]+)'/.exec(text.slice(i));
        if (!m || !(FIELDS as readonly string[]).includes(m[1]!)) fail('a field name in quotes');
        i += m![0].length;
        expect(']');
        return { kind: 'field', field: m![1] as Field };
      }
      return { kind: 'value' };
    }
    const ident = /^[A-Za-z]+/.exec(text.slice(i));
    if (!ident) return fail('a number, the value, or a function');
    const name = ident[0];
    i += name.length;
    expect('(');
    if (name === 'rate') {
      const of = sum();
      expect(',');
      ws();
      const m = /^([0-9]+) (second|minute|hour|day)s?/.exec(text.slice(i));
      if (!m) fail('a duration like `1 minute`');
      i += m![0].length;
      expect(')');
      return { kind: 'rate', of, seconds: Number(m![1]) * UNIT_SECONDS[m![2]!]! };
    }
    if (!AGGREGATES.has(name)) fail(`unknown function ${name}`);
    const arg = sum();
    expect(')');
    return { kind: 'agg', name: name as Extract<Expr, { kind: 'agg' }>['name'], arg };
  };
  const product = (): Expr => {
    let left = atom();
    for (;;) {
      if (eat('*')) left = { kind: 'bin', op: '*', left, right: atom() };
      else if (eat('/')) left = { kind: 'bin', op: '/', left, right: atom() };
      else return left;
    }
  };
  const sum = (): Expr => {
    let left = product();
    for (;;) {
      if (eat('+')) left = { kind: 'bin', op: '+', left, right: product() };
      else if (eat('-')) left = { kind: 'bin', op: '-', left, right: product() };
      else return left;
    }
  };
  const e = sum();
  ws();
  if (i !== text.length) fail('trailing text');
  return e;
}

function arith(op: '+' | '-' | '*' | '/', a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return b === 0 ? null : a / b;
  }
}

/** A per-point number (row semantics); null when undefined for the point. */
function perPoint(e: Expr, p: Point): number | null {
  switch (e.kind) {
    case 'num': return e.value;
    case 'field': return p[e.field];
    case 'bin': return arith(e.op, perPoint(e.left, p), perPoint(e.right, p));
    default: throw new Error(`${e.kind} is not a per-point expression`);
  }
}

/** Evaluates a parsed function over the points of one slice of `seconds` length. */
export function evaluate(e: Expr, points: readonly Point[], seconds: number): number | null {
  switch (e.kind) {
    case 'num': return e.value;
    case 'bin': return arith(e.op, evaluate(e.left, points, seconds), evaluate(e.right, points, seconds));
    case 'rate': {
      const v = evaluate(e.of, points, seconds);
      return v === null ? null : (v * e.seconds) / seconds;
    }
    case 'agg': return e.arg.kind === 'value' ? overValue(e.name, points) : overNumbers(e.name, points.map((p) => perPoint(e.arg, p)));
    default: throw new Error(`${e.kind} outside an aggregate`);
  }
}

const total = (points: readonly Point[], f: Field) => points.reduce((s, p) => s + p[f], 0);

function overValue(name: Extract<Expr, { kind: 'agg' }>['name'], points: readonly Point[]): number | null {
  const c = total(points, 'count');
  const t = total(points, 'total');
  switch (name) {
    case 'count': return c;
    case 'sum': return t;
    case 'average': return c === 0 ? null : t / c;
    case 'min': return points.length === 0 ? null : Math.min(...points.map((p) => p.min));
    case 'max': return points.length === 0 ? null : Math.max(...points.map((p) => p.max));
    case 'stddev': {
      if (c === 0) return null;
      const mean = t / c;
      return Math.sqrt(Math.max(0, total(points, 'sumOfSquares') / c - mean * mean));
    }
    case 'apdex': {
      const n = c + t + total(points, 'totalExclusive');
      return n === 0 ? null : (c + t / 2) / n;
    }
  }
}

function overNumbers(name: Extract<Expr, { kind: 'agg' }>['name'], values: readonly (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const s = xs.reduce((a, b) => a + b, 0);
  switch (name) {
    case 'count': return xs.length;
    case 'sum': return s;
    case 'average': return xs.length === 0 ? null : s / xs.length;
    case 'min': return xs.length === 0 ? null : Math.min(...xs);
    case 'max': return xs.length === 0 ? null : Math.max(...xs);
    case 'stddev': {
      if (xs.length === 0) return null;
      const mean = s / xs.length;
      return Math.sqrt(Math.max(0, xs.reduce((a, x) => a + x * x, 0) / xs.length - mean * mean));
    }
    case 'apdex': throw new Error('apdex applies to the value, not to a number');
  }
}

/** Parses and evaluates in one go. */
export function evaluateFunction(text: string, valueName: string, points: readonly Point[], seconds: number): number | null {
  const key = `${valueName}\u0000${text}`;
  let parsed = parsedCache.get(key);
  if (!parsed) parsedCache.set(key, (parsed = parseFunction(text, valueName)));
  return evaluate(parsed, points, seconds);
}

const parsedCache = new Map<string, Expr>();
