/**
 * The query texts of the NRQL reference (`nrql.md`): the worked examples E1–E36 of §7, with
 * their window abbreviations `W` and `V` written out, and the query patterns of §5.3. Parser
 * tests and the parser benchmark both read them, so they are transcribed once.
 */
const W = 'SINCE 1754899980000 UNTIL 1754900160000';
const V = 'SINCE 1754899980000 UNTIL 1754900100000';

export interface NrqlExample {
  readonly id: string;
  readonly text: string;
}

export const NRQL_WORKED_EXAMPLES: readonly NrqlExample[] = [
  { id: 'E1', text: `SELECT count(*) FROM Transaction ${W}` },
  { id: 'E2', text: `SELECT average(duration), min(duration), max(duration), sum(duration) FROM Transaction ${W}` },
  { id: 'E3', text: `SELECT count(*) AS 'Total', uniqueCount(host) AS hosts FROM Transaction ${W}` },
  { id: 'E4', text: `SELECT count(*) / uniqueCount(host) AS 'perHost' FROM Transaction ${W}` },
  { id: 'E5', text: `SELECT uniqueCount(host), uniques(host) FROM Transaction ${W}` },
  { id: 'E6', text: `SELECT latest(duration), earliest(duration) FROM Transaction ${W}` },
  { id: 'E7', text: `SELECT percentile(duration, 50, 95) FROM Transaction ${W}` },
  { id: 'E8', text: `SELECT percentage(count(*), WHERE error IS TRUE) AS 'errorPct' FROM Transaction ${W}` },
  { id: 'E9', text: `SELECT filter(count(*), WHERE appName = 'search') AS 'searchCalls', count(*) AS 'all' FROM Transaction ${W}` },
  { id: 'E10', text: `SELECT rate(count(*), 1 minute) AS 'rpm' FROM Transaction ${W}` },
  { id: 'E11', text: `SELECT apdex(duration, t: 0.5) AS 'apdex' FROM Transaction ${W}` },
  { id: 'E12', text: `SELECT count(*) FROM Transaction WHERE duration > 0.12 AND appName LIKE 'check%' ${W}` },
  { id: 'E13', text: `SELECT count(*) FROM Transaction WHERE appName LIKE 'CHECKOUT' ${W}` },
  { id: 'E14', text: `SELECT count(*) FROM Transaction WHERE name NOT LIKE '%cart%' AND httpResponseCode NOT IN ('500', '503') ${W}` },
  { id: 'E15a', text: `SELECT count(*) FROM Transaction WHERE appName RLIKE r'ch.*' ${W}` },
  { id: 'E15b', text: `SELECT count(*) FROM Transaction WHERE appName RLIKE r'heck' ${W}` },
  { id: 'E16a', text: `SELECT count(*) FROM Transaction WHERE (host != 'h3' OR duration < 0.1) AND userId IS NULL ${W}` },
  { id: 'E16b', text: `SELECT count(*) FROM Transaction WHERE error IS TRUE ${W}` },
  { id: 'E17', text: `SELECT count(*) FROM Transaction FACET appName ${W}` },
  { id: 'E18', text: `SELECT average(duration), count(*) FROM Transaction FACET appName LIMIT 1 ${W}` },
  { id: 'E19', text: `SELECT count(*) FROM Transaction FACET appName, host ${W}` },
  { id: 'E20', text: `SELECT count(*) FROM Transaction FACET CASES (WHERE duration < 0.2 AS 'fast', WHERE duration >= 0.2 AS 'slow') ${W}` },
  { id: 'E21', text: `SELECT count(*), average(duration) FROM Transaction TIMESERIES 1 minute ${W}` },
  { id: 'E22', text: `SELECT rate(count(*), 1 second) AS 'rps' FROM Transaction TIMESERIES 1 minute ${W}` },
  { id: 'E23', text: `SELECT max(duration) FROM Transaction FACET appName TIMESERIES 1 minute LIMIT 1 ${W}` },
  { id: 'E24', text: `SELECT * FROM Transaction LIMIT 2 ${W}` },
  { id: 'E25', text: `SELECT appName, duration FROM Transaction ORDER BY duration DESC LIMIT 2 ${W}` },
  { id: 'E26', text: "from Transaction select COUNT(*) timeseries 1 MINUTE where appName = 'search' since 1754899980000 until 1754900160000" },
  { id: 'E27a', text: `SELECT count(*) FROM Transaction FACET \`Logged-in user\` ${W}` },
  { id: 'E27b', text: `SELECT count(*) FROM Transaction WHERE APPNAME = 'search' ${W}` },
  {
    id: 'E28',
    text: "SELECT eventType(), deploymentId OR changeTrackingId AS 'id', * FROM ChangeTrackingEvent, Deployment WHERE entity.guid = 'NDEwMDEyM3xBUE18QVBQTElDQVRJT058NzcwMDE' SINCE 1 week ago LIMIT 100",
  },
  {
    id: 'E29',
    text: `SELECT count(newrelic.timeslice.value) AS call_count, average(newrelic.timeslice.value) * 1000 AS average_call_time FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'HttpDispatcher' ${V}`,
  },
  {
    id: 'E30',
    text: `SELECT count(newrelic.timeslice.value) AS call_count, average(newrelic.timeslice.value) * 1000 AS average_call_time FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'HttpDispatcher' TIMESERIES 1 minute ${V}`,
  },
  {
    id: 'E31',
    text: `SELECT rate(count(newrelic.timeslice.value), 1 minute) AS cpm, min(newrelic.timeslice.value) * 1000 AS min_ms, max(newrelic.timeslice.value) * 1000 AS max_ms, stddev(newrelic.timeslice.value) * 1000 AS sd_ms FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'HttpDispatcher' ${V}`,
  },
  {
    id: 'E32',
    text: `SELECT average(newrelic.timeslice.value['totalExclusive'] / newrelic.timeslice.value['count']) * 1000 AS per_point, average(newrelic.timeslice.value, exclusiveTime: true) * 1000 AS pooled FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'HttpDispatcher' ${V}`,
  },
  { id: 'E33', text: `SELECT apdex(newrelic.timeslice.value) AS score FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'Apdex' ${V}` },
  { id: 'E34', text: `SELECT uniques(metricTimesliceName) FROM Metric WHERE appId = 77001 AND newrelic.timeslice.value IS NOT NULL ${V} LIMIT MAX` },
  {
    id: 'E35',
    text: `SELECT filter(1000 * average(newrelic.timeslice.value), WHERE metricTimesliceName = 'HttpDispatcher') AS average_response_time, filter(count(newrelic.timeslice.value), WHERE metricTimesliceName = 'Errors/all') AS error_count FROM Metric WHERE appName = 'billing-api' ${V}`,
  },
  { id: 'E36', text: `SELECT count(newrelic.timeslice.value) FROM Metric WHERE appId = 77001 FACET metricTimesliceName ${V}` },
];

