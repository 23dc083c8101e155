import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import type { NrqlResult } from './api.js';

/** A column-major series set: one time grid in seconds, one array per series, null for a gap. */
export interface SeriesData {
  readonly x: number[];
  readonly series: { readonly label: string; readonly values: (number | null)[]; readonly previous?: boolean }[];
}

const COLOURS = ['#3b7dd8', '#e8a33d', '#7b5cc4', '#3aa57a', '#d9534f', '#17a2b8', '#8c564b', '#e377c2'];

/** Apdex cells are {score, s, t, f, count}: the score is what is drawn. */
export function cellNumber(cell: unknown): number | null {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : null;
  if (typeof cell === 'object' && 'score' in (cell as object)) return cellNumber((cell as { score: unknown }).score);
  return null;
}

const META = new Set(['beginTimeSeconds', 'endTimeSeconds', 'comparison', 'facet']);

/**
 * A TIMESERIES answer as series: without FACET one series per column; with FACET one per facet
 * value (of the first aggregate column); COMPARE WITH rows marked previous become dashed series
 * on the current window's grid.
 */
export function toSeries(result: NrqlResult): SeriesData {
  const rows = result.results;
  const current = rows.filter((r) => r.comparison !== 'previous');
  const previous = rows.filter((r) => r.comparison === 'previous');
  const facetNames = result.metadata?.facets ?? null;
  if (facetNames && facetNames.length > 0) {
    const x: number[] = [];
    const byFacet = new Map<string, Map<number, number | null>>();
    for (const row of current) {
      const column = Object.keys(row).find((k) => !META.has(k) && !facetNames.includes(k));
      const key = Array.isArray(row.facet) ? row.facet.join(', ') : String(row.facet);
      if (!byFacet.has(key)) byFacet.set(key, new Map());
      byFacet.get(key)!.set(row.beginTimeSeconds, column ? cellNumber(row[column]) : null);
      if (!x.includes(row.beginTimeSeconds)) x.push(row.beginTimeSeconds);
    }
    x.sort((a, b) => a - b);
    return { x, series: [...byFacet].map(([label, m]) => ({ label, values: x.map((t) => m.get(t) ?? null) })) };
  }
  const x = current.map((r) => r.beginTimeSeconds as number);
  const columns = current[0] ? Object.keys(current[0]).filter((k) => !META.has(k)) : [];
  // A multi-valued cell (percentile(duration, 50, 95, 99)) is one series per key; Apdex cells are one (their score).
  const parts = (rows: Record<string, any>[], c: string): { label: string; values: (number | null)[] }[] => {
    const sample = rows.find((r) => r[c] !== null && r[c] !== undefined)?.[c];
    if (sample && typeof sample === 'object' && !('score' in sample)) {
      return Object.keys(sample).map((k) => ({ label: `${c} ${k}`, values: rows.map((r) => cellNumber(r[c]?.[k])) }));
    }
    return [{ label: c, values: rows.map((r) => cellNumber(r[c])) }];
  };
  const series: SeriesData['series'][number][] = columns.flatMap((c) => parts(current, c));
  if (previous.length === current.length) {
    for (const c of columns) for (const p of parts(previous, c)) series.push({ label: `${p.label} (previous)`, values: p.values, previous: true });
  }
  return { x, series };
}

export interface Marker {
  readonly timeMs: number;
  readonly title: string;
  readonly detail: string;
}

export interface ChartProps {
  readonly id: string;
  readonly data: SeriesData;
  readonly kind: 'line' | 'area' | 'stacked';
  /** Series drawn as unstacked lines on top of a stacked chart (the response time). */
  readonly overlay?: readonly string[];
  /** Series on a right-hand axis (Apdex T in seconds). */
  readonly rightAxis?: { readonly series: readonly string[]; readonly label: string };
  readonly unit?: string;
  readonly markers?: readonly Marker[];
  readonly range: { readonly from: number; readonly to: number };
  readonly onZoom?: (fromMs: number, toMs: number) => void;
}

/**
 * uPlot over a SeriesData. The instance is kept on the element (`__uplot`) and the numbers are
 * also in a data table for screen readers, so tests and people can read what is drawn. Deployment
 * markers are elements on the plot's overlay at their time; dragging across selects a new range.
 */
