/**
 * Paths of the service's own (non-New Relic) HTTP routes, shared by the routes that answer them and
 * the clients in this repository that call them (`timeslice query`).
 */

/** One NRQL query in, NerdGraph's result container out: what `timeslice query` and shell scripts call. */
export const NRQL_ROUTE = '/timeslice/v1/nrql';

/** The store's upkeep: `GET` for `timeslice status`, `POST …/maintain` for `timeslice maintain`. */
export const STORE_ROUTE = '/timeslice/v1/store';
