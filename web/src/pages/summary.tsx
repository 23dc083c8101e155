import { useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { graphql } from '../api.js';
import type { Marker } from '../chart.js';
import * as Q from '../queries.js';
import { cellText, NrqlChart, NrqlTable, useAccountId, useNrql, useTimeParams, useUrlParams, useWindow } from '../ui.js';
import type { AppInfo } from './app-shell.js';
import { NoAgentHint } from './apps.js';

/** Deployments in the window, as chart markers (S7). */
export function useDeploymentMarkers(appId: number): readonly Marker[] {
  const { window } = useWindow();
  const { data } = useNrql(Q.deployments(appId, window));
  return useMemo(() => (data?.results ?? []).map((r) => ({
    timeMs: Number(r.timestamp),
    title: `Deployment ${r.version ?? ''}`.trim(),
    detail: [r.user ? `by ${r.user}` : '', r.description ?? '', new Date(Number(r.timestamp)).toISOString()].filter(Boolean).join(' · '),
  })), [data]);
}

export function SummaryPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const { window, range } = useWindow();
  const [params, set] = useUrlParams();
  const type: Q.TxType = params.get('type') === 'other' ? 'other' : 'web';
  // As in New Relic, comparing is offered for windows that end now.
  const compare: Q.Compare = range.kind === 'relative' && (params.get('compare') === '1d' || params.get('compare') === '1w') ? params.get('compare') as Q.Compare : '';
  const markers = useDeploymentMarkers(app.id);
  const language = Q.languageLabel(app.language);
  const time = useTimeParams();
  return (
    <>
      <div className="controls">
        <label>Transactions <select data-testid="type" value={type} onChange={(e: any) => set({ type: e.target.value === 'other' ? 'other' : null })}>
          <option value="web">Web</option><option value="other">Non-web</option></select></label>
        {range.kind === 'relative' ? (
          <label>Compare with <select data-testid="compare" value={compare} onChange={(e: any) => set({ compare: e.target.value || null })}>
            <option value="">nothing</option><option value="1d">yesterday</option><option value="1w">last week</option></select></label>
        ) : null}
        <ApdexSetting app={app} />
      </div>
      {app.reporting === false ? <div className="empty" data-testid="not-reporting">{app.name} has not reported in the last 10 minutes. If its agent should be running, check that it points here:<NoAgentHint /></div> : null}
      <div className="grid">
        <NrqlChart id="time" title={type === 'web' ? 'Web transactions time (ms)' : 'Non-web transactions time (ms)'} kind={compare ? 'line' : 'stacked'} unit="ms"
          overlay={['Response time']} nrql={Q.transactionTime(app.id, type, app.language, window, compare)} markers={markers}
          empty={`No ${type === 'web' ? 'web' : 'non-web'} transactions in this time range.`} />
        <NrqlChart id="apdex" title={`Apdex (T = ${app.settings.app_apdex_threshold} s)`} kind="line" nrql={Q.apdex(app.id, window)} markers={markers}
          rightAxis={{ series: ['Apdex T'], label: 'Apdex T (s)' }} />
        <NrqlChart id="throughput" title="Throughput (rpm)" kind="line" unit="rpm" nrql={Q.throughput(app.id, type, window, compare)} markers={markers} />
        <NrqlChart id="errors" title="Error rate (%)" kind="line" unit="%" nrql={Q.errorRate(app.id, window, compare)} markers={markers} />
      </div>
      <div className="grid">
        <NrqlTable id="top" title="Top 5 transactions by time consumed" nrql={Q.topTransactions(app.id, type, window)} columns={[
          { key: 'facet', label: 'Transaction', render: (r) => <Link href={`/apm/${app.id}/transactions?name=${encodeURIComponent(r.facet)}${time ? `&${time}` : ''}`}>{r.facet}</Link> },
          { key: 'Time consumed (ms)' }, { key: 'Avg (ms)' }, { key: 'rpm' }]} />
        <NrqlTable id="hosts" title="Hosts" nrql={Q.hosts(app.id, window)} columns={[
          { key: 'facet', label: 'Host' }, { key: 'Apdex', render: (r) => cellText(r.Apdex?.score ?? null) }, { key: 'Response time (ms)' }, { key: 'Throughput (rpm)' },
          { key: 'Error rate (%)' }, { key: 'CPU (%)' }, { key: 'Memory (MB)' }]} />
      </div>
      <p className="note">{language} time = total transaction time less database and external time, per request. Bands an agent did not report draw as zero.</p>
    </>
  );
}

const UPDATE = 'mutation($guid: EntityGuid!, $settings: AgentApplicationSettingsUpdateInput!) { agentApplicationSettingsUpdate(guid: $guid, settings: $settings) { guid apmSettings { apdexTarget } } }';

/** Apdex T, changed through the graph API's agentApplicationSettingsUpdate as every client does. */
function ApdexSetting(props: { readonly app: AppInfo }) {
  const client = useQueryClient();
  const [value, setValue] = useState(String(props.app.settings.app_apdex_threshold));
  const [status, setStatus] = useState('');
  const accountId = useAccountId();
  return (
    <form className="apdex-setting" onSubmit={async (e: any) => {
      e.preventDefault();
      const t = Number(value);
      if (!(t > 0)) return setStatus('Apdex T must be a positive number of seconds');
      try {
        const account = accountId;
        if (account === undefined) return setStatus('The key reads no account');
        const guid = btoa(`${account}|APM|APPLICATION|${props.app.id}`).replace(/=+$/, '');
        await graphql(UPDATE, { guid, settings: { apmConfig: { apdexTarget: t } } });
        setStatus('Saved');
        await client.invalidateQueries();
      } catch (error) {
        setStatus((error as Error).message);
      }
    }}>
      <label>Apdex T (s) <input data-testid="apdex-t" type="number" step="0.01" min="0.01" value={value} onChange={(e: any) => setValue(e.target.value)} /></label>
      <button type="submit">Set</button>
      <span role="status">{status}</span>
    </form>
  );
}
