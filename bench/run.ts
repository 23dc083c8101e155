/**
 * Runs the benchmarks: `npm run bench` runs all of them, `npm run bench -- <name> …` the named
 * ones. Options of `ingest-metric-data`: `--seconds=N`, `--agents=N`, `--harvests=N` (distinct
 * harvests per agent), `--raw=chunk-typed,chunk-values,row-wise,chunk-typed-txn`, `--keep` (keep
 * the data directory). Options of `rest-metric-data`: `--iterations=N`, `--warmup=N`,
 * `--cases=30m,24h,7d`, `--variants=…|all`, `--apps=N`, `--hosts=N`, `--days=N` (the fixture's
 * shape), `--rebuild`, `--explain`. Options of `nrql`: `--rounds=N`, `--warmup=N`,
 * `--cases=facet,uniques-day,uniques-30m,filter`, `--app=N`, `--apps=N`, `--hosts=N`, `--hours=N`,
 * `--events=N` (the store's shape), `--rebuild`, `--explain`. Options of `graph`: `--rounds=N`,
 * `--warmup=N`, `--seconds=N`, `--cases=…`, `--apps=N`, `--rebuild`. `nrql-parser` takes none.
 * `--json` prints the results as JSON as well.
 */
import {
  DEFAULT_INGEST_OPTIONS, RAW_METHODS, formatIngestResult, runIngestMetricData, type IngestBenchOptions, type RawMethod,
} from './ingest-metric-data.js';
import {
  CASES, DEFAULT_REST_OPTIONS, VARIANTS, formatRestResult, runRestMetricData, type CaseLabel, type RestBenchOptions, type Variant,
} from './rest-metric-data.js';

interface Flags {
  readonly names: string[];
  readonly values: Map<string, string>;
}

function parseArgs(argv: readonly string[]): Flags {
  const names: string[] = [];
  const values = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (m) values.set(m[1]!, m[2] ?? 'true');
    else names.push(arg);
  }
  return { names, values };
}

function positive(flags: Flags, name: string, fallback: number): number {
  const v = flags.values.get(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got '${v}'`);
  return n;
}

const BENCHES: Record<string, (flags: Flags) => Promise<unknown>> = {
  'ingest-metric-data': async (flags) => {
    const raw = flags.values.get('raw')?.split(',').filter(Boolean) as RawMethod[] | undefined;
    const unknownRaw = raw?.filter((m) => !RAW_METHODS.includes(m)) ?? [];
    if (unknownRaw.length > 0) throw new Error(`unknown raw method ${unknownRaw.join(', ')}; known: ${RAW_METHODS.join(', ')}`);
    const options: IngestBenchOptions = {
      ...DEFAULT_INGEST_OPTIONS,
      seconds: positive(flags, 'seconds', DEFAULT_INGEST_OPTIONS.seconds),
      agents: Math.round(positive(flags, 'agents', DEFAULT_INGEST_OPTIONS.agents)),
      harvestsPerAgent: Math.round(positive(flags, 'harvests', DEFAULT_INGEST_OPTIONS.harvestsPerAgent)),
      ...(raw ? { rawMethods: raw } : {}),
      keep: flags.values.has('keep'),
    };
    const result = await runIngestMetricData(options);
    console.log(formatIngestResult(result));
    return result;
  },
  'rest-metric-data': async (flags) => {
    const labels = CASES.map((c) => c.label);
    const cases = flags.values.get('cases')?.split(',').filter(Boolean) as CaseLabel[] | undefined;
    const unknownCases = cases?.filter((c) => !labels.includes(c)) ?? [];
    if (unknownCases.length > 0) throw new Error(`unknown case ${unknownCases.join(', ')}; known: ${labels.join(', ')}`);
    const variantFlag = flags.values.get('variants');
    const variants = variantFlag === 'all' ? [...VARIANTS] : variantFlag?.split(',').filter(Boolean) as Variant[] | undefined;
    const unknownVariants = variants?.filter((v) => !VARIANTS.includes(v)) ?? [];
    if (unknownVariants.length > 0) throw new Error(`unknown variant ${unknownVariants.join(', ')}; known: ${VARIANTS.join(', ')} (or all)`);
    const shape = DEFAULT_REST_OPTIONS.shape;
    const options: RestBenchOptions = {
      ...DEFAULT_REST_OPTIONS,
      iterations: Math.round(positive(flags, 'iterations', DEFAULT_REST_OPTIONS.iterations)),
      warmup: Math.round(positive(flags, 'warmup', DEFAULT_REST_OPTIONS.warmup)),
      shape: {
        apps: Math.round(positive(flags, 'apps', shape.apps)),
        hostsPerApp: Math.round(positive(flags, 'hosts', shape.hostsPerApp)),
        days: Math.round(positive(flags, 'days', shape.days)),
      },
      rebuild: flags.values.has('rebuild'),
      explain: flags.values.has('explain'),
      ...(cases ? { cases } : {}),
      ...(variants ? { variants } : {}),
    };
    const result = await runRestMetricData(options);
    console.log(formatRestResult(result));
    return result;
  },
  nrql: async (flags) => (await import('./nrql.js')).nrqlBench(flags.values),
  'nrql-parser': async () => (await import('./nrql-parser.js')).nrqlParserBench(),
  'browser-beacons': async (flags) => (await import('./browser-beacons.js')).browserBeaconsBench(flags.values),
  graph: async (flags) => (await import('./graph.js')).graphBench(flags.values),
  alerts: async (flags) => (await import('./alerts.js')).alertsBench(flags.values),
  'scale-out': async (flags) => (await import('./scale-out.js')).scaleOutBench(flags.values),
  'clickhouse-rollups': async (flags) => (await import('./clickhouse-rollups.js')).clickhouseRollupsBench(flags.values),
  'web-ui': async (flags) => {
    const { formatWebUiResult, webUiBench } = await import('./web-ui.js');
    const result = await webUiBench(flags.values);
    console.log(formatWebUiResult(result));
    return result;
  },
  starvation: async (flags) => (await import('./starvation.js')).starvationBench(flags.values),
  durability: async (flags) => (await import('./durability.js')).durabilityBench(flags.values),
  'ack-window': async (flags) => (await import('./ack-window.js')).ackWindowBench(flags.values),
  'rest-alerts': async (flags) => {
    const { formatRestAlertsResult, runRestAlerts } = await import('./rest-alerts.js');
    const result = await runRestAlerts(flags.values);
    console.log(formatRestAlertsResult(result));
    return result;
  },
  'rest-limits': async () => {
    const { formatRestLimitsResult, runRestLimits } = await import('./rest-limits.js');
    const result = await runRestLimits();
    console.log(formatRestLimitsResult(result));
    return result;
  },
};

async function main(): Promise<void> {
  const flags = parseArgs(process.argv.slice(2));
  const unknown = flags.names.filter((n) => !(n in BENCHES));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  const results: Record<string, unknown> = {};
  for (const name of flags.names.length > 0 ? flags.names : Object.keys(BENCHES)) {
    results[name] = await BENCHES[name]!(flags);
  }
  if (flags.values.has('json')) console.log(JSON.stringify(results, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
