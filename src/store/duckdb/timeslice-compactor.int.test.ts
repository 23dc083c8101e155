import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connectApp, ManualClock, rest, sendMetrics, startTestServer } from '../../../test/helpers/rest-fixture.js';
import { TimesliceCompactor } from './timeslice-compactor.js';

const clock = new ManualClock(Date.parse('2026-11-22T12:00:30Z'));
const ts = await startTestServer({ TIMESLICE_COMPACT_EVERY_MS: '0' }, { clock });
after(() => ts.stop());
const counts = async () => {
  const [row] = await ts.server.db.all<{ hot: bigint; compacted: bigint }>(
    'SELECT (SELECT count(*) FROM timeslices) AS hot, (SELECT count(*) FROM timeslices_compacted) AS compacted',
  );
  return { hot: Number(row!.hot), compacted: Number(row!.compacted) };
};

function assertClose(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${path}: ${actual} ≠ ${expected}`);
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual as object), Object.keys(expected), path);
    for (const [k, v] of Object.entries(expected)) assertClose((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

test('compaction moves timeslices older than the age into clustered order; REST answers the same before and after', async () => {
  const apps = [await connectApp(ts, 'compact-a', 'a-1', 1), await connectApp(ts, 'compact-b', 'b-1', 2)];
  const start = Date.parse('2026-11-22T06:00:00Z');
  for (let m = 0; m < 6 * 60; m += 20) {
    for (const [i, app] of apps.entries()) {
      const begin = start + m * 60_000;
      await sendMetrics(ts, app.runId, begin, begin + 60_000, [
        ['HttpDispatcher', '', [m + i + 1, (m + 1) * 0.01, 0.001, 0.001, 0.5, 0.3]],
        ['Apdex', '', [m + 1, i, 1, 0.5, 0.5, 0]],
        ['Datastore/all', 'WebTransaction/x', [1, 0.1, 0.1, 0.1, 0.1, 0.01]],
      ]);
    }
  }
  const queries = apps.flatMap((app) => [
    `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&from=2026-11-22T05:00:00Z&to=2026-11-22T12:00:00Z&raw=true`,
    `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&names[]=Apdex&from=2026-11-22T05:00:00Z&summarize=true&raw=true`,
  ]);
  const before = await Promise.all(queries.map(async (q) => (await rest(ts, 'GET', q)).text));
  const total = await counts();
  assert.equal(total.compacted, 0);

  const moved = await ts.server.compactor.compactOnce();
  const after = await counts();
  // Older than 2 hours, by whole hours: everything before 10:00, 4 hours × 3 harvests × 2 apps × 3 rows.
  const old = 4 * 3 * 2 * 3;
  assert.equal(moved, old);
  assert.deepEqual(after, { hot: total.hot - old, compacted: old });
  // One sorted block per hour, oldest first: (hour, app, metric) never decreases along the table.
  const [ordered] = await ts.server.db.all<{ sorted: boolean; hours: bigint }>(
    `SELECT bool_and(k >= prev) AS sorted, count(DISTINCT date_trunc('hour', ts)) AS hours FROM (
       SELECT ts, k, lag(k, 1, 0) OVER (ORDER BY rowid) AS prev
       FROM (SELECT rowid, ts, epoch(date_trunc('hour', ts)) * 1e9 + app_id * 1e6 + metric_id AS k FROM timeslices_compacted))`,
  );
  assert.equal(ordered!.sorted, true, 'compacted rows are in (hour, app, metric) order');
  assert.equal(Number(ordered!.hours), 4);
  const afterAnswers = await Promise.all(queries.map(async (q) => (await rest(ts, 'GET', q)).text));
  // The same numbers; a sum may differ in its last bit, as sums in another order do.
  afterAnswers.forEach((text, i) => assertClose(JSON.parse(text), JSON.parse(before[i]!), queries[i]!));
  assert.equal(await ts.server.compactor.compactOnce(), 0, 'nothing left to move');
});

test('rows an agent appends during a compaction are neither lost nor counted twice', async () => {
  const app = await connectApp(ts, 'compact-c', 'c-1', 3);
  const start = Date.parse('2026-11-22T01:00:00Z');
  const sends = Array.from({ length: 30 }, (_, i) => {
    const begin = start + i * 60_000;
    return sendMetrics(ts, app.runId, begin, begin + 60_000, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
  });
  const runs = [ts.server.compactor.compactOnce(), ...sends.slice(0, 15)];
  await Promise.all(runs);
  await ts.server.compactor.compactOnce();
  await Promise.all(sends);
  await ts.server.compactor.compactOnce();
  const reply = await rest(ts, 'GET', `/v2/applications/${app.appId}/metrics/data.json?names[]=HttpDispatcher&values[]=call_count&from=2026-11-22T00:00:00Z&to=2026-11-22T03:00:00Z&summarize=true&raw=true`);
  assert.equal(reply.json().metric_data.metrics[0].timeslices[0].values.call_count, 30);
  const [row] = await ts.server.db.all<{ n: bigint }>(
    `SELECT count(*) AS n FROM (SELECT app_id FROM timeslices UNION ALL SELECT app_id FROM timeslices_compacted
       UNION ALL SELECT app_id FROM timeslices_daily) WHERE app_id = ${app.appId}`,
  );
  assert.equal(Number(row!.n), 30);
});

test('deleting an application deletes its compacted rows too; last-reported survives a restart from either table', async () => {
  const app = await connectApp(ts, 'compact-d', 'd-1', 4);
  const begin = Date.parse('2026-11-22T02:00:00Z');
  await sendMetrics(ts, app.runId, begin, begin + 60_000, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
  await ts.server.compactor.compactOnce();
  await ts.restart();
  // At start, the minute after the newest stored minute, found in the compacted table.
  assert.equal(ts.server.metrics.lastReportedAt({ appId: app.appId }), begin + 60_000);
  clock.ms += 11 * 60_000;
  const gone = await rest(ts, 'DELETE', `/v2/applications/${app.appId}.json`);
  assert.equal(gone.status, 200, gone.text);
  const [row] = await ts.server.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM timeslices_compacted WHERE app_id = ${app.appId}`);
  assert.equal(Number(row!.n), 0);
});

