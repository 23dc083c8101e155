import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { restGet } from '../api.js';
import { formatNumber } from '../chart.js';
import { ErrorState, useWindow } from '../ui.js';
import type { AppInfo } from './app-shell.js';

type Kind = 'transaction' | 'error' | 'sql';

/** The traces an application's agents sent in the window (GET /timeslice/v1/applications/{id}/traces.json). */
export function useTraces(appId: number, kind: Kind) {
  const { window } = useWindow();
  const path = `/timeslice/v1/applications/${appId}/traces.json?kind=${kind}&from=${window.from}&to=${window.to}&limit=100`;
  const query = useQuery({ queryKey: ['rest', path], queryFn: () => restGet<{ traces: any[] }>(path).then((b) => b.traces) });
  return { ...query, path };
}

/** A transaction trace's segments as the agent sent them: [start ms, end ms, name, params, children, …]. */
type Segment = [number, number, string, Record<string, unknown>, Segment[]];
const isSegment = (v: unknown): v is Segment => Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number' && typeof v[2] === 'string';

function rootOf(trace: unknown): Segment | null {
  if (!Array.isArray(trace)) return null;
  return (trace.find(isSegment) as Segment | undefined) ?? null;
}

function SegmentTree(props: { readonly segment: Segment; readonly total: number; readonly depth: number }) {
  const [start, end, name, , children] = props.segment;
  const kids = (Array.isArray(children) ? children : []).filter(isSegment);
  return (
    <li data-testid="segment" data-name={name}>
      <span className="segment-name">{name}</span>
      <span className="segment-time"> {formatNumber(end - start)} ms{props.total > 0 ? ` · ${formatNumber(((end - start) * 100) / props.total)} %` : ''} (at +{formatNumber(start)} ms)</span>
      {kids.length > 0 ? <ul>{kids.map((k, i) => <SegmentTree key={i} segment={k} total={props.total} depth={props.depth + 1} />)}</ul> : null}
    </li>
  );
}

export function TracesPage(props: { readonly app: AppInfo }) {
  const { app } = props;
  const transactions = useTraces(app.id, 'transaction');
  const sql = useTraces(app.id, 'sql');
  const [open, setOpen] = useState<number | null>(null);
  const list = transactions.data ?? [];
  return (
    <>
      <section className="panel" data-testid="table-transaction-traces" data-state={transactions.error ? 'error' : transactions.isPending ? 'loading' : 'ready'}>
        <header><h3>Transaction traces</h3><span className="note">GET {transactions.path.split('?')[0]}</span></header>
        {transactions.error ? <ErrorState error={transactions.error} /> : null}
        {transactions.data && list.length === 0 ? <div className="empty">No transaction traces in this time range. Agents send one for a transaction slower than its trace threshold (by default four times Apdex T).</div> : null}
        {list.length > 0 ? (
          <div className="table-scroll"><table className="data">
            <thead><tr><th>Time</th><th>Transaction</th><th>Duration (ms)</th><th>URI</th></tr></thead>
            <tbody>{list.map((t, i) => (
              <tr key={i} data-testid="transaction-trace">
                <td>{new Date(t.timestamp).toISOString()}</td>
                <td><button type="button" className="link" onClick={() => setOpen(open === i ? null : i)}>{t.transactionName}</button></td>
                <td>{t.durationMs === null ? '—' : formatNumber(t.durationMs)}</td>
                <td>{t.uri ?? '—'}</td>
              </tr>))}</tbody>
          </table></div>
        ) : null}
        {open !== null && list[open] ? (() => {
          const root = rootOf(list[open].trace);
          return root ? <ul className="segments" data-testid="segment-tree"><SegmentTree segment={root} total={root[1] - root[0]} depth={0} /></ul>
            : <pre className="json">{JSON.stringify(list[open].trace, null, 2)}</pre>;
        })() : null}
      </section>
      <section className="panel" data-testid="table-sql-traces" data-state={sql.error ? 'error' : sql.isPending ? 'loading' : 'ready'}>
        <header><h3>Slow SQL</h3><span className="note">GET {sql.path.split('?')[0]}</span></header>
        {sql.error ? <ErrorState error={sql.error} /> : null}
        {sql.data && sql.data.length === 0 ? <div className="empty">No slow SQL in this time range. Agents send statements slower than their slow-SQL threshold.</div> : null}
        {sql.data && sql.data.length > 0 ? (
          <div className="table-scroll"><table className="data">
            <thead><tr><th>Time</th><th>Statement</th><th>Metric</th><th>Calls</th><th>Total (ms)</th><th>Max (ms)</th></tr></thead>
            <tbody>{sql.data.map((s, i) => (
              <tr key={i}><td>{new Date(s.timestamp).toISOString()}</td><td><code>{s.sql}</code></td><td>{s.metricName}</td>
                <td>{s.callCount ?? '—'}</td><td>{s.totalMs === null ? '—' : formatNumber(s.totalMs)}</td><td>{s.maxMs === null ? '—' : formatNumber(s.maxMs)}</td></tr>))}</tbody>
          </table></div>
        ) : null}
      </section>
    </>
  );
}

/** Error traces with the stack trace the agent sent (on the Errors page). */
export function ErrorTraces(props: { readonly appId: number }) {
  const { data, error, isPending, path } = useTraces(props.appId, 'error');
  return (
    <section className="panel" data-testid="table-error-traces" data-state={error ? 'error' : isPending ? 'loading' : 'ready'}>
      <header><h3>Error traces</h3><span className="note">GET {path.split('?')[0]}</span></header>
      {error ? <ErrorState error={error} /> : null}
      {data && data.length === 0 ? <div className="empty">No error traces in this time range.</div> : null}
      {(data ?? []).map((t, i) => {
        const stack = (t.params as { stack_trace?: unknown } | null)?.stack_trace;
        return (
          <details key={i} className="error-trace" data-testid="error-trace">
            <summary>{new Date(t.timestamp).toISOString()} · <strong>{t.errorClass}</strong>: {t.message} · {t.transactionName}</summary>
            <pre data-testid="stack-trace">{Array.isArray(stack) ? stack.join('\n') : typeof stack === 'string' ? stack : 'The agent sent no stack trace.'}</pre>
          </details>
        );
      })}
    </section>
  );
}
