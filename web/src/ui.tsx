import { useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError, ConnectionError, getKey, graphql, runNrql, type NrqlResult } from './api.js';
import { Chart, formatNumber, toSeries, type ChartProps, type Marker } from './chart.js';
import { describeRange, floorMinute, formatTime, MINUTE, PRESETS, rangeFromSearch, resolveWindow, type Window } from './time.js';

/** The URL's query parameters, and a setter that writes them back (a new history entry). */
export function useUrlParams(): [URLSearchParams, (changes: Record<string, string | null>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    const text = next.toString();
    navigate(text ? `${location}?${text}` : location);
  };
  return [params, set];
}

/** The time range of the current URL as query parameters, for links that keep it. */
export function useTimeParams(): string {
  const [params] = useUrlParams();
  const kept = new URLSearchParams();
  for (const k of ['since', 'from', 'to']) if (params.has(k)) kept.set(k, params.get(k)!);
  return kept.toString();
}

/** The start of the current minute, moving on each minute so relative windows roll. */
export function useNowMinute(): number {
  const [now, setNow] = useState(() => floorMinute(Date.now()));
  useEffect(() => {
    const timer = setTimeout(() => setNow(floorMinute(Date.now())), MINUTE - (Date.now() % MINUTE) + 50);
    return () => clearTimeout(timer);
  }, [now]);
  return now;
}

export function useWindow(): { window: Window; range: ReturnType<typeof rangeFromSearch> } {
  const [params] = useUrlParams();
  const now = useNowMinute();
  const range = rangeFromSearch(params);
  const window = resolveWindow(range, now);
  return useMemo(() => ({ window, range }), [window.from, window.to, range.kind]);
}

export function useNrql(nrql: string | null) {
  return useQuery<NrqlResult, Error>({ queryKey: ['nrql', nrql, getKey()], queryFn: () => runNrql(nrql!), enabled: nrql !== null });
}

/** One time picker for every page: presets, a custom range, since the last deployment. */
export function TimePicker(props: { readonly lastDeploymentMs?: number | null }) {
  const [, set] = useUrlParams();
  const { range, window } = useWindow();
  const [custom, setCustom] = useState(false);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const value = range.kind === 'relative' ? range.key : 'custom';
  const toInput = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  return (
    <div className="time-picker">
      <label>
        <span className="sr-only">Time range</span>
        <select data-testid="time-picker" value={custom ? 'custom' : value} onChange={(e: any) => {
          const v = e.target.value as string;
          if (v === 'custom') {
            setFrom(toInput(window.from));
            setTo(toInput(window.to));
            setCustom(true);
          } else if (v === 'deploy' && props.lastDeploymentMs) {
            setCustom(false);
            const from = floorMinute(props.lastDeploymentMs);
            // At least the deployment's own minute, even when it is the current one.
            set({ since: null, from: String(from), to: String(Math.max(floorMinute(Date.now()), from + MINUTE)) });
          } else {
            setCustom(false);
            set({ since: v, from: null, to: null });
          }
        }}>
          {PRESETS.map((p) => <option key={p.key} value={p.key}>{p.label}</option>)}
          {props.lastDeploymentMs ? <option value="deploy">Since last deployment</option> : null}
          <option value="custom">{range.kind === 'absolute' ? describeRange(range) : 'Custom…'}</option>
        </select>
      </label>
      {custom ? (
        <form className="custom-range" onSubmit={(e: any) => {
          e.preventDefault();
          const f = Date.parse(`${from}Z`);
          const t = Date.parse(`${to}Z`);
          if (Number.isFinite(f) && Number.isFinite(t) && t - f >= MINUTE) {
            setCustom(false);
            set({ since: null, from: String(floorMinute(f)), to: String(floorMinute(t)) });
          }
        }}>
          <input type="datetime-local" aria-label="From (UTC)" value={from} onChange={(e: any) => setFrom(e.target.value)} />
          <input type="datetime-local" aria-label="To (UTC)" value={to} onChange={(e: any) => setTo(e.target.value)} />
          <button type="submit">Apply</button>
        </form>
      ) : null}
      <span className="window" data-testid="window">{formatTime(window.from)} – {formatTime(window.to)}</span>
    </div>
  );
}

/** The account the key reads (the graph API's actor.account needs its id). */
export function useAccountId(): number | undefined {
  const { data } = useQuery({
    queryKey: ['account', getKey()],
    queryFn: () => graphql<{ actor: { accounts: { id: number }[] } }>('{ actor { accounts { id } } }', {}).then((d) => d.actor.accounts[0]?.id ?? null),
    staleTime: Infinity,
  });
  return data ?? undefined;
}

