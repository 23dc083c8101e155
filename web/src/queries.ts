/**
 * The NRQL behind every chart and table (the design brief's §5.3). Each builder returns the exact
 * text sent and shown. `V` is the timeslice value; the window is absolute (time.ts).
 */
import { bucketFor, windowClause, type Window } from './time.js';

export const V = 'newrelic.timeslice.value';

export type TxType = 'web' | 'other';

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const series = (w: Window) => `${windowClause(w)} TIMESERIES ${bucketFor(w)}`;
const names = (type: TxType) => type === 'web'
  ? { total: 'WebTransactionTotalTime', calls: 'HttpDispatcher', datastore: 'Datastore/allWeb', external: 'External/allWeb', prefix: 'WebTransaction/' }
  : { total: 'OtherTransactionTotalTime', calls: 'OtherTransaction/all', datastore: 'Datastore/allOther', external: 'External/allOther', prefix: 'OtherTransaction/' };

export type Compare = '' | '1d' | '1w';
const compareClause = (c: Compare) => (c === '1d' ? ' COMPARE WITH 1 day ago' : c === '1w' ? ' COMPARE WITH 1 week ago' : '');

const LANGUAGE: Record<string, string> = { nodejs: 'Node.js', java: 'Java', python: 'Python', ruby: 'Ruby', php: 'PHP', dotnet: '.NET', go: 'Go' };
export const languageLabel = (language: string | undefined) => LANGUAGE[language ?? ''] ?? 'Application';

/** S1: time per request by segment, and the response-time line (HttpDispatcher + queuing). */
export function transactionTime(app: number, type: TxType, language: string, w: Window, compare: Compare = ''): string {
  const n = names(type);
  const per = `filter(count(${V}), WHERE metricTimesliceName = ${q(n.calls)})`;
  const sum = (name: string) => `filter(sum(${V}), WHERE metricTimesliceName = ${q(name)})`;
  const lines = [
    `(${sum(n.total)} - ${sum(n.datastore)} - ${sum(n.external)}) * 1000 / ${per} AS ${q(languageLabel(language))}`,
    `${sum(n.datastore)} * 1000 / ${per} AS 'Database'`,
    `${sum(n.external)} * 1000 / ${per} AS 'Web external'`,
  ];
  const names_ = [n.calls, n.total, n.datastore, n.external];
  if (type === 'web') {
    lines.push(`${sum('WebFrontend/QueueTime')} * 1000 / ${per} AS 'Request queuing'`);
    lines.push(`filter(sum(${V}), WHERE metricTimesliceName IN ('HttpDispatcher', 'WebFrontend/QueueTime')) * 1000 / ${per} AS 'Response time'`);
    names_.push('WebFrontend/QueueTime');
  } else {
    lines.push(`${sum(n.calls)} * 1000 / ${per} AS 'Response time'`);
  }
  return `FROM Metric SELECT ${lines.join(', ')} WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName IN (${names_.map(q).join(', ')}) ${series(w)}${compareClause(compare)}`;
}

/** S2: Apdex of the app server and of end users, and Apdex T (the threshold line). */
export function apdex(app: number, w: Window): string {
  return `FROM Metric SELECT filter(apdex(${V}), WHERE metricTimesliceName = 'Apdex') AS 'App server', `
    + `filter(apdex(${V}), WHERE metricTimesliceName = 'EndUser/Apdex') AS 'End user', `
    + `filter(max(${V}), WHERE metricTimesliceName = 'Apdex') AS 'Apdex T' `
    + `WHERE appId = ${app} AND metricTimesliceName IN ('Apdex', 'EndUser/Apdex') ${series(w)}`;
}

/** S3: requests per minute. */
export function throughput(app: number, type: TxType, w: Window, compare: Compare = '', host?: string): string {
  const label = type === 'web' ? 'Web throughput' : 'Non-web throughput';
  return `FROM Metric SELECT rate(count(${V}), 1 minute) AS ${q(label)} WHERE appId = ${app} AND metricTimesliceName = ${q(names(type).calls)} AND scope IS NULL${hostClause(host)} ${series(w)}${compareClause(compare)}`;
}

/** S4: REST's error_rate: errors over all transactions, in percent. */
export function errorRate(app: number, w: Window, compare: Compare = '', host?: string): string {
  return `FROM Metric SELECT filter(count(${V}), WHERE metricTimesliceName = 'Errors/all') * 100 / `
    + `filter(count(${V}), WHERE metricTimesliceName IN ('HttpDispatcher', 'OtherTransaction/all')) AS 'Error rate' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName IN ('Errors/all', 'HttpDispatcher', 'OtherTransaction/all')${hostClause(host)} ${series(w)}${compareClause(compare)}`;
}

const hostClause = (host?: string) => (host ? ` AND host = ${q(host)}` : '');

/** S5: top transactions by time consumed (ranked by the sum: a FACET is ranked by row count otherwise). */
export function topTransactions(app: number, type: TxType, w: Window, limit = 5): string {
  return `FROM Metric SELECT sum(${V}) * 1000 AS 'Time consumed (ms)', average(${V}) * 1000 AS 'Avg (ms)', rate(count(${V}), 1 minute) AS 'rpm' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName LIKE ${q(names(type).prefix + '%')} `
    + `FACET metricTimesliceName ORDER BY sum(${V}) LIMIT ${limit} ${windowClause(w)}`;
}