/** §5.3: the timeslice query patterns of New Relic's docs and migration guide. */
export const NRQL_PATTERN_QUERIES: readonly NrqlExample[] = [
  {
    id: 'P1',
    text: 'SELECT uniques(metricTimesliceName) FROM Metric\n  WHERE appId = 77001 AND newrelic.timeslice.value IS NOT NULL SINCE 30 minutes ago LIMIT MAX',
  },
  {
    id: 'P2',
    text: "SELECT count(newrelic.timeslice.value) AS call_count, average(newrelic.timeslice.value) * 1000 AS average_call_time\n  FROM Metric WHERE appId = 77001 AND metricTimesliceName = 'HttpDispatcher' SINCE 30 minutes ago TIMESERIES",
  },
  {
    id: 'P3',
    text: "SELECT filter(1000 * average(newrelic.timeslice.value), WHERE metricTimesliceName = 'HttpDispatcher') AS average_response_time,\n       filter(count(newrelic.timeslice.value), WHERE metricTimesliceName = 'Errors/all') AS error_count\n  FROM Metric WHERE appName = 'billing-api' SINCE 1 day ago",
  },
  {
    id: 'P4',
    text: "FROM Metric SELECT average(newrelic.timeslice.value, exclusiveTime: true)\n  WHERE appName = 'billing-api' AND scope = 'Controller/users/show' LIMIT 20 FACET metricTimesliceName TIMESERIES SINCE 3 days ago",
  },
  {
    id: 'P5',
    text: "FROM Metric SELECT count(newrelic.timeslice.value) WHERE appName = 'billing-api'\n  WITH METRIC_FORMAT 'Custom/Labels/{action}' TIMESERIES FACET action",
  },
];
