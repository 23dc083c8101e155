/**
 * New Relic's dimensional APM metrics (`apm.service.*`, what its UI's "view query" shows) on
 * `FROM Metric`, read from the timeslices each is derived from. New Relic converts an agent's
 * timeslices into these names; Timeslice keeps the timeslices, so an aggregate over one of these
 * names is the same aggregate over the timeslice value, narrowed to its source metrics:
 * `average(apm.service.transaction.duration)` is `average(newrelic.timeslice.value)` over the
 * application-wide transaction metrics `WebTransaction` and `OtherTransaction/all`.
 *
 * The dimensions New Relic puts on these points are read from the timeslice's metric name
 * (`dimensionOf`): `transactionType` (`Web` for `WebTransaction`, `Errors/allWeb`, `External/allWeb`
 * and the per-transaction metrics under `WebTransaction/`; `Other` for their `Other` counterparts),
 * `transactionName` (`WebTransaction/Expressjs/GET /x` itself, `Errors/WebTransaction/…` and
 * `Apdex/…` of the same transaction), `external.host` (`External/{host}/all`) and `datastoreType`
 * (`Datastore/operation/{type}/…`, `Datastore/statement/{type}/…`, `Datastore/{type}/all`).
 *
 * The transaction metrics come as one application-wide series (`WebTransaction`) and one series
 * per transaction (`WebTransaction/Expressjs/GET /x`) whose sum it is. A query that names
 * `transactionName` anywhere reads the per-transaction series (`perTransaction`), so
 * `FACET transactionName` splits the same calls the application-wide series counts; any other
 * reads the application-wide one. A name under `apm.` that is not in the table is refused, naming
 * it and the mapped ones, rather than answered with a silent null.
 */
export interface DimensionalMetric {
  /** The timeslice metric names it is derived from, as the agents send them. */
  readonly sources: string;
  /** Whether a timeslice of this metric name is one of its points. */
  readonly matches: (metricName: string) => boolean;
  /** Its per-transaction points, read instead when the query names `transactionName`. */
  readonly perTransaction?: (metricName: string) => boolean;
}

const oneOf = (...names: string[]) => (name: string) => names.includes(name);

export const DIMENSIONAL_METRICS: ReadonlyMap<string, DimensionalMetric> = new Map<string, DimensionalMetric>([
  ['apm.service.transaction.duration', {
    sources: 'WebTransaction, OtherTransaction/all',
    matches: oneOf('WebTransaction', 'OtherTransaction/all'),
    perTransaction: (name) => transactionNameOf(name) === name,
  }],
  ['apm.service.error.count', { sources: 'Errors/allWeb, Errors/allOther', matches: oneOf('Errors/allWeb', 'Errors/allOther') }],
  ['apm.service.transaction.error.count', {
    sources: 'Errors/allWeb, Errors/allOther',
    matches: oneOf('Errors/allWeb', 'Errors/allOther'),
    perTransaction: (name) => name.startsWith('Errors/') && transactionNameOf(name) !== undefined,
  }],
  ['apm.service.transaction.apdex', {
    sources: 'Apdex',
    matches: oneOf('Apdex'),
    perTransaction: (name) => name.startsWith('Apdex/') && transactionNameOf(name) !== undefined,
  }],
  ['apm.service.transaction.external.duration', { sources: 'External/allWeb, External/allOther', matches: oneOf('External/allWeb', 'External/allOther') }],
  ['apm.service.external.host.duration', {
    sources: 'External/<host>/all',
    matches: (name) => /^External\/[^/]+\/all$/.test(name) && name !== 'External/all',
  }],
  ['apm.service.datastore.operation.duration', { sources: 'Datastore/operation/<type>/<operation>', matches: (name) => /^Datastore\/operation\/[^/]+\/[^/]+$/.test(name) }],
  ['apm.service.instance.count', { sources: 'Instance/Reporting', matches: oneOf('Instance/Reporting') }],
  ['apm.service.memory.physical', { sources: 'Memory/Physical', matches: oneOf('Memory/Physical') }],
  ['apm.service.cpu.usertime.utilization', { sources: 'CPU/User/Utilization', matches: oneOf('CPU/User/Utilization') }],
]);

