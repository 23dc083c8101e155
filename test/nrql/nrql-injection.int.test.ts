import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentQuery, invoke } from '../helpers/collector-client.js';
import { connectApp, ManualClock, sendMetrics, type AgentHandle } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * SQL injection through every identifier and literal path of NRQL (STYLE.md practice 7): string
 * literals in WHERE, IN, LIKE and RLIKE, backtick attribute names (typed columns and JSON
 * attributes), event type names in FROM, aliases, FACET CASES labels, WITH TIMEZONE, SINCE texts,
 * field names of the timeslice value, metric, scope, application and host names, and JSON
 * attribute names holding quotes, dots, brackets and backslashes. The store has a table `x`.
 * Every query goes through POST /timeslice/v1/nrql and either answers, with the hostile text
 * treated as data (the event whose attribute holds exactly that text is the one found), or is
 * refused with an NRQL error (400 and an NRQL_ code, never a 500). Afterwards `x` and the store's
 * tables still exist with all their rows.
 */

const NOW = 1754900200000;
const BEGIN = 1754899980000;
const END = 1754900160000;
const W = `SINCE ${BEGIN} UNTIL ${END}`;

/** The classic payload and variants with a double quote, backslashes, a backtick, `$1`, a comment and LIKE wildcards. */
const PAYLOADS = [
  "';DROP TABLE x;--",
  `"';DROP TABLE x;--"`,
  "\\';DROP TABLE x;--",
  "\\\\'); DROP TABLE x; --",
  '`;DROP TABLE x;--`',
  "$1';DROP TABLE x;--",
  "/*';DROP TABLE x;--*/",
  "'' OR 1=1; DROP TABLE x; --",
  "%_';DROP TABLE x;--\\",
];

/** Attribute names a JSON path must quote: quotes, dots, brackets, backslashes, `$`, a backtick, non-ASCII. */
const ODD_NAMES = ['a"b', 'a.b', 'a\\b', "a'b", '$.x', 'a[0]', 'x") OR 1=1 --', 'a`b', 'trailing\\', '名前 ü', 'a..b', '.lead', 'x"]'];

/** An NRQL string literal written by hand: backslash and quote escaped with a backslash. */
const lit = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** The same literal with the quote doubled instead (only for texts without backslashes). */
const doubled = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** A backtick name: a backtick inside is doubled. */
const bt = (name: string) => `\`${name.replace(/`/g, '``')}\``;
/** A raw regex literal matching exactly `text`: regex syntax characters escaped, quotes doubled. */
const rx = (text: string) => `r'${text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&').replace(/'/g, "''")}'`;

/** The tables whose rows the test counts before and after (timeslices: all three tables, as compaction moves rows). */
const COUNTED = ['x', 'transaction_events', 'custom_events', 'applications', 'hosts', 'accounts', 'api_keys', 'metric_names'];
const TIMESLICE_TABLES = ['timeslices', 'timeslices_compacted', 'timeslices_daily'];

