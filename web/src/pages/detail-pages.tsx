import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { restGet } from '../api.js';
import * as Q from '../queries.js';
import { cellText, ErrorState, NrqlChart, NrqlTable, RowsTable, useTimeParams, useUrlParams, useWindow } from '../ui.js';
import type { AppInfo } from './app-shell.js';
import { useDeploymentMarkers } from './summary.js';
import { ErrorTraces } from './traces.js';

const txType = (params: URLSearchParams): Q.TxType => (params.get('type') === 'other' ? 'other' : 'web');

export function TransactionsPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window } = useWindow();
  const [params, set] = useUrlParams();
  const type = txType(params);
  const name = params.get('name');
  const markers = useDeploymentMarkers(app.id);
  const time = useTimeParams();
  return (
    <>
      <div className="controls">
        <label>Type <select value={type} onChange={(e: any) => set({ type: e.target.value === 'other' ? 'other' : null, name: null })}>
          <option value="web">Web</option><option value="other">Non-web</option></select></label>
        {name ? <Link href={`/apm/${app.id}/transactions${time ? `?${time}` : ''}`}>All transactions</Link> : null}
      </div>
      {name ? (
        <>
          <h3 className="subject" data-testid="transaction-name">{name}</h3>
          <div className="grid">
            <NrqlTable id="breakdown" title="Breakdown (segments in this transaction)" nrql={Q.breakdown(app.id, name, window)} columns={[
              { key: 'facet', label: 'Segment' }, { key: 'Avg exclusive (ms)' }, { key: 'Total (ms)' }, { key: 'Calls' }]}
              empty="No segment metrics were reported for this transaction in this time range." />
            <NrqlChart id="percentiles" title="Duration percentiles (s, from sampled transactions)" kind="line" unit="s" nrql={Q.percentiles(app.name, name, window)} markers={markers}
              rightAxis={{ series: ['count'], label: 'count' }} />
          </div>
        </>
      ) : (
        <>
          <NrqlChart id="top-series" title="Top 5 transactions by time consumed (ms)" kind="area" unit="ms" nrql={Q.topTransactionsSeries(app.id, type, window)} markers={markers} />
          <NrqlTable id="transactions" title="Transactions" nrql={Q.transactionTable(app.id, type, window)} columns={[
            { key: 'facet', label: 'Transaction', render: (r) => <Link href={`/apm/${app.id}/transactions?name=${encodeURIComponent(r.facet)}${time ? `&${time}` : ''}`}>{r.facet}</Link> },
            { key: 'Count' }, { key: 'Avg (ms)' }, { key: 'SD (ms)' }, { key: 'Min (ms)' }, { key: 'Max (ms)' }, { key: 'Total (ms)' }]} />
        </>
      )}
    </>
  );
}

export function DatabasesPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window } = useWindow();
  const empty = 'No database calls in this time range. The agent reports them when the app uses an instrumented datastore client.';
  return (
    <>
      <div className="grid">
        <NrqlChart id="db-top" title="Top 5 operations by time consumed (ms)" kind="area" unit="ms" nrql={Q.databaseOperations(app.id, window, true)} empty={empty} />
        <NrqlChart id="db-totals" title="Database response time and throughput" kind="line" nrql={Q.datastoreTotals(app.id, window)} empty={empty} />
      </div>
      <NrqlTable id="db-ops" title="Operations" nrql={Q.databaseOperations(app.id, window, false)} empty={empty}
        columns={[{ key: 'facet', label: 'Operation' }, { key: 'Time consumed (ms)' }, { key: 'Avg (ms)' }, { key: 'cpm' }]} />
    </>
  );
}

export function ExternalsPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window } = useWindow();
  const empty = 'No external calls in this time range.';
  return (
    <>
      <NrqlChart id="ext-series" title="External services: response time (ms)" kind="line" unit="ms" nrql={Q.externals(app.id, window, true)} empty={empty} />
      <NrqlTable id="ext" title="External services" nrql={Q.externals(app.id, window, false)} empty={empty}
        columns={[{ key: 'facet', label: 'Service' }, { key: 'Avg (ms)' }, { key: 'cpm' }]} />
    </>
  );
}

