import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KeyTransaction } from '../../src/store/key-transactions.js';
import { sendMetrics } from '../helpers/rest-fixture.js';
import { connectAs, FORM, golden, minute, NOW_MS, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * GET /v2/key_transactions and /v2/key_transactions/{id}, JSON and XML. On top of the scenario
 * (rest-scenario.ts), checkout-web's pid 4100 reports two transactions in minutes 14:24–14:26,
 * and three key transactions are made through the store (as NerdGraph's keyTransactionCreate will):
 *
 *   Users list              checkout-web   WebTransaction/Expressjs/GET//users   Apdex T 0.2
 *   Nightly reconciliation  checkout-web   OtherTransaction/Custom/nightly-job   (the app's 0.5)
 *   Billing export          billing-worker WebTransaction/Custom/export          Apdex T 1.5, no data
 *
 * Golden files are in test/golden/rest/key-transactions/; the numbers are worked out below.
 */

const PER_MINUTE = [
  ['WebTransaction/Expressjs/GET//users', [6, 1.2, 1.0, 0.05, 0.5, 0.4]],
  ['Apdex/Expressjs/GET//users', [4, 1, 1, 0.2, 0.2, 0]],
  ['Errors/WebTransaction/Expressjs/GET//users', [1, 0, 0, 0, 0, 0]],
  ['OtherTransaction/Custom/nightly-job', [2, 4.0, 4.0, 1.5, 2.5, 8.5]],
] as const;

let s: Scenario;
let users: KeyTransaction;
let nightly: KeyTransaction;
let billingExport: KeyTransaction;

before(async () => {
  s = await startScenario();
  const run = await connectAs(s.ts, 'checkout-web', { host: 'web-1', pid: 4100 });
  for (const m of [24, 25, 26]) await sendMetrics(s.ts, run.runId, minute(m), minute(m + 1), PER_MINUTE.map(([name, stats]) => [name, '', stats]));
  const store = s.ts.server.entities.keyTransactions;
  const checkout = s.ts.server.catalog.application(s.checkout)!;
  users = await store.create({ application: checkout, name: 'Users list', metricName: 'WebTransaction/Expressjs/GET//users', apdexT: 0.2 });
  nightly = await store.create({ application: checkout, name: 'Nightly reconciliation', metricName: 'OtherTransaction/Custom/nightly-job' });
  billingExport = await store.create({
    application: s.ts.server.catalog.application(s.billing)!, name: 'Billing export', metricName: 'WebTransaction/Custom/export', apdexT: 1.5,
  });
});
after(() => s?.ts.stop());

type Obj = Record<string, any>;

describe('GET /v2/key_transactions', () => {
  it('lists them by name with summaries from their own metrics', async () => {
    await golden(s.ts, 'key-transactions/list', 'GET', '/v2/key_transactions.json');
    await golden(s.ts, 'key-transactions/list-xml', 'GET', '/v2/key_transactions.xml');
  });

  it('filters by name (substring, any case) and ids, also from a form body', async () => {
    await golden(s.ts, 'key-transactions/filter-name', 'GET', '/v2/key_transactions.json?filter[name]=USERS');
    await golden(s.ts, 'key-transactions/filter-ids', 'GET', `/v2/key_transactions.xml?filter[ids]=${nightly.id},${billingExport.id},999`);
    const reply = await golden(s.ts, 'key-transactions/filter-form-body', 'GET', '/v2/key_transactions.json', {
      body: 'filter[name]=export', headers: FORM, note: 'body (application/x-www-form-urlencoded): filter[name]=export',
    });
    assert.deepEqual(reply.json().key_transactions.map((k: Obj) => k.id), [billingExport.id]);
    await golden(s.ts, 'key-transactions/page-past-end', 'GET', '/v2/key_transactions.json?page=2');
  });

  it('shows one in JSON and XML', async () => {
    await golden(s.ts, 'key-transactions/show', 'GET', `/v2/key_transactions/${users.id}.json`);
    await golden(s.ts, 'key-transactions/show-xml', 'GET', `/v2/key_transactions/${nightly.id}.xml`);
  });

  it('summaries: the numbers worked out by hand', async () => {
    const byId = new Map(((await rest(s.ts, 'GET', '/v2/key_transactions.json')).json().key_transactions as Obj[]).map((k) => [k.id, k]));
    // Users list, minutes 24–26: 18 calls, 3.6 s → 200 ms; 1.8 a minute over the 10-minute window;
    // 3 errors / 18 calls = 16.67 % → 16.7; its Apdex S 12, T 3, F 3: (12 + 1.5) / 18 = 0.75, against its own T 0.2.
    assert.deepEqual(byId.get(users.id)!.application_summary, { response_time: 200, throughput: 1.8, error_rate: 16.7, apdex_target: 0.2, apdex_score: 0.75 });
    assert.equal(byId.get(users.id)!.health_status, 'red'); // errors ≥ 10 %
    // Nightly: 6 calls, 12 s → 2000 ms; 0.6 a minute; no errors; a background transaction has no Apdex.
    assert.deepEqual(byId.get(nightly.id)!.application_summary, { response_time: 2000, throughput: 0.6, error_rate: 0, apdex_target: 0.5, apdex_score: 0 });
    assert.equal(byId.get(nightly.id)!.health_status, 'green');
    // Billing export: billing-worker reports, the transaction had no calls.
    assert.deepEqual(byId.get(billingExport.id)!.application_summary, { response_time: 0, throughput: 0, error_rate: 0, apdex_target: 1.5, apdex_score: 0 });
    for (const kt of byId.values()) {
      assert.equal(kt.reporting, true);
      assert.equal(kt.last_reported_at, '2024-03-05T14:30:20+00:00');
    }
  });
});

describe('key transactions of applications that stopped reporting or were deleted', () => {
  it('are gray without a summary, and go with their application', async () => {
    s.clock.ms = NOW_MS + 10 * 60_000;
    try {
      await golden(s.ts, 'key-transactions/not-reporting', 'GET', `/v2/key_transactions/${users.id}.json`);
      assert.equal((await rest(s.ts, 'DELETE', `/v2/applications/${s.billing}.json`)).status, 200);
      await golden(s.ts, 'key-transactions/application-deleted', 'GET', `/v2/key_transactions/${billingExport.id}.json`);
      const left = (await rest(s.ts, 'GET', '/v2/key_transactions.json')).json().key_transactions as Obj[];
      assert.deepEqual(left.map((k) => k.id), [nightly.id, users.id]);
    } finally {
      s.clock.ms = NOW_MS;
    }
  });
});
