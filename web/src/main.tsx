import { StrictMode, useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Link, Redirect, Route, Router, Switch, useParams } from 'wouter';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { ConnectionError, getKey, setKey, subscribeKey, takeKeyFromFragment } from './api.js';
import { ConnectionBanner } from './ui.js';
import { AppsPage } from './pages/apps.js';
import { AppShell } from './pages/app-shell.js';
import { SummaryPage } from './pages/summary.js';
import { DatabasesPage, DeploymentsPage, ErrorsPage, ExternalsPage, HostsPage, TransactionsPage } from './pages/detail-pages.js';
import { ConsolePage } from './pages/console.js';
import { TracesPage } from './pages/traces.js';

takeKeyFromFragment();

const client = new QueryClient({
  defaultOptions: {
    queries: {
      // A lost connection is retried (and said, ConnectionBanner); a refusal is shown at once.
      retry: (failures, error) => error instanceof ConnectionError && failures < 10,
      retryDelay: (n) => Math.min(1000 * 2 ** n, 15_000),
      staleTime: 30_000,
      refetchOnWindowFocus: false,
    },
  },
});

function KeyForm(props: { readonly onDone?: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form className="key-form" onSubmit={(e: any) => { e.preventDefault(); if (value.trim()) { setKey(value); props.onDone?.(); } }}>
      <label>User API key <input data-testid="key-input" type="password" autoComplete="off" placeholder="NRAK-…" value={value} onChange={(e: any) => setValue(e.target.value)} /></label>
      <button type="submit">Use key</button>
      <p className="note">Kept in this tab's memory only. A link may also carry it as <code>/ui/#key=NRAK-…</code> (the fragment is never sent to the server). <code>timeslice serve</code> prints such a link.</p>
    </form>
  );
}

function AppRoute(props: { readonly page: (app: any) => any }) {
  const params = useParams<{ appId: string }>();
  const appId = Number(params.appId);
  if (!Number.isSafeInteger(appId)) return <main><div className="error-state">No application has id “{params.appId}”.</div></main>;
  return <AppShell appId={appId}>{(app) => props.page(app)}</AppShell>;
}

function Shell() {
  const key = useSyncExternalStore(subscribeKey, getKey);
  const [changing, setChanging] = useState(false);
  return (
    <>
      <header className="top">
        <Link href="/apm" className="brand">Timeslice</Link>
        <nav><Link href="/apm">APM</Link><Link href="/query">Query</Link><a href="/graphiql">GraphiQL</a></nav>
        {key ? <button type="button" className="link" onClick={() => setChanging(!changing)}>Key …{key.slice(-4)}</button> : null}
      </header>
      <ConnectionBanner />
      {!key || changing ? <KeyForm onDone={() => setChanging(false)} /> : (
        <Switch>
          <Route path="/"><Redirect to="/apm" replace /></Route>
          <Route path="/apm" component={AppsPage} />
          <Route path="/query" component={ConsolePage} />
          <Route path="/apm/:appId">{() => <AppRoute page={(app) => <SummaryPage app={app} />} />}</Route>
          <Route path="/apm/:appId/transactions">{() => <AppRoute page={(app) => <TransactionsPage app={app} />} />}</Route>
          <Route path="/apm/:appId/databases">{() => <AppRoute page={(app) => <DatabasesPage app={app} />} />}</Route>
          <Route path="/apm/:appId/externals">{() => <AppRoute page={(app) => <ExternalsPage app={app} />} />}</Route>
          <Route path="/apm/:appId/errors">{() => <AppRoute page={(app) => <ErrorsPage app={app} />} />}</Route>
          <Route path="/apm/:appId/traces">{() => <AppRoute page={(app) => <TracesPage app={app} />} />}</Route>
          <Route path="/apm/:appId/hosts">{() => <AppRoute page={(app) => <HostsPage app={app} />} />}</Route>
          <Route path="/apm/:appId/deployments">{() => <AppRoute page={(app) => <DeploymentsPage app={app} />} />}</Route>
          <Route><main><div className="empty">No page here. <Link href="/apm">APM applications</Link></div></main></Route>
        </Switch>
      )}
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <Router base="/ui"><Shell /></Router>
    </QueryClientProvider>
  </StrictMode>,
);
