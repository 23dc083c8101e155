/**
 * Rollups on ClickHouse: the incremental job (what Timeslice runs) against a materialized view.
 *
 * On one ClickHouse server (Debian's 18.16, as the tests start it) with Timeslice's own tables
 * (`ClickHouseDataEngine.open`): `--rows` timeslices of one hour are inserted server-side
 * (`INSERT … SELECT … FROM numbers()`, so no client cost is measured) in `--batches` INSERTs,
 * (1) into `timeslices` as it is, then the hour rolled up by the job (`Store.maintain()`); and
 * (2) into a copy of `timeslices` with a materialized view summing each INSERT block into an hourly
 * SummingMergeTree table. Reports the INSERT time with and without the view (the view's cost sits
 * on the ingest path, before agents are acknowledged), the job's time (off it), and the rows the
 * view's table holds for the hour before ClickHouse merges them (what a read must merge).
 *
 * Run: `npm run bench -- clickhouse-rollups [--rows=1000000] [--batches=100]` or `node dist/bench/clickhouse-rollups.js`.
 */
import { ClickHouseDataEngine } from '../src/store/clickhouse/clickhouse-store.js';
import { DEFAULT_UPKEEP } from '../src/store/store.js';
import { startClickHouse } from '../test/helpers/clickhouse.js';
import { ManualClock } from '../test/helpers/rest-fixture.js';
import { runAlone } from './run-alone.js';

const HOUR = Date.UTC(2025, 7, 11, 10);

export async function clickhouseRollupsBench(flags: ReadonlyMap<string, string>): Promise<Record<string, number>> {
  const rows = Number(flags.get('rows') ?? 1_000_000);
  const batches = Number(flags.get('batches') ?? 100);
  if (!(rows > 0 && batches > 0)) throw new Error('--rows and --batches must be positive');
  const server = await startClickHouse();
  const clock = new ManualClock(HOUR + 2 * 3_600_000 + 60_000);
  try {
    const engine = await ClickHouseDataEngine.open({ url: `clickhouse://127.0.0.1:${server.httpPort}/rollups`, clock, upkeep: { ...DEFAULT_UPKEEP, intervalMs: 0 } });
    const q = (sql: string) => server.query(sql);
    const per = Math.ceil(rows / batches);
    // 500 applications × 40 metrics a minute, 60 minutes: account, app, host, instance, metric, scope, minute and six numbers.
    const select = (b: number) => `SELECT toInt32(1), toInt32(1 + n % 500), toInt32(1), toInt32(1), toInt32(intDiv(n, 500) % 40), toInt32(0),
      toInt64(${HOUR} + (intDiv(n, 20000) % 60) * 60000), toFloat64(1 + n % 7), toFloat64(n % 13) / 10, toFloat64(n % 11) / 10, 0.01, 1.5, 0.2, toUInt64(${b})
      FROM (SELECT number + ${b * per} AS n FROM system.numbers LIMIT ${per})`;
    await q('CREATE TABLE rollups.mv_source AS rollups.timeslices');
    await q(`CREATE TABLE rollups.mv_hourly (account_id Int32, app_id Int32, host_id Int32, instance_id Int32, metric_id Int32, scope_id Int32, ts Int64,
      call_count Float64, total Float64, exclusive Float64, sum_of_squares Float64) ENGINE = SummingMergeTree() PARTITION BY toYYYYMMDD(toDateTime(intDiv(ts, 1000), 'UTC'))
      ORDER BY (account_id, app_id, metric_id, host_id, instance_id, scope_id, ts)`);
    await q(`CREATE MATERIALIZED VIEW rollups.mv TO rollups.mv_hourly AS SELECT account_id, app_id, host_id, instance_id, metric_id, scope_id,
      intDiv(ts, 3600000) * 3600000 AS ts, sum(call_count) AS call_count, sum(total) AS total, sum(exclusive) AS exclusive, sum(sum_of_squares) AS sum_of_squares
      FROM rollups.mv_source GROUP BY account_id, app_id, host_id, instance_id, metric_id, scope_id, ts`);
    // The same batches into both tables, interleaved (the machine's load falls on both alike).
    let plain = 0;
    let withView = 0;
    for (let b = 0; b < batches; b++) {
      for (const [table, add] of [['timeslices', (ms: number) => { plain += ms; }], ['mv_source', (ms: number) => { withView += ms; }]] as const) {
        const t = performance.now();
        await q(`INSERT INTO rollups.${table} ${select(b)}`);
        add(performance.now() - t);
      }
    }
    const t0 = performance.now();
    const report = await engine.maintain();
    const job = performance.now() - t0;
    if (report.hoursRolledUp !== 1) throw new Error(`the job rolled up ${report.hoursRolledUp} hours`);
    const viewRows = Number((await q(`SELECT count() FROM rollups.mv_hourly WHERE ts = ${HOUR} FORMAT TSV`)).trim());
    const jobRows = Number((await q(`SELECT count() FROM rollups.timeslices_hourly WHERE ts = ${HOUR} FORMAT TSV`)).trim());
    await engine.close();
    const result = { rows, batches, insertMs: plain, insertWithViewMs: withView, jobMs: job, jobRows, viewRowsBeforeMerge: viewRows };
    console.log(`clickhouse-rollups: ${rows} timeslices of one hour in ${batches} INSERTs`);
    console.log(`  INSERTs, no view          ${plain.toFixed(0)} ms`);
    console.log(`  INSERTs, materialized view ${withView.toFixed(0)} ms (+${(((withView - plain) / plain) * 100).toFixed(0)}% on the ingest path); ${viewRows} rows for the hour before merges`);
    console.log(`  the job, one hour         ${job.toFixed(0)} ms off the ingest path; ${jobRows} rows`);
    return result;
  } finally {
    await server.stop();
  }
}

runAlone(import.meta.url, clickhouseRollupsBench);
