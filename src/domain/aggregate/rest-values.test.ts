import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APDEX_VALUE_FUNCTIONS, SPEC_VALUE_FUNCTIONS } from '../../../test/helpers/spec-value-functions.js';
import { formula, printFormula } from '../../nrql/formula.js';
import { REST_VALUES, restValueOf, valueNamesOf, type RestValue } from './rest-values.js';

const restValueNrql = (value: RestValue, valueName: string) => printFormula(formula(value.nrql), valueName);
test('every value of spec §4.5 maps to the function the spec names', () => {
  for (const [name, nrql] of Object.entries(SPEC_VALUE_FUNCTIONS)) {
    const value = REST_VALUES.get(name);
    assert.ok(value, name);
    assert.equal(restValueNrql(value, 'V'), nrql, name);
  }
});

test('Apdex values map to the slots the agents fill', () => {
  for (const [name, nrql] of Object.entries(APDEX_VALUE_FUNCTIONS)) assert.equal(restValueNrql(REST_VALUES.get(name)!, 'V'), nrql, name);
});

test('value names by metric family', () => {
  assert.deepEqual(valueNamesOf('Apdex'), ['s', 't', 'f', 'count', 'score', 'value', 'threshold', 'threshold_min']);
  assert.deepEqual(valueNamesOf('EndUser/Apdex'), valueNamesOf('Apdex'));
  assert.deepEqual(valueNamesOf('Apdex/Expressjs/GET//users'), valueNamesOf('Apdex'));
  assert.deepEqual(valueNamesOf('Errors/all'), ['errors_per_minute', 'error_count']);
  assert.equal(valueNamesOf('HttpDispatcher').at(-1), 'average_call_time');
  assert.equal(valueNamesOf('HttpDispatcher').length, 11);
  assert.equal(valueNamesOf('WebFrontend/QueueTime').length, 10);
  assert.ok(valueNamesOf('Datastore/all').includes('average_response_time'));
});

test('a value the metric does not offer is undefined; CPU percent is a share of wall-clock time', () => {
  assert.equal(restValueOf('Apdex', 'call_count'), undefined);
  assert.equal(restValueOf('HttpDispatcher', 'score'), undefined);
  assert.equal(restValueNrql(restValueOf('CPU/User Time', 'percent')!, 'V'), 'rate(sum(V), 1 second) * 100');
});
