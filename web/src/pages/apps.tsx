import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { restGet } from '../api.js';
import { ErrorState, cellText } from '../ui.js';

const HEALTH: Record<string, string> = { green: 'Healthy', orange: 'Warning', red: 'Critical', gray: 'Not reporting', unknown: 'Unknown' };

/** APM applications: REST v2's list (its summaries cover the last 10 minutes), filtered by name. */
export function AppsPage() {
  const [filter, setFilter] = useState('');
  const path = `/v2/applications.json${filter ? `?filter[name]=${encodeURIComponent(filter)}` : ''}`;
  const { data, error, isPending } = useQuery({ queryKey: ['rest', path], queryFn: () => restGet(path), refetchInterval: 120_000 });
  const apps = (data?.applications ?? []) as any[];
  return (
    <main>
      <h2>APM applications</h2>
      <input className="filter" type="search" placeholder="Filter by name" aria-label="Filter by name" value={filter} onChange={(e: any) => setFilter(e.target.value)} />
      <p className="note">Summaries cover the last 10 minutes (as REST v2's application_summary). Source: <code>GET {path}</code></p>
      {error ? <ErrorState error={error} /> : null}
      {isPending ? <div className="loading">Loading…</div> : null}
      {data && apps.length === 0 ? (
        filter ? <div className="empty">No application name contains “{filter}”.</div> : <NoApps />
      ) : null}
      {apps.length > 0 ? (
        <div className="table-scroll">
          <table className="data" data-testid="apps">
            <thead><tr><th>Name</th><th>Response time (ms)</th><th>Throughput (rpm)</th><th>Error rate (%)</th><th>Apdex</th></tr></thead>
            <tbody>
              {apps.map((a) => (
                <tr key={a.id} data-app={a.id}>
                  <td><span className={`health ${a.health_status}`} title={HEALTH[a.health_status] ?? a.health_status} aria-label={HEALTH[a.health_status] ?? a.health_status} />
                    <Link href={`/apm/${a.id}`}>{a.name}</Link></td>
                  <td>{cellText(a.application_summary?.response_time)}</td>
                  <td>{cellText(a.application_summary?.throughput)}</td>
                  <td>{cellText(a.application_summary?.error_rate)}</td>
                  <td>{cellText(a.application_summary?.apdex_score)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </main>
  );
}

export function NoApps() {
  return (
    <div className="empty" data-testid="no-apps">
      <p>No application has reported yet. Point a New Relic agent at this service:</p>
      <NoAgentHint />
      <p>or run <code>timeslice demo</code> for a sample application.</p>
    </div>
  );
}

/** The settings an agent needs to report here (timeslice serve prints them with their values). */
export function NoAgentHint() {
  return <pre>{`NEW_RELIC_HOST=${location.hostname}\nNEW_RELIC_PORT=<the collector port timeslice serve printed>\nNEW_RELIC_LICENSE_KEY=<the license key timeslice serve printed>\nNODE_EXTRA_CA_CERTS=<its certificate, as printed>`}</pre>;
}
