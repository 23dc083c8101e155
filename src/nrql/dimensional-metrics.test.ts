import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIMENSIONAL_METRICS, datastoreTypeOf, externalHostOf, transactionNameOf, transactionTypeOf } from './dimensional-metrics.js';

describe('dimensions read from a timeslice metric name', () => {
  it('transactionName: the transaction metric itself, its errors and its Apdex; never a roll-up', () => {
    assert.equal(transactionNameOf('WebTransaction/Expressjs/GET//users'), 'WebTransaction/Expressjs/GET//users');
    assert.equal(transactionNameOf('OtherTransaction/Nodejs/job'), 'OtherTransaction/Nodejs/job');
    assert.equal(transactionNameOf('Errors/WebTransaction/Expressjs/GET//users'), 'WebTransaction/Expressjs/GET//users');
    assert.equal(transactionNameOf('Apdex/Expressjs/GET//users'), 'WebTransaction/Expressjs/GET//users');
    for (const rollup of ['WebTransaction', 'OtherTransaction/all', 'OtherTransaction/Nodejs/all', 'Errors/all', 'Errors/allWeb',
      'Apdex', 'WebTransactionTotalTime/Expressjs/GET//users', 'HttpDispatcher', 'EndUser/Apdex']) {
      assert.equal(transactionNameOf(rollup), undefined, rollup);
    }
  });

  it('transactionType: the roll-ups and every per-transaction metric', () => {
    assert.equal(transactionTypeOf('WebTransaction'), 'Web');
    assert.equal(transactionTypeOf('External/allOther'), 'Other');
    assert.equal(transactionTypeOf('Apdex/Expressjs/GET//users'), 'Web');
    assert.equal(transactionTypeOf('Errors/OtherTransaction/Nodejs/job'), 'Other');
    assert.equal(transactionTypeOf('Memory/Physical'), undefined);
  });

  it('external.host: External/{host}/all only', () => {
    assert.equal(externalHostOf('External/api.example.com/all'), 'api.example.com');
    assert.equal(externalHostOf('External/api.example.com/http/GET'), undefined);
    assert.equal(externalHostOf('External/all'), undefined);
    assert.equal(externalHostOf('External/allWeb'), undefined);
  });

  it('datastoreType: operation, statement and instance metrics and the product roll-ups', () => {
    assert.equal(datastoreTypeOf('Datastore/operation/Postgres/select'), 'Postgres');
    assert.equal(datastoreTypeOf('Datastore/statement/MySQL/users/select'), 'MySQL');
    assert.equal(datastoreTypeOf('Datastore/instance/Redis/cache-1/6379'), 'Redis');
    assert.equal(datastoreTypeOf('Datastore/MongoDB/all'), 'MongoDB');
    assert.equal(datastoreTypeOf('Datastore/MongoDB/allOther'), 'MongoDB');
    for (const other of ['Datastore/all', 'Datastore/allWeb', 'Datastore/operation/all', 'External/Postgres/all']) assert.equal(datastoreTypeOf(other), undefined, other);
  });

  it('per-transaction points of the transaction metrics', () => {
    const duration = DIMENSIONAL_METRICS.get('apm.service.transaction.duration')!.perTransaction!;
    assert.deepEqual(['WebTransaction', 'WebTransaction/Expressjs/GET//x', 'OtherTransaction/all', 'OtherTransaction/Nodejs/job', 'Errors/WebTransaction/Expressjs/GET//x']
      .filter(duration), ['WebTransaction/Expressjs/GET//x', 'OtherTransaction/Nodejs/job']);
    const errors = DIMENSIONAL_METRICS.get('apm.service.transaction.error.count')!.perTransaction!;
    assert.deepEqual(['Errors/allWeb', 'Errors/WebTransaction/Expressjs/GET//x', 'WebTransaction/Expressjs/GET//x'].filter(errors), ['Errors/WebTransaction/Expressjs/GET//x']);
    const apdex = DIMENSIONAL_METRICS.get('apm.service.transaction.apdex')!.perTransaction!;
    assert.deepEqual(['Apdex', 'Apdex/Expressjs/GET//x', 'EndUser/Apdex'].filter(apdex), ['Apdex/Expressjs/GET//x']);
    assert.equal(DIMENSIONAL_METRICS.get('apm.service.error.count')!.perTransaction, undefined);
  });
});
