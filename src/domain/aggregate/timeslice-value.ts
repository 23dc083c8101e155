/** The NRQL name of the timeslice value attribute (the spec's `service.timeslice.value` is an alias). */
export const TIMESLICE_VALUE = 'newrelic.timeslice.value';

/** The parts of a timeslice value, as NRQL names them (`V['totalExclusive']`). */
export const TIMESLICE_VALUE_FIELDS = ['count', 'total', 'totalExclusive', 'min', 'max', 'sumOfSquares'] as const;
export type TimesliceValueField = (typeof TIMESLICE_VALUE_FIELDS)[number];
