/**
 * The NRQL golden script format (`test/golden/nrql/*.nrql`), read and written here; run by
 * `test/nrql/nrql-golden.int.test.ts`. One file loads data, then runs queries with their
 * expected answers. Lines:
 *
 *   # comment
 *   now <epoch ms>                         the clock for later queries (relative SINCE, defaults)
 *   agent <appName> <host>                 connect an agent run; data lines below report through it
 *   event <Type> <intrinsics JSON> [<user JSON> [<agent JSON>]]       Transaction, TransactionError, Span
 *   custom <Type> <attributes JSON>        an agent custom event (`custom_event_data`)
 *   insert <JSON object with eventType>    an event through the Event API (Mobile, PageView, …)
 *   stored <JSON object with eventType>    an event as the service itself stores one (ChangeTrackingEvent,
 *                                          which the Event API refuses), written to the store directly
 *   metric <beginMs> <seconds> <name>[|<scope>] [c,total,exclusive,min,max,sumsq]   one harvest row
 *   query <NRQL on one line>
 *   expect <JSON>                          the answer: {results, totalResult?, otherResult?, facets?}
 *   error <CODE> <line>:<column> <message> the query fails this way
 *   sql <rendered SQL of the query's main plan, one line per SQL line, ended by a blank line>
 *
 * An `expect`'s JSON may span several lines (until a blank line). `UPDATE_GOLDEN=1` rewrites the
 * expectations from the actual answers, for review in the diff.
 */
export type ScriptLine =
  | { readonly kind: 'now'; readonly ms: number }
  | { readonly kind: 'agent'; readonly app: string; readonly host: string }
  | { readonly kind: 'event'; readonly eventType: string; readonly parts: readonly object[] }
  | { readonly kind: 'custom'; readonly eventType: string; readonly attributes: object }
  | { readonly kind: 'insert'; readonly event: object }
  | { readonly kind: 'stored'; readonly event: object }
  | { readonly kind: 'metric'; readonly beginMs: number; readonly seconds: number; readonly name: string; readonly scope: string; readonly stats: readonly number[] }
  | { readonly kind: 'case'; readonly query: string; readonly line: number; readonly expectation: Expectation };

export type Expectation =
  | { readonly kind: 'expect'; readonly json: unknown }
  | { readonly kind: 'error'; readonly code: string; readonly at: string; readonly message: string }
  | { readonly kind: 'sql'; readonly sql: string }
  | { readonly kind: 'none' };

export interface Script {
  readonly lines: readonly ScriptLine[];
  /** The original text split in lines, with where each case's expectation sits, for rewriting. */
  readonly text: readonly string[];
  readonly expectationRanges: ReadonlyMap<number, readonly [start: number, end: number]>;
}

