import { useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { runNrql, type NrqlResult } from '../api.js';
import { Chart, formatNumber, toSeries } from '../chart.js';
import { cellText, ErrorState, RowsTable, useUrlParams } from '../ui.js';

type View = 'auto' | 'line' | 'area' | 'table' | 'billboard' | 'json';
const VIEWS: readonly View[] = ['auto', 'line', 'area', 'table', 'billboard', 'json'];
const HISTORY_KEY = 'timeslice:ui:nrql-history';

/** The view the answer's shape calls for: TIMESERIES → line (area with facets), FACET → table, one number → billboard. */
export function autoView(result: NrqlResult): Exclude<View, 'auto'> {
  const rows = result.results;
  const timeseries = rows.length > 0 && 'beginTimeSeconds' in rows[0]!;
  const facets = (result.metadata?.facets ?? []).length > 0;
  if (timeseries) return facets ? 'area' : 'line';
  if (facets) return 'table';
  if (rows.length === 1 && Object.keys(rows[0]!).length === 1 && typeof Object.values(rows[0]!)[0] !== 'object') return 'billboard';
  if (rows.length === 1 && Object.values(rows[0]!).every((v) => typeof v === 'number' || v === null || (typeof v === 'object' && 'score' in (v as object)))) return 'billboard';
  return 'table';
}

function readHistory(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string').slice(0, 20) : [];
  } catch {
    return [];
  }
}

export function ConsolePage() {
  const [params, set] = useUrlParams();
  const nrql = params.get('nrql') ?? '';
  const chosen = (VIEWS as readonly string[]).includes(params.get('chart') ?? '') ? params.get('chart') as View : 'auto';
  const [text, setText] = useState(nrql || 'FROM Metric SELECT rate(count(newrelic.timeslice.value), 1 minute) WHERE metricTimesliceName = \'HttpDispatcher\' FACET appName SINCE 30 minutes ago TIMESERIES');
  const [history, setHistory] = useState(readHistory);
  useEffect(() => { if (nrql) setText(nrql); }, [nrql]);
  const { data, error, isFetching } = useQuery({ queryKey: ['console', nrql], queryFn: () => runNrql(nrql), enabled: nrql !== '', retry: false });
  useEffect(() => {
    if (!data || !nrql) return;
    const next = [nrql, ...readHistory().filter((h) => h !== nrql)].slice(0, 20);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(next));
    setHistory(next);
  }, [data, nrql]);
  const view: Exclude<View, 'auto'> = data && chosen === 'auto' ? autoView(data) : chosen === 'auto' ? 'table' : chosen;
  return (
    <main>
      <h2>NRQL console</h2>
      <form className="console" onSubmit={(e: any) => { e.preventDefault(); set({ nrql: text.trim() }); }}>
        <textarea aria-label="NRQL query" data-testid="nrql-input" rows={4} value={text} onChange={(e: any) => setText(e.target.value)}
          onKeyDown={(e: any) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); set({ nrql: text.trim() }); } }} />
        <div className="controls">
          <button type="submit" data-testid="run">Run</button>
          <label>View <select data-testid="view" value={chosen} onChange={(e: any) => set({ chart: e.target.value === 'auto' ? null : e.target.value })}>
            {VIEWS.map((v) => <option key={v} value={v}>{v}</option>)}</select></label>
          {isFetching ? <span>Running…</span> : null}
        </div>
      </form>
      {error ? <ErrorState error={error} /> : null}
      {data ? <section className="panel" data-testid="console-result" data-view={view}><ResultView result={data} view={view} /></section> : null}
      {history.length > 0 ? (
        <section className="panel">
          <header><h3>History</h3></header>
          <ul className="history">{history.map((h) => <li key={h}><button type="button" className="link" onClick={() => set({ nrql: h })}>{h}</button></li>)}</ul>
        </section>
      ) : null}
    </main>
  );
}

function ResultView(props: { readonly result: NrqlResult; readonly view: Exclude<View, 'auto'> }) {
  const { result, view } = props;
  const series = useMemo(() => toSeries(result), [result]);
  const window = result.metadata?.timeWindow;
  if (view === 'json') return <pre className="json" data-testid="json">{JSON.stringify(result, null, 2)}</pre>;
  if ((view === 'line' || view === 'area') && result.results[0] && 'beginTimeSeconds' in result.results[0]) {
    const from = window?.begin ?? series.x[0]! * 1000;
    const to = window?.end ?? (series.x[series.x.length - 1]! + 60) * 1000;
    return <Chart id="console" data={series} kind={view} range={{ from, to }} />;
  }
  if (view === 'billboard') {
    const row = result.results[0] ?? {};
    return <div className="billboards">{Object.entries(row).map(([k, v]) => (
      <div className="billboard" key={k} data-testid="billboard"><div className="value">{typeof v === 'number' ? formatNumber(v) : cellText(v)}</div><div className="label">{k}</div></div>))}</div>;
  }
  const rows = result.results;
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return <RowsTable rows={rows} columns={keys.map((k) => ({ key: k }))} empty="The query returned no rows." />;
}