test('deleting an application while a compaction moves its rows: both complete, nothing of it is left', async () => {
  const app = await connectApp(ts, 'compact-e', 'e-1', 5);
  const start = Date.parse('2026-11-22T03:00:00Z');
  for (let i = 0; i < 20; i++) {
    const begin = start + i * 60_000;
    await sendMetrics(ts, app.runId, begin, begin + 60_000, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
  }
  clock.ms += 11 * 60_000;
  const [moved, gone] = await Promise.all([
    ts.server.compactor.compactOnce(),
    rest(ts, 'DELETE', `/v2/applications/${app.appId}.json`),
  ]);
  assert.equal(gone.status, 200, gone.text);
  // Whichever went first: the 20 rows moved before the delete, or were deleted before they could move.
  assert.ok(moved === 20 || moved === 0, `moved ${moved}`);
  const [row] = await ts.server.db.all<{ n: bigint }>(
    `SELECT count(*) AS n FROM (SELECT app_id FROM timeslices UNION ALL SELECT app_id FROM timeslices_compacted
       UNION ALL SELECT app_id FROM timeslices_daily) WHERE app_id = ${app.appId}`,
  );
  assert.equal(Number(row!.n), 0);
});

test('complete days are merged from hour blocks into one block per day, sorted by (app, metric, time); answers unchanged', async () => {
  const apps = [await connectApp(ts, 'compact-f', 'f-1', 6), await connectApp(ts, 'compact-g', 'g-1', 7)];
  const day = Date.parse('2026-11-20T00:00:00Z');
  for (let h = 0; h < 24; h += 3) {
    for (const [i, app] of apps.entries()) {
      const begin = day + h * 3_600_000;
      await sendMetrics(ts, app.runId, begin, begin + 60_000, [
        ['HttpDispatcher', '', [h + i + 1, (h + 1) * 0.01, 0.001, 0.001, 0.5, 0.3]],
        ['Errors/all', '', [i + 1, 0, 0, 0, 0, 0]],
      ]);
    }
  }
  const query = (appId: number) => `/v2/applications/${appId}/metrics/data.json?names[]=HttpDispatcher&names[]=Errors/all&from=2026-11-19T12:00:00Z&to=2026-11-21T12:00:00Z&raw=true`;
  const before = await Promise.all(apps.map(async (a) => JSON.parse((await rest(ts, 'GET', query(a.appId))).text)));
  await ts.server.compactor.compactOnce();
  const [where] = await ts.server.db.all<{ hot: bigint; hourly: bigint; daily: bigint }>(
    `SELECT (SELECT count(*) FROM timeslices WHERE ts < '2026-11-21') AS hot,
            (SELECT count(*) FROM timeslices_compacted WHERE ts < '2026-11-21') AS hourly,
            (SELECT count(*) FROM timeslices_daily) AS daily`,
  );
  assert.deepEqual([Number(where!.hot), Number(where!.hourly), Number(where!.daily)], [0, 0, 8 * 2 * 2]);
  const [ordered] = await ts.server.db.all<{ sorted: boolean }>(
    `SELECT bool_and(k >= prev) AS sorted FROM (
       SELECT k, lag(k, 1, 0) OVER (ORDER BY rowid) AS prev
       FROM (SELECT rowid, app_id * 1e15 + metric_id * 1e12 + epoch_ms(ts) AS k FROM timeslices_daily))`,
  );
  assert.equal(ordered!.sorted, true, 'the day block is in (app, metric, time) order');
  const after = await Promise.all(apps.map(async (a) => JSON.parse((await rest(ts, 'GET', query(a.appId))).text)));
  after.forEach((body, i) => assertClose(body, before[i], query(apps[i]!.appId)));
});

test('a complete day already in hour blocks is merged even when no new rows are old enough to move', async () => {
  const app = await connectApp(ts, 'compact-h', 'h-1', 8);
  for (const at of ['2026-11-21T05:00:00Z', '2026-11-21T10:00:00Z']) {
    const begin = Date.parse(at);
    await sendMetrics(ts, app.runId, begin, begin + 60_000, [['HttpDispatcher', '', [1, 0.1, 0.1, 0.1, 0.1, 0.01]]]);
  }
  const own = new ManualClock(Date.parse('2026-11-21T13:00:00Z'));
  const compactor = new TimesliceCompactor(ts.server.db, own, { intervalMs: 0, minAgeMs: 2 * 3_600_000 });
  try {
    assert.equal(await compactor.compactOnce(), 2, 'both rows move into hour blocks; 11-21 is not complete yet');
    own.ms = Date.parse('2026-11-22T03:30:00Z');
    assert.equal(await compactor.compactOnce(), 0, 'nothing new to move');
  } finally {
    await compactor.stop();
  }
  const [row] = await ts.server.db.all<{ daily: bigint; hourly: bigint }>(
    `SELECT (SELECT count(*) FROM timeslices_daily WHERE app_id = ${app.appId}) AS daily,
            (SELECT count(*) FROM timeslices_compacted WHERE app_id = ${app.appId}) AS hourly`,
  );
  assert.deepEqual([Number(row!.daily), Number(row!.hourly)], [2, 0]);
});