describe('NRQL: hostile text in every identifier and literal is data or an NRQL error', () => {
  const clock = new ManualClock(NOW);
  let ts: TestServer;
  let tablesBefore: string[];
  let countsBefore: Record<string, number>;

  const tableNames = async () => (await ts.server.db.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1")).map((r) => r.name);
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const table of COUNTED) out[table] = Number((await ts.server.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    out.timeslices = 0;
    for (const table of TIMESLICE_TABLES) out.timeslices += Number((await ts.server.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    return out;
  };

  const post = async (agent: AgentHandle, method: string, body: unknown) => {
    const reply = await invoke(ts.server, { query: agentQuery(method, TEST_LICENSE_KEY, agent.runId), body });
    assert.equal(reply.status, 200, `${method}: ${reply.text}`);
  };
  const transactions = (agent: AgentHandle, events: readonly [number, Record<string, unknown>][]) =>
    post(agent, 'analytic_event_data', [agent.runId, { reservoir_size: 100, events_seen: events.length }, events.map(([timestamp, user]) => [
      { type: 'Transaction', timestamp, name: 'WebTransaction/Controller/inject', duration: 0.1, error: false }, user, {},
    ])]);

  before(async () => {
    ts = await startTestServer({}, { clock });
    await ts.server.db.catalogConnection.run("CREATE TABLE x (id INTEGER, note VARCHAR); INSERT INTO x VALUES (1, 'one'), (2, 'two'), (3, 'three')");

    const agent = await connectApp(ts, 'inject', 'h1');
    // Event i: note and an attribute named after payload i; one more event with every odd name.
    await transactions(agent, [
      ...PAYLOADS.map((p, i): [number, Record<string, unknown>] => [BEGIN + 1000 * (i + 1), { note: p, idx: i, [p]: 'hit' }]),
      [BEGIN + 100_000, { idx: 100, ...Object.fromEntries(ODD_NAMES.map((name, n) => [name, `val-${n}`])) }],
    ]);
    // A custom event type named after each payload.
    await post(agent, 'custom_event_data', [agent.runId, PAYLOADS.map((p, i) => [{ type: p, timestamp: BEGIN + 1000 * (i + 1) }, { idx: i }])]);
    // A metric named after each payload (i + 1 calls), and Datastore/all scoped to each (10 + i calls).
    await sendMetrics(ts, agent.runId, BEGIN, BEGIN + 60_000, PAYLOADS.flatMap((p, i) => [
      [p, '', [i + 1, 1, 1, 0.1, 0.2, 0.05]] as const,
      ['Datastore/all', p, [10 + i, 1, 1, 0.1, 0.2, 0.05]] as const,
    ]));
    // An application and a host named after payloads.
    const hostile = await connectApp(ts, PAYLOADS[0]!, PAYLOADS[1]!);
    await transactions(hostile, [[BEGIN + 120_000, { idx: 200 }]]);

    tablesBefore = await tableNames();
    countsBefore = await counts();
  });
  after(() => ts?.stop());

  /** The route's answer; anything but 200 must be a 400 carrying an NRQL error code. */
  async function nrql(query: string): Promise<{ status: number; body: any }> {
    const res = await ts.server.api.inject({
      method: 'POST', url: '/timeslice/v1/nrql', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, payload: JSON.stringify({ query }),
    });
    const body = JSON.parse(res.body);
    if (res.statusCode !== 200) {
      assert.equal(res.statusCode, 400, `${query}\n→ ${res.statusCode} ${res.body}`);
      assert.match(body.error?.code ?? '', /^NRQL_[A-Z_]+$/, `${query}\n→ ${res.body}`);
    }
    return { status: res.statusCode, body };
  }

  async function results(query: string): Promise<unknown[]> {
    const { status, body } = await nrql(query);
    assert.equal(status, 200, `${query}\n→ ${JSON.stringify(body)}`);
    return body.results;
  }

  async function refused(query: string, code: string): Promise<void> {
    const { status, body } = await nrql(query);
    assert.equal(status, 400, `${query}\n→ ${JSON.stringify(body)}`);
    assert.equal(body.error.code, code, query);
  }

  PAYLOADS.forEach((p, i) => {
    const time = BEGIN + 1000 * (i + 1);
    describe(`payload ${i}: ${p}`, () => {
      it('string literals in = (both quote escapes), IN, NOT IN, LIKE and RLIKE find exactly its event', async () => {
        assert.deepEqual(await results(`SELECT count(*), latest(idx) FROM Transaction WHERE note = ${lit(p)} ${W}`), [{ count: 1, 'latest.idx': i }]);
        if (!p.includes('\\')) assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE note = ${doubled(p)} ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE note IN (${lit(p)}, 'zzz') ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE note NOT IN (${lit(p)}) ${W}`), [{ count: PAYLOADS.length - 1 }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE note LIKE ${lit(p)} AND idx = ${i} ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE note RLIKE ${rx(p)} ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE eventType() = ${lit(p)} ${W}`), [{ count: 0 }]);
      });

      it('a backtick attribute name reads the JSON attribute of that name in WHERE, SELECT, FACET, ORDER BY and aggregates', async () => {
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE ${bt(p)} = 'hit' ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT ${bt(p)}, \`idx\` FROM Transaction WHERE idx = ${i} ORDER BY ${bt(p)} ${W}`), [{ timestamp: time, [p]: 'hit', idx: i }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction FACET ${bt(p)} ${W}`), [{ facet: 'hit', [p]: 'hit', count: 1 }]);
        assert.deepEqual(await results(`SELECT uniques(${bt(p)}), uniqueCount(${bt(p)}) FROM Transaction ${W}`), [{ [`uniques.${p}`]: ['hit'], [`uniqueCount.${p}`]: 1 }]);
      });

      it('a backtick event type reads the custom events of that type', async () => {
        assert.deepEqual(await results(`SELECT count(*) FROM ${bt(p)} ${W}`), [{ count: 1 }]);
        assert.deepEqual(await results(`SELECT idx FROM ${bt(p)} ${W}`), [{ timestamp: time, idx: i }]);
        // One event of each type: a tie, in an order the reference leaves open.
        const byType = (await results(`SELECT count(*) FROM Transaction, ${bt(p)} WHERE idx = ${i} FACET eventType() ${W}`)) as { facet: string }[];
        assert.deepEqual(byType.sort((a, b) => (a.facet < b.facet ? -1 : 1)), [
          { facet: 'Transaction', eventType: 'Transaction', count: 1 },
          { facet: p, eventType: p, count: 1 },
        ].sort((a, b) => (a.facet < b.facet ? -1 : 1)));
      });

      it('aliases and FACET CASES labels are result keys and values, nothing else', async () => {
        assert.deepEqual(await results(`SELECT count(*) AS ${lit(p)}, max(idx) AS ${bt(p + 'm')} FROM Transaction WHERE idx = ${i} ${W}`), [{ [p]: 1, [`${p}m`]: i }]);
        assert.deepEqual(await results(`SELECT count(*) FROM Transaction FACET CASES (WHERE idx = ${i} AS ${lit(p)}) ${W}`), [{ facet: p, count: 1 }]);
      });

      it('metric and scope names are found as names; the value has no field of that name', async () => {
        assert.deepEqual(await results(`SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = ${lit(p)} ${W}`), [{ calls: i + 1 }]);
        assert.deepEqual(await results(`SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName IN (${lit(p)}) ${W}`), [{ calls: i + 1 }]);
        assert.deepEqual(await results(`SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName RLIKE ${rx(p)} ${W}`), [{ calls: i + 1 }]);
        assert.deepEqual(await results(`SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE scope = ${lit(p)} ${W}`), [{ calls: 10 + i }]);
        await refused(`SELECT average(newrelic.timeslice.value[${lit(p)}]) FROM Metric ${W}`, 'NRQL_INVALID_EXPRESSION');
        await refused(`SELECT sum(getField(newrelic.timeslice.value, ${lit(p)})) FROM Metric ${W}`, 'NRQL_INVALID_EXPRESSION');
      });

      it('time zones and date-time texts are refused as times', async () => {
        await refused(`SELECT count(*) FROM Transaction ${W} WITH TIMEZONE ${lit(p)}`, 'NRQL_BAD_TIME');
        await refused(`SELECT count(*) FROM Transaction SINCE ${lit(p)}`, 'NRQL_BAD_TIME');
        await refused(`SELECT count(*) FROM Transaction SINCE today AT ${lit(p)}`, 'NRQL_BAD_TIME');
      });

      it('written without escaping, wherever it lands, it is an answer or an NRQL error', async () => {
        const raw = [
          `SELECT count(*) FROM Transaction WHERE note = '${p}' ${W}`,
          `SELECT count(*) FROM Transaction WHERE note IN ('${p}') ${W}`,
          `SELECT count(*) FROM Transaction WHERE note LIKE '${p}' ${W}`,
          `SELECT count(*) FROM Transaction WHERE note RLIKE r'${p}' ${W}`,
          `SELECT count(*) FROM Transaction WHERE note RLIKE '${p}' ${W}`,
          `SELECT count(*) FROM \`${p}\` ${W}`,
          `SELECT \`${p}\` FROM Transaction ${W}`,
          `SELECT count(*) AS '${p}' FROM Transaction ${W}`,
          `SELECT count(*) FROM Transaction FACET CASES (WHERE idx = 1 AS '${p}') ${W}`,
          `SELECT count(*) FROM Transaction ${W} WITH TIMEZONE '${p}'`,
          `SELECT count(*) FROM Transaction WHERE note = "${p}" ${W}`,
          `SELECT count(*) FROM Transaction WHERE note = ${p} ${W}`,
          `SELECT count(*) FROM Transaction ${p}`,
          `SELECT count(*) FROM Metric WHERE metricTimesliceName = '${p}' ${W}`,
          `SELECT count(*) FROM Transaction WHERE appName = '${p}' ${W}`,
        ];
        for (const query of raw) await nrql(query);
      });
    });
  });

  it('application and host names holding payloads are matched as names', async () => {
    const [app, host] = [PAYLOADS[0]!, PAYLOADS[1]!];
    assert.deepEqual(await results(`SELECT count(*), latest(idx) FROM Transaction WHERE appName = ${lit(app)} ${W}`), [{ count: 1, 'latest.idx': 200 }]);
    assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE appName LIKE ${lit(app)} ${W}`), [{ count: 1 }]);
    assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE appName RLIKE ${rx(app)} ${W}`), [{ count: 1 }]);
    assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE appName IN (${lit(app)}) ${W}`), [{ count: 1 }]);
    assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE host = ${lit(host)} ${W}`), [{ count: 1 }]);
    assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE appName = ${lit(app)} FACET host ${W}`), [{ facet: host, host, count: 1 }]);
  });

  it('JSON attribute names with quotes, dots, brackets and backslashes are read by their whole name', async () => {
    for (const [n, name] of ODD_NAMES.entries()) {
      assert.deepEqual(await results(`SELECT count(*) FROM Transaction WHERE ${bt(name)} = 'val-${n}' ${W}`), [{ count: 1 }], name);
      assert.deepEqual(await results(`SELECT ${bt(name)} FROM Transaction WHERE idx = 100 ${W}`), [{ timestamp: BEGIN + 100_000, [name]: `val-${n}` }], name);
      assert.deepEqual(await results(`SELECT count(*) FROM Transaction FACET ${bt(name)} ${W}`), [{ facet: `val-${n}`, [name]: `val-${n}`, count: 1 }], name);
    }
  });

  it('afterwards table x and every store table are there with all their rows', async () => {
    assert.deepEqual(await ts.server.db.all('SELECT id, note FROM x ORDER BY id'), [{ id: 1, note: 'one' }, { id: 2, note: 'two' }, { id: 3, note: 'three' }]);
    const tables = await tableNames();
    for (const table of tablesBefore) assert.ok(tables.includes(table), `table ${table} is gone`);
    assert.deepEqual(await counts(), countsBefore);
    assert.equal(countsBefore.transaction_events, PAYLOADS.length + 2);
    assert.equal(countsBefore.custom_events, PAYLOADS.length);
    assert.equal(countsBefore.timeslices, 2 * PAYLOADS.length);
  });
});