/** The query behind a chart: the exact text sent, copy, open in the console, open in GraphiQL. */
export function ViewQuery(props: { readonly nrql: string }) {
  const [open, setOpen] = useState(false);
  const [copied, setCopied] = useState(false);
  const account = useAccountId();
  const graphiql = `/graphiql?nrql=${encodeURIComponent(props.nrql)}&account=${account ?? ''}${getKey() ? `#key=${encodeURIComponent(getKey())}` : ''}`;
  return (
    <div className="view-query">
      <button type="button" className="link" onClick={() => setOpen(!open)} aria-expanded={open}>{open ? 'Hide query' : 'View query'}</button>
      {open ? (
        <div className="query-drawer">
          <pre data-testid="query-text">{props.nrql}</pre>
          <button type="button" onClick={() => navigator.clipboard.writeText(props.nrql).then(() => setCopied(true), () => setCopied(false))}>{copied ? 'Copied' : 'Copy'}</button>
          <Link href={`/query?nrql=${encodeURIComponent(props.nrql)}`}>Open in console</Link>
          <a href={graphiql}>Open in GraphiQL</a>
        </div>
      ) : null}
    </div>
  );
}

export function ErrorState(props: { readonly error: Error }) {
  const e = props.error;
  const where = e instanceof ApiError && e.line !== undefined ? ` (line ${e.line}, column ${e.column})` : '';
  const hint = e instanceof ApiError && (e.status === 401 || e.status === 403) ? ' Check the API key (the key button at the top).' : '';
  return <div className="error-state" role="alert" data-testid="error">{e instanceof ConnectionError ? 'Cannot reach the service; retrying.' : `${e.message}${where}`}{hint}</div>;
}

/** A titled panel holding a chart drawn from one NRQL query. */
export function NrqlChart(props: { readonly id: string; readonly title: string; readonly nrql: string; readonly markers?: readonly Marker[]; readonly empty?: string }
  & Pick<ChartProps, 'kind' | 'overlay' | 'rightAxis' | 'unit'>) {
  const { data, error, isPending } = useNrql(props.nrql);
  const { window } = useWindow();
  const [, set] = useUrlParams();
  const series = useMemo(() => (data ? toSeries(data) : null), [data]);
  const hasData = series !== null && series.series.some((s) => s.values.some((v) => v !== null && v !== 0));
  return (
    <section className="panel" data-testid={`chart-${props.id}`} data-state={error ? 'error' : isPending ? 'loading' : 'ready'} data-nrql={props.nrql}>
      <header><h3>{props.title}</h3><ViewQuery nrql={props.nrql} /></header>
      {error ? <ErrorState error={error} /> : null}
      {isPending ? <div className="loading">Loading…</div> : null}
      {series ? (
        <>
          {!hasData ? <div className="empty">{props.empty ?? 'No data in this time range.'}</div> : null}
          <Chart id={props.id} data={series} kind={props.kind} overlay={props.overlay} rightAxis={props.rightAxis} unit={props.unit}
            markers={props.markers} range={window}
            onZoom={(f, t) => {
              const from = floorMinute(f);
              const to = Math.max(from + MINUTE, Math.ceil(t / MINUTE) * MINUTE);
              set({ since: null, from: String(from), to: String(to) });
            }} />
        </>
      ) : null}
    </section>
  );
}

export interface Column {
  readonly key: string;
  readonly label?: string;
  readonly render?: (row: Record<string, any>) => ReactNode;
}

/** A table drawn from one NRQL query's rows. */
export function NrqlTable(props: { readonly id: string; readonly title: string; readonly nrql: string; readonly columns: readonly Column[]; readonly empty?: string }) {
  const { data, error, isPending } = useNrql(props.nrql);
  return (
    <section className="panel" data-testid={`table-${props.id}`} data-state={error ? 'error' : isPending ? 'loading' : 'ready'} data-nrql={props.nrql}>
      <header><h3>{props.title}</h3><ViewQuery nrql={props.nrql} /></header>
      {error ? <ErrorState error={error} /> : null}
      {isPending ? <div className="loading">Loading…</div> : null}
      {data ? <RowsTable rows={data.results} columns={props.columns} empty={props.empty} /> : null}
    </section>
  );
}

export function RowsTable(props: { readonly rows: readonly Record<string, any>[]; readonly columns: readonly Column[]; readonly empty?: string }) {
  if (props.rows.length === 0) return <div className="empty">{props.empty ?? 'No rows in this time range.'}</div>;
  return (
    <div className="table-scroll">
      <table className="data">
        <thead><tr>{props.columns.map((c) => <th key={c.key}>{c.label ?? c.key}</th>)}</tr></thead>
        <tbody>
          {props.rows.map((row, i) => (
            <tr key={i}>{props.columns.map((c) => <td key={c.key}>{c.render ? c.render(row) : cellText(row[c.key])}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'object' && v !== null && 'score' in v) {
    const a = v as { score: number | null; s: number; t: number; f: number };
    return a.score === null ? '—' : `${a.score.toFixed(2)} (S ${a.s} / T ${a.t} / F ${a.f})`;
  }
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Says so when queries cannot reach the service (they are retried meanwhile). */
export function ConnectionBanner() {
  const client = useQueryClient();
  const lost = useSyncExternalStore(
    (onChange) => client.getQueryCache().subscribe(onChange),
    () => client.getQueryCache().getAll().some((q) => q.state.fetchFailureReason instanceof ConnectionError && q.state.fetchStatus === 'fetching'),
  );
  return lost ? <div className="banner" role="status">Connection to the service lost; retrying…</div> : null;
}
