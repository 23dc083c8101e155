import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clickhouseMissing, startClickHouse, type ClickHouseServer } from '../helpers/clickhouse.js';
import { connectApp, ManualClock, rest, sendMetrics } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const H = Date.UTC(2025, 7, 11, 10);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('rollups and retention on ClickHouse', { skip: clickhouseMissing() }, () => {
  let clickhouse: ClickHouseServer;
  let ts: TestServer;
  const clock = new ManualClock(H + HOUR + 5 * 60_000);
  const db = 'upkeep_test';
  const value = async (sql: string) => (await clickhouse.query(`${sql} FORMAT TSV`)).trim();
  let appId: number;
  const metricData = (from: string, to: string) => rest(ts, 'GET',
    `/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&values[]=average_response_time&values[]=max_response_time&from=${from}&to=${to}&summarize=true`);

  before(async () => {
    clickhouse = await startClickHouse();
    ts = await startTestServer({ TIMESLICE_STORE: `clickhouse://127.0.0.1:${clickhouse.httpPort}/${db}` }, { clock });
    const agent = await connectApp(ts, 'rolled', 'h1');
    appId = ts.server.catalog.run(agent.runId)!.targets[0]!.appId;
    // Hour H: minutes 0, 1 (twice: two harvests) and 59; hour H+1: minute 0.
    const at = (hour: number, minute: number) => H + hour * HOUR + minute * 60_000;
    for (const [hour, minute, calls, t] of [[0, 0, 4, 0.5], [0, 1, 2, 0.25], [0, 1, 6, 0.125], [0, 59, 1, 2], [1, 0, 10, 0.1]] as const) {
      await sendMetrics(ts, agent.runId, at(hour, minute), at(hour, minute + 1), [['HttpDispatcher', '', [calls, calls * t, calls * t, t, t, calls * t * t]]]);
    }
  });
  after(async () => {
    await ts?.stop();
    await clickhouse?.stop();
  });

  it('rolls each closed hour up once, with the summary algebra, and reads whole hours from the rollup with the same answer', async () => {
    const from = new Date(H).toISOString();
    const to = new Date(H + HOUR).toISOString();
    const before = await metricData(from, to);
    assert.equal(before.headers['x-timeslice-resolution'], 'minute');
    // 13 calls: 4×0.5 + 2×0.25 + 6×0.125 + 1×2 = 5.25 s → 403.846… ms on average, max 2 s.
    assert.deepEqual(before.json().metric_data.metrics[0].timeslices[0].values, { call_count: 13, average_response_time: 404, max_response_time: 2000 });

    // Hour H closed an hour ago (the rollup delay): it is rolled up; H+1 is not yet.
    clock.ms = H + 2 * HOUR + 60_000;
    const report = await ts.server.store.maintain();
    assert.deepEqual([report.hoursRolledUp, report.rollupRows], [1, 1]);
    assert.equal(await value(`SELECT concat(toString(call_count), ' ', toString(total), ' ', toString(min), ' ', toString(max)) FROM ${db}.timeslices_hourly WHERE ts = ${H}`), '13 5.25 0.125 2');
    const again = await ts.server.store.maintain();
    assert.deepEqual([again.hoursRolledUp, again.rollupRows], [0, 0]);
    assert.equal(await value(`SELECT count() FROM ${db}.timeslices_hourly`), '1');

    const after = await metricData(from, to);
    assert.equal(after.headers['x-timeslice-resolution'], 'hour');
    assert.deepEqual(after.json().metric_data, before.json().metric_data);
    const status = await ts.server.store.status();
    assert.equal(status.engine, 'clickhouse');
    assert.equal(status.rolledUpUntilMs, H + HOUR);
    assert.deepEqual(status.tables.filter((t) => t.table.startsWith('timeslices')).map((t) => [t.table, t.rows, t.oldestMs]), [
      ['timeslices', 5, H],
      ['timeslices_hourly', 1, H],
    ]);
  });

  it('a restarted node keeps the watermark and does not roll an hour up twice', async () => {
    await ts.restart();
    const report = await ts.server.store.maintain();
    assert.deepEqual([report.hoursRolledUp, report.rollupRows], [0, 0]);
    assert.equal((await ts.server.store.status()).rolledUpUntilMs, H + HOUR);
  });

  it('deletes 1-minute timeslices past 8 days once rolled up, keeping the rollups and recent minutes', async () => {
    clock.ms = H + 9 * DAY;
    const agent = await connectApp(ts, 'rolled', 'h1');
    await sendMetrics(ts, agent.runId, H + 9 * DAY - 10 * 60_000, H + 9 * DAY - 9 * 60_000, [['HttpDispatcher', '', [7, 0.7, 0.7, 0.1, 0.1, 0.07]]]);
    const report = await ts.server.store.maintain();
    // Hour H+1 is rolled up (one row), the later empty hours move the watermark; then every minute of day H expires.
    assert.deepEqual([report.hoursRolledUp, report.rollupRows], [1, 1]);
    assert.equal(report.deleted.timeslices, 5);
    await waitFor('the expired minutes to go', async () => (await value(`SELECT count() FROM ${db}.timeslices`)) === '1');
    assert.equal(await value(`SELECT sum(call_count) FROM ${db}.timeslices`), '7');
    assert.equal(await value(`SELECT toString(groupArray(call_count)) FROM (SELECT call_count FROM ${db}.timeslices_hourly ORDER BY ts)`), '[13,10]');
    // Day H's partition of the minute table is gone as a whole.
    assert.equal(await value(`SELECT count() FROM system.parts WHERE active AND database = '${db}' AND table = 'timeslices' AND partition = '20250811'`), '0');
  });
});