/** The top transactions' time over the window. */
export function topTransactionsSeries(app: number, type: TxType, w: Window): string {
  return `FROM Metric SELECT sum(${V}) * 1000 AS 'Time consumed (ms)' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName LIKE ${q(names(type).prefix + '%')} `
    + `FACET metricTimesliceName ORDER BY sum(${V}) LIMIT 5 ${series(w)}`;
}

/** The full transactions table. */
export function transactionTable(app: number, type: TxType, w: Window): string {
  return `FROM Metric SELECT count(${V}) AS 'Count', average(${V}) * 1000 AS 'Avg (ms)', stddev(${V}) * 1000 AS 'SD (ms)', `
    + `min(${V}) * 1000 AS 'Min (ms)', max(${V}) * 1000 AS 'Max (ms)', sum(${V}) * 1000 AS 'Total (ms)' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName LIKE ${q(names(type).prefix + '%')} `
    + `FACET metricTimesliceName ORDER BY sum(${V}) LIMIT 100 ${windowClause(w)}`;
}

/** One transaction's segments (the metrics scoped to it). */
export function breakdown(app: number, txn: string, w: Window): string {
  return `FROM Metric SELECT average(${V}, exclusiveTime: true) * 1000 AS 'Avg exclusive (ms)', sum(${V}) * 1000 AS 'Total (ms)', count(${V}) AS 'Calls' `
    + `WHERE appId = ${app} AND scope = ${q(txn)} FACET metricTimesliceName ORDER BY sum(${V}) LIMIT 50 ${windowClause(w)}`;
}

/** One transaction's duration percentiles, from the sampled Transaction events. */
export function percentiles(appName: string, txn: string, w: Window): string {
  return `FROM Transaction SELECT percentile(duration, 50, 95, 99), count(*) WHERE appName = ${q(appName)} AND name = ${q(txn)} ${series(w)}`;
}

/** S6: one row per host. */
export function hosts(app: number, w: Window): string {
  return `FROM Metric SELECT filter(apdex(${V}), WHERE metricTimesliceName = 'Apdex') AS 'Apdex', `
    + `filter(average(${V}), WHERE metricTimesliceName = 'HttpDispatcher') * 1000 AS 'Response time (ms)', `
    + `filter(rate(count(${V}), 1 minute), WHERE metricTimesliceName = 'HttpDispatcher') AS 'Throughput (rpm)', `
    + `filter(count(${V}), WHERE metricTimesliceName = 'Errors/all') * 100 / filter(count(${V}), WHERE metricTimesliceName IN ('HttpDispatcher', 'OtherTransaction/all')) AS 'Error rate (%)', `
    + `filter(rate(sum(${V}), 1 second), WHERE metricTimesliceName = 'CPU/User Time') * 100 AS 'CPU (%)', `
    + `filter(average(${V}), WHERE metricTimesliceName = 'Memory/Physical') AS 'Memory (MB)' `
    + `WHERE appId = ${app} AND scope IS NULL FACET host LIMIT 100 ${windowClause(w)}`;
}

/** S7: deployments in the window (markers and the list). */
export function deployments(app: number, w: Window): string {
  return `FROM ChangeTrackingEvent SELECT timestamp, version, user, description, changelog, deploymentId WHERE category = 'Deployment' AND appId = ${app} ${windowClause(w)} LIMIT 100`;
}

/** Databases: the top operations by time, and the datastore response time and throughput. */
export function databaseOperations(app: number, w: Window, timeseries: boolean): string {
  return `FROM Metric SELECT sum(${V}) * 1000 AS 'Time consumed (ms)', average(${V}) * 1000 AS 'Avg (ms)', rate(count(${V}), 1 minute) AS 'cpm' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName LIKE 'Datastore/operation/%' FACET metricTimesliceName ORDER BY sum(${V}) LIMIT ${timeseries ? 5 : 50} ${timeseries ? series(w) : windowClause(w)}`;
}

export function datastoreTotals(app: number, w: Window): string {
  return `FROM Metric SELECT average(${V}) * 1000 AS 'Response time (ms)', rate(count(${V}), 1 minute) AS 'Throughput (cpm)' `
    + `WHERE appId = ${app} AND scope IS NULL AND metricTimesliceName = 'Datastore/all' ${series(w)}`;
}

/** External services by host. */
export function externals(app: number, w: Window, timeseries: boolean): string {
  return `FROM Metric SELECT average(${V}) * 1000 AS 'Avg (ms)', rate(count(${V}), 1 minute) AS 'cpm' `
    + `WHERE appId = ${app} AND metricTimesliceName LIKE 'External/%/all' AND metricTimesliceName NOT IN ('External/all', 'External/allWeb', 'External/allOther') AND scope IS NULL `
    + `FACET metricTimesliceName ORDER BY sum(${V}) LIMIT 10 ${timeseries ? series(w) : windowClause(w)}`;
}

/** Errors by class over time, by class and transaction, and the latest occurrences. */
export function errorClassesSeries(appName: string, w: Window): string {
  return `FROM TransactionError SELECT count(*) WHERE appName = ${q(appName)} FACET error.class LIMIT 10 ${series(w)}`;
}

export function errorClasses(appName: string, w: Window): string {
  return `FROM TransactionError SELECT count(*) WHERE appName = ${q(appName)} FACET error.class, transactionName LIMIT 20 ${windowClause(w)}`;
}

export function recentErrors(appName: string, w: Window): string {
  return `FROM TransactionError SELECT timestamp, error.class, error.message, transactionName WHERE appName = ${q(appName)} ${windowClause(w)} LIMIT 100`;
}

export const quoteNrql = q;
