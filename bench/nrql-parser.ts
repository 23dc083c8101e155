/**
 * NRQL front-end benchmark: queries per second through `parse` (lex + parse), `lex` alone and
 * `format` alone, over the query texts of the reference: the worked examples E1–E36 of
 * nrql.md §7 and the query patterns of §5.3 (`test/helpers/nrql-examples.ts`).
 *
 * The variants run in interleaved rounds of a fixed length, each round cycling through all the
 * texts as often as fits; a round's figure is texts handled / elapsed. Reported: the median and
 * the range over the rounds, and the median per second of this process's CPU time, the figure
 * to compare when other work shares the machine. Before timing, every text must parse, and its canonical text must
 * parse back to the same tree; otherwise the benchmark fails.
 */
import { performance } from 'node:perf_hooks';
import { stripSpans } from '../src/nrql/ast.js';
import { format } from '../src/nrql/format.js';
import { lex } from '../src/nrql/lexer.js';
import { parse } from '../src/nrql/parser.js';
import { NRQL_PATTERN_QUERIES, NRQL_WORKED_EXAMPLES } from '../test/helpers/nrql-examples.js';
import { machineFacts, type MachineFacts } from './machine.js';

export interface NrqlParserBenchOptions {
  /** Timed rounds per variant, interleaved. */
  readonly rounds: number;
  readonly roundMs: number;
  /** Untimed time per variant first, so the JIT has compiled the hot paths. */
  readonly warmupMs: number;
}

export const DEFAULT_NRQL_PARSER_OPTIONS: NrqlParserBenchOptions = { rounds: 15, roundMs: 200, warmupMs: 500 };

const VARIANTS = ['parse', 'lex', 'format'] as const;
type Variant = (typeof VARIANTS)[number];

export interface VariantResult {
  /** Median over the rounds, texts per second. */
  readonly perSecond: number;
  readonly minPerSecond: number;
  readonly maxPerSecond: number;
  /** Mean time per text at the median rate, microseconds. */
  readonly microsPerText: number;
  /** Median over the rounds, texts per second of CPU time (user + system) of this process. */
  readonly perCpuSecond: number;
}

export interface NrqlParserBenchResult {
  readonly date: string;
  readonly machine: MachineFacts;
  readonly options: NrqlParserBenchOptions;
  readonly texts: number;
  readonly meanChars: number;
  readonly variants: Record<Variant, VariantResult>;
}

export function runNrqlParser(options: NrqlParserBenchOptions = DEFAULT_NRQL_PARSER_OPTIONS): NrqlParserBenchResult {
  const texts = [...NRQL_WORKED_EXAMPLES, ...NRQL_PATTERN_QUERIES].map((e) => e.text);
  const trees = texts.map((text) => {
    const tree = parse(text);
    const again = parse(format(tree));
    if (JSON.stringify(stripSpans(again)) !== JSON.stringify(stripSpans(tree))) throw new Error(`round trip changed the tree of ${text}`);
    return tree;
  });
  const work: Record<Variant, (i: number) => unknown> = {
    parse: (i) => parse(texts[i]!),
    lex: (i) => lex(texts[i]!),
    format: (i) => format(trees[i]!),
  };
  const rates: Record<Variant, Rate[]> = { parse: [], lex: [], format: [] };
  for (const variant of VARIANTS) timeRound(work[variant], texts.length, options.warmupMs);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const variant = VARIANTS[(round + k) % VARIANTS.length]!;
      rates[variant].push(timeRound(work[variant], texts.length, options.roundMs));
    }
  }
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = (r: Rate[]): VariantResult => {
    const wall = r.map((x) => x.perSecond);
    const perSecond = median(wall);
    return {
      perSecond,
      minPerSecond: Math.min(...wall),
      maxPerSecond: Math.max(...wall),
      microsPerText: 1e6 / perSecond,
      perCpuSecond: median(r.map((x) => x.perCpuSecond)),
    };
  };
  return {
    date: new Date().toISOString(),
    machine: machineFacts(),
    options,
    texts: texts.length,
    meanChars: texts.reduce((sum, t) => sum + t.length, 0) / texts.length,
    variants: { parse: summary(rates.parse), lex: summary(rates.lex), format: summary(rates.format) },
  };
}

interface Rate {
  readonly perSecond: number;
  readonly perCpuSecond: number;
}

/** Runs `handle` over the texts, round-robin, for `ms`; returns texts per second, wall and CPU. */
function timeRound(handle: (i: number) => unknown, count: number, ms: number): Rate {
  let done = 0;
  let sink = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < count; i++) sink += handle(i) === undefined ? 0 : 1;
    done += count;
    elapsed = performance.now() - started;
  }
  const used = process.cpuUsage(cpu);
  if (sink !== done) throw new Error('a variant returned nothing');
  return { perSecond: (done / elapsed) * 1000, perCpuSecond: done / ((used.user + used.system) / 1e6) };
}

/** What `npm run bench -- nrql-parser` runs: the default options, the table printed. */
export function nrqlParserBench(): NrqlParserBenchResult {
  const result = runNrqlParser();
  console.log(formatNrqlParserResult(result));
  return result;
}

export function formatNrqlParserResult(r: NrqlParserBenchResult): string {
  const m = r.machine;
  const int = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    `NRQL parser (${r.date}): ${r.texts} query texts of the reference (E1–E36, §5.3), ${r.meanChars.toFixed(0)} characters on average; ${r.options.rounds} interleaved rounds of ${r.options.roundMs} ms per variant`,
    `  machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, load ${m.loadAverage.join(' ')}`,
    '',
    `  ${'variant'.padEnd(8)} ${'texts/s'.padStart(10)} ${'µs/text'.padStart(8)} ${'texts/CPU s'.padStart(12)}  range over rounds`,
    ...VARIANTS.map((v) => {
      const x = r.variants[v];
      return `  ${v.padEnd(8)} ${int(x.perSecond).padStart(10)} ${x.microsPerText.toFixed(1).padStart(8)} ${int(x.perCpuSecond).padStart(12)}  ${int(x.minPerSecond)}–${int(x.maxPerSecond)}`;
    }),
    '  (medians over the rounds; parse includes lexing; format prints trees parsed beforehand)',
  ].join('\n');
}