export function ErrorsPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window } = useWindow();
  const markers = useDeploymentMarkers(app.id);
  return (
    <>
      <div className="grid">
        <NrqlChart id="error-rate" title="Error rate (%)" kind="line" unit="%" nrql={Q.errorRate(app.id, window)} markers={markers} />
        <NrqlChart id="error-classes" title="Errors by class" kind="line" nrql={Q.errorClassesSeries(app.name, window)} markers={markers} empty="No errors in this time range." />
      </div>
      <NrqlTable id="error-groups" title="Errors by class and transaction" nrql={Q.errorClasses(app.name, window)} empty="No errors in this time range."
        columns={[{ key: 'facet', label: 'Class, transaction' }, { key: 'count' }]} />
      <NrqlTable id="recent-errors" title="Recent errors" nrql={Q.recentErrors(app.name, window)} empty="No errors in this time range."
        columns={[{ key: 'timestamp', render: (r) => new Date(Number(r.timestamp)).toISOString() }, { key: 'error.class', label: 'Class' },
          { key: 'error.message', label: 'Message' }, { key: 'transactionName', label: 'Transaction' }]} />
      <ErrorTraces appId={app.id} />
    </>
  );
}

export function HostsPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window } = useWindow();
  const [params, set] = useUrlParams();
  const host = params.get('host') ?? undefined;
  const { data: hostList, error } = useQuery({ queryKey: ['rest', 'hosts', app.id], queryFn: () => restGet(`/v2/applications/${app.id}/hosts.json`) });
  const hosts = (hostList?.application_hosts ?? []) as any[];
  const markers = useDeploymentMarkers(app.id);
  return (
    <>
      {error ? <ErrorState error={error} /> : null}
      <div className="controls">
        <label>Host <select data-testid="host" value={host ?? ''} onChange={(e: any) => set({ host: e.target.value || null })}>
          <option value="">All hosts</option>{hosts.map((h) => <option key={h.id} value={h.host}>{h.host}</option>)}</select></label>
      </div>
      <div className="grid">
        <NrqlChart id="host-throughput" title="Throughput (rpm)" kind="line" unit="rpm" nrql={Q.throughput(app.id, 'web', window, '', host)} markers={markers} />
        <NrqlChart id="host-errors" title="Error rate (%)" kind="line" unit="%" nrql={Q.errorRate(app.id, window, '', host)} markers={markers} />
      </div>
      <NrqlTable id="host-table" title="Hosts" nrql={Q.hosts(app.id, window)} columns={[
        { key: 'facet', label: 'Host' }, { key: 'Apdex', render: (r) => cellText(r.Apdex?.score ?? null) }, { key: 'Response time (ms)' }, { key: 'Throughput (rpm)' },
        { key: 'Error rate (%)' }, { key: 'CPU (%)' }, { key: 'Memory (MB)' }]} />
      <section className="panel">
        <header><h3>Hosts (REST v2, last 10 minutes)</h3><span className="note">GET /v2/applications/{app.id}/hosts.json</span></header>
        <RowsTable rows={hosts.map((h) => ({ host: h.host, ...h.application_summary }))} columns={[{ key: 'host' }, { key: 'response_time' }, { key: 'throughput' },
          { key: 'error_rate' }, { key: 'apdex_score' }, { key: 'instance_count' }]} empty="No host has reported." />
      </section>
    </>
  );
}

export function DeploymentsPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { data, error, isPending } = useQuery({ queryKey: ['rest', 'deployment-list', app.id], queryFn: () => restGet(`/v2/applications/${app.id}/deployments.json`) });
  return (
    <section className="panel" data-state={error ? 'error' : isPending ? 'loading' : 'ready'}>
      <header><h3>Deployments</h3><span className="note">GET /v2/applications/{app.id}/deployments.json</span></header>
      {error ? <ErrorState error={error} /> : null}
      {isPending ? <div className="loading">Loading…</div> : null}
      {data ? <RowsTable rows={data.deployments} columns={[{ key: 'timestamp' }, { key: 'revision' }, { key: 'user' }, { key: 'description' }, { key: 'changelog' }]}
        empty="No deployments recorded. Record one with POST /v2/applications/{id}/deployments.json or the graph API's changeTrackingCreateDeployment." /> : null}
    </section>
  );
}
