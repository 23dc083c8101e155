import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { restGet } from '../api.js';
import { ErrorState, TimePicker } from '../ui.js';

export interface AppInfo {
  readonly id: number;
  readonly name: string;
  readonly language: string;
  readonly health_status: string;
  readonly reporting: boolean;
  readonly settings: { readonly app_apdex_threshold: number };
  readonly application_summary?: Record<string, number>;
}

const TABS: readonly [string, string][] = [['', 'Summary'], ['/transactions', 'Transactions'], ['/databases', 'Databases'], ['/externals', 'External services'],
  ['/errors', 'Errors'], ['/traces', 'Traces'], ['/hosts', 'Hosts'], ['/deployments', 'Deployments']];

export function useApp(appId: number) {
  return useQuery({ queryKey: ['rest', 'app', appId], queryFn: () => restGet(`/v2/applications/${appId}.json`).then((b) => b.application as AppInfo) });
}

export function useLastDeployment(appId: number) {
  return useQuery({
    queryKey: ['rest', 'deployments', appId],
    queryFn: () => restGet(`/v2/applications/${appId}/deployments.json`).then((b) => (b.deployments as { timestamp: string }[])
      .map((d) => Date.parse(d.timestamp)).reduce<number | null>((a, b) => (a === null || b > a ? b : a), null)),
  });
}

/** The frame of every application page: name, tabs (keeping the time range), time picker. */
export function AppShell(props: { readonly appId: number; readonly children: (app: AppInfo) => ReactNode }) {
  const { data: app, error } = useApp(props.appId);
  const { data: last } = useLastDeployment(props.appId);
  const [location] = useLocation();
  const search = useSearch();
  const keep = new URLSearchParams(search);
  const time = new URLSearchParams();
  for (const k of ['since', 'from', 'to']) if (keep.has(k)) time.set(k, keep.get(k)!);
  const suffix = time.toString() ? `?${time}` : '';
  return (
    <main>
      <div className="app-head">
        <h2>{app ? app.name : `Application ${props.appId}`}</h2>
        <TimePicker lastDeploymentMs={last ?? null} />
      </div>
      <nav className="tabs">
        {TABS.map(([path, label]) => {
          const href = `/apm/${props.appId}${path}`;
          return <Link key={path} href={`${href}${suffix}`} className={location === href ? 'active' : ''}>{label}</Link>;
        })}
      </nav>
      {error ? <ErrorState error={error} /> : null}
      {app ? props.children(app) : null}
    </main>
  );
}