/** Names New Relic gives its dimensional APM metrics: `apm.service.…`, `apm.key.transaction.…`. */
export function isDimensionalName(name: string): boolean {
  return name.startsWith('apm.');
}

/** The attribute New Relic puts on `apm.service.*` points: `Web` or `Other`. */
export const TRANSACTION_TYPE = 'transactionType';

const WEB_SOURCES: ReadonlySet<string> = new Set(['WebTransaction', 'Errors/allWeb', 'External/allWeb']);
const OTHER_SOURCES: ReadonlySet<string> = new Set(['OtherTransaction/all', 'Errors/allOther', 'External/allOther']);

/** `transactionType` of a timeslice by its metric name: `Web`, `Other`, or undefined (not a typed source). */
export function transactionTypeOf(metricName: string): 'Web' | 'Other' | undefined {
  if (WEB_SOURCES.has(metricName)) return 'Web';
  if (OTHER_SOURCES.has(metricName)) return 'Other';
  const transaction = transactionNameOf(metricName);
  return transaction === undefined ? undefined : transaction.startsWith('WebTransaction/') ? 'Web' : 'Other';
}

/**
 * The transaction a per-transaction timeslice belongs to, as New Relic names it in `transactionName`:
 * `WebTransaction/Expressjs/GET /x` for that metric itself, for `Errors/WebTransaction/Expressjs/GET /x`
 * and for `Apdex/Expressjs/GET /x` (Apdex is kept for web transactions only); likewise under
 * `OtherTransaction/`. The roll-ups (`WebTransaction`, `OtherTransaction/all`, `OtherTransaction/Nodejs/all`…)
 * belong to no one transaction: undefined.
 */
export function transactionNameOf(metricName: string): string | undefined {
  const name = metricName.startsWith('Errors/') ? metricName.slice('Errors/'.length)
    : metricName.startsWith('Apdex/') ? `WebTransaction/${metricName.slice('Apdex/'.length)}`
    : metricName;
  const match = /^(WebTransaction|OtherTransaction)\/(.+)$/.exec(name);
  if (!match || match[2]!.endsWith('/all') || match[2] === 'all') return undefined;
  return name;
}

/** `external.host` of an `External/{host}/all` timeslice. */
export function externalHostOf(metricName: string): string | undefined {
  const match = /^External\/([^/]+)\/all$/.exec(metricName);
  return match && !['all', 'allWeb', 'allOther'].includes(match[1]!) ? match[1] : undefined;
}

/**
 * `datastoreType` (New Relic's product name, `Postgres`, `MongoDB`…) of a datastore timeslice:
 * `Datastore/operation/{type}/{operation}`, `Datastore/statement/{type}/{table}/{operation}`,
 * `Datastore/instance/{type}/…`, `Datastore/{type}/all`, `Datastore/{type}/allWeb|allOther`.
 */
export function datastoreTypeOf(metricName: string): string | undefined {
  const scoped = /^Datastore\/(?:operation|statement|instance)\/([^/]+)\/.+$/.exec(metricName);
  if (scoped) return scoped[1];
  const rollup = /^Datastore\/([^/]+)\/(?:all|allWeb|allOther)$/.exec(metricName);
  return rollup && !['operation', 'statement', 'instance'].includes(rollup[1]!) ? rollup[1] : undefined;
}

/** The dimensions read from a timeslice's metric name, by attribute name. */
export const DIMENSIONS: ReadonlyMap<string, (metricName: string) => string | undefined> = new Map<string, (metricName: string) => string | undefined>([
  [TRANSACTION_TYPE, transactionTypeOf],
  ['transactionName', transactionNameOf],
  ['external.host', externalHostOf],
  ['datastoreType', datastoreTypeOf],
]);
