/**
 * New Relic's dimensional APM metrics (`apm.service.*`, what its UI's "view query" shows) on
 * `FROM Metric`, read from the timeslices each is derived from. New Relic converts an agent's
 * timeslices into these names; Timeslice keeps the timeslices, so an aggregate over one of these
 * names is the same aggregate over the timeslice value, narrowed to its source metrics:
 * `average(apm.service.transaction.duration)` is `average(newrelic.timeslice.value)` over the
 * application-wide transaction metrics `WebTransaction` and `OtherTransaction/all`.
 *
 * Only the application-wide series are mapped. Of the names' dimensions, `transactionType` is
 * read from the metric name (`Web` for `WebTransaction`, `Errors/allWeb`, `External/allWeb`;
 * `Other` for their `Other` counterparts), so `WHERE transactionType = 'Web'` narrows to web
 * transactions as on New Relic; the others (`transactionName`, `external.host`, `datastoreType`…)
 * are not attributes of the timeslices and read as null. A name under `apm.` that is not in the table is refused, naming it and the mapped
 * ones, rather than answered with a silent null.
 */
export interface DimensionalMetric {
  /** The timeslice metric names it is derived from, as the agents send them. */
  readonly sources: string;
  /** Whether a timeslice of this metric name is one of its points. */
  readonly matches: (metricName: string) => boolean;
}

const oneOf = (...names: string[]) => (name: string) => names.includes(name);

export const DIMENSIONAL_METRICS: ReadonlyMap<string, DimensionalMetric> = new Map<string, DimensionalMetric>([
  ['apm.service.transaction.duration', { sources: 'WebTransaction, OtherTransaction/all', matches: oneOf('WebTransaction', 'OtherTransaction/all') }],
  ['apm.service.error.count', { sources: 'Errors/allWeb, Errors/allOther', matches: oneOf('Errors/allWeb', 'Errors/allOther') }],
  ['apm.service.transaction.error.count', { sources: 'Errors/allWeb, Errors/allOther', matches: oneOf('Errors/allWeb', 'Errors/allOther') }],
  ['apm.service.transaction.apdex', { sources: 'Apdex', matches: oneOf('Apdex') }],
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
  return WEB_SOURCES.has(metricName) ? 'Web' : OTHER_SOURCES.has(metricName) ? 'Other' : undefined;
}