export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement | null>(null);
  const { data, kind } = props;
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const overlay = new Set(props.overlay ?? []);
    const right = new Set(props.rightAxis?.series ?? []);
    // Stacked bands draw cumulative sums; the raw values stay in the table and the legend.
    const drawn: (number | null)[][] = [];
    const running = data.x.map(() => 0);
    for (const s of data.series) {
      if (kind === 'stacked' && !overlay.has(s.label) && !s.previous) {
        drawn.push(s.values.map((v, i) => (running[i] = running[i]! + (v ?? 0))));
      } else drawn.push(s.values);
    }
    // Each stacked band fills down to the band below it (uPlot bands), the first one to zero.
    const stackedIdx = data.series.map((s, i) => (kind === 'stacked' && !overlay.has(s.label) && !s.previous ? i + 1 : 0)).filter((i) => i > 0);
    const bands = stackedIdx.slice(1).map((idx, k) => ({ series: [idx, stackedIdx[k]!] as [number, number] }));
    const width = Math.max(280, el.clientWidth);
    const opts: uPlot.Options = {
      width,
      height: 220,
      scales: { x: { time: true, min: props.range.from / 1000, max: props.range.to / 1000 }, ...(props.rightAxis ? { r: { range: (_u, _min, max) => [0, Math.max(max, 0.001) * 1.2] } } : {}) },
      axes: [
        { values: (_u, ticks) => ticks.map((t) => new Date(t * 1000).toISOString().slice(11, 16)) },
        { label: props.unit ?? '', size: 60 },
        ...(props.rightAxis ? [{ scale: 'r', side: 1 as const, label: props.rightAxis.label, grid: { show: false } }] : []),
      ],
      series: [
        { label: 'Time', value: (_u, v) => (v === null ? '—' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
        ...data.series.map((s, i) => {
          const colour = COLOURS[i % COLOURS.length]!;
          const stackedBand = kind === 'stacked' && !overlay.has(s.label) && !s.previous;
          return {
            label: s.label,
            stroke: overlay.has(s.label) ? '#222' : colour,
            width: overlay.has(s.label) ? 2 : 1.5,
            ...(right.has(s.label) ? { scale: 'r', dash: [6, 4] } : {}),
            ...(s.previous ? { dash: [4, 4] } : {}),
            ...((kind === 'area' || stackedBand) ? { fill: `${colour}55` } : {}),
            value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) => {
              const raw = idx === null ? null : s.values[idx] ?? null;
              return raw === null ? '—' : formatNumber(raw);
            },
          };
        }),
      ],
      ...(bands.length > 0 ? { bands } : {}),
      cursor: { drag: { x: true, y: false, setScale: false } },
      hooks: {
        setSelect: [(u) => {
          if (u.select.width < 2 || !props.onZoom) return;
          const from = u.posToVal(u.select.left, 'x') * 1000;
          const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          props.onZoom(from, to);
        }],
        draw: [(u) => placeMarkers(u, props.markers ?? [])],
      },
    };
    const plot = new uPlot(opts, [data.x, ...drawn] as uPlot.AlignedData, el);
    (el as unknown as { __uplot: uPlot }).__uplot = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, kind, props.markers, props.range.from, props.range.to]);

  return (
    <div className="chart-body">
      <div ref={host} className="plot" data-testid={`plot-${props.id}`} aria-describedby={`table-${props.id}`} />
      <div className="sr-only"><table id={`table-${props.id}`} data-testid={`data-${props.id}`}>
        <thead><tr><th>time</th>{data.series.map((s) => <th key={s.label}>{s.label}</th>)}</tr></thead>
        <tbody>
          {data.x.map((t, i) => (
            <tr key={t} data-time={t}>
              <td>{new Date(t * 1000).toISOString()}</td>
              {data.series.map((s) => <td key={s.label} data-value={s.values[i] === null ? '' : String(s.values[i])}>{s.values[i] === null ? '' : String(s.values[i])}</td>)}
            </tr>
          ))}
        </tbody>
      </table></div>
    </div>
  );
}

function placeMarkers(u: uPlot, markers: readonly Marker[]): void {
  for (const old of u.over.querySelectorAll('.marker')) old.remove();
  const [min, max] = [u.scales.x!.min!, u.scales.x!.max!];
  for (const m of markers) {
    const x = m.timeMs / 1000;
    if (x < min || x > max) continue;
    const el = document.createElement('div');
    el.className = 'marker';
    el.dataset.testid = 'deployment-marker';
    el.dataset.time = String(m.timeMs);
    el.style.left = `${u.valToPos(x, 'x')}px`;
    el.tabIndex = 0;
    const tip = document.createElement('div');
    tip.className = 'marker-tip';
    const title = document.createElement('strong');
    title.textContent = m.title;
    const detail = document.createElement('div');
    detail.textContent = m.detail;
    tip.append(title, detail);
    el.append(tip);
    u.over.append(el);
  }
}

export function formatNumber(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return v.toLocaleString('en-US', { maximumFractionDigits: 0 });
  if (a >= 1) return v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return String(Number(v.toPrecision(3)));
}