export function parseScript(text: string): Script {
  const raw = text.split('\n');
  const lines: ScriptLine[] = [];
  const ranges = new Map<number, readonly [number, number]>();
  let i = 0;
  const json = (s: string, at: number): unknown => {
    try {
      return JSON.parse(s);
    } catch (error) {
      throw new Error(`line ${at + 1}: bad JSON: ${(error as Error).message}`);
    }
  };
  /** Consecutive JSON values on one line (`{…} {…}`). */
  const jsonValues = (s: string, at: number): object[] => {
    const out: object[] = [];
    let depth = 0;
    let start = -1;
    let inString = false;
    for (let c = 0; c < s.length; c++) {
      const ch = s[c]!;
      if (inString) {
        if (ch === '\\') c++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') {
        if (depth === 0) start = c;
        depth++;
      } else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) out.push(json(s.slice(start, c + 1), at) as object);
      }
    }
    return out;
  };
  while (i < raw.length) {
    const line = raw[i]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      i++;
      continue;
    }
    const [word] = trimmed.split(/\s+/, 1);
    const rest = trimmed.slice(word!.length).trim();
    switch (word) {
      case 'now':
        lines.push({ kind: 'now', ms: Number(rest) });
        i++;
        break;
      case 'agent': {
        const [app, host] = rest.split(/\s+/);
        lines.push({ kind: 'agent', app: app!, host: host ?? 'host-1' });
        i++;
        break;
      }
      case 'event': {
        const eventType = rest.split(/\s+/, 1)[0]!;
        lines.push({ kind: 'event', eventType, parts: jsonValues(rest.slice(eventType.length), i) });
        i++;
        break;
      }
      case 'custom': {
        const eventType = rest.split(/\s+/, 1)[0]!;
        lines.push({ kind: 'custom', eventType, attributes: jsonValues(rest.slice(eventType.length), i)[0] ?? {} });
        i++;
        break;
      }
      case 'insert':
      case 'stored':
        lines.push({ kind: word, event: json(rest, i) as object });
        i++;
        break;
      case 'metric': {
        const m = /^(\d+)\s+(\d+)\s+(\S+)\s+(\[.*\])$/.exec(rest);
        if (!m) throw new Error(`line ${i + 1}: metric <beginMs> <seconds> <name>[|scope] [six numbers]`);
        const [name, scope = ''] = m[3]!.split('|');
        lines.push({ kind: 'metric', beginMs: Number(m[1]), seconds: Number(m[2]), name: name!, scope, stats: json(m[4]!, i) as number[] });
        i++;
        break;
      }
      case 'query': {
        const queryLine = i;
        i++;
        while (i < raw.length && raw[i]!.trim() === '') i++;
        const start = i;
        const head = raw[i]?.trim() ?? '';
        let expectation: Expectation = { kind: 'none' };
        if (head.startsWith('expect')) {
          const chunk = [head.slice('expect'.length)];
          i++;
          while (i < raw.length && raw[i]!.trim() !== '') chunk.push(raw[i++]!);
          expectation = { kind: 'expect', json: json(chunk.join('\n'), start) };
        } else if (head.startsWith('error')) {
          const m = /^error\s+(\S+)\s+(\S+)\s*(.*)$/.exec(head);
          if (!m) throw new Error(`line ${i + 1}: error <CODE> <line>:<column> <message>`);
          expectation = { kind: 'error', code: m[1]!, at: m[2]!, message: m[3]! };
          i++;
        } else if (head.startsWith('sql')) {
          const chunk = [head.slice('sql'.length).trim()];
          i++;
          while (i < raw.length && raw[i]!.trim() !== '') chunk.push(raw[i++]!.trim());
          expectation = { kind: 'sql', sql: chunk.join('\n') };
        }
        ranges.set(lines.length, [start, expectation.kind === 'none' ? start : i]);
        lines.push({ kind: 'case', query: rest, line: queryLine + 1, expectation });
        break;
      }
      default:
        throw new Error(`line ${i + 1}: unknown directive '${word}'`);
    }
  }
  return { lines, text: raw, expectationRanges: ranges };
}

/** The expectation text for an actual outcome, in the form the parser reads back. */
export function expectationText(expectation: Expectation): string[] {
  switch (expectation.kind) {
    case 'expect':
      return [`expect ${compactJson(expectation.json)}`];
    case 'error':
      return [`error ${expectation.code} ${expectation.at} ${expectation.message}`];
    case 'sql':
      return [`sql ${expectation.sql.split('\n').join('\n    ')}`];
    case 'none':
      return [];
  }
}

/** Rewrites each case's expectation with `actual[index]` (by line index), keeping everything else. */
export function rewriteScript(script: Script, actual: ReadonlyMap<number, Expectation>): string {
  const out = [...script.text];
  const edits = [...script.expectationRanges.entries()].filter(([index]) => actual.has(index)).sort((a, b) => b[1][0] - a[1][0]);
  for (const [index, [start, end]] of edits) {
    const replacement = expectationText(actual.get(index)!);
    out.splice(start, end - start, ...replacement);
  }
  return out.join('\n');
}

/** JSON with one result row per line: readable diffs without a line per number. */
export function compactJson(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{\n${entries.map(([k, v]) => `  ${JSON.stringify(k)}: ${Array.isArray(v) && v.length > 0 && typeof v[0] === 'object' ? `[\n${v.map((row) => `    ${JSON.stringify(row)}`).join(',\n')}\n  ]` : JSON.stringify(v)}`).join(',\n')}\n}`;
  }
  return JSON.stringify(value);
}
