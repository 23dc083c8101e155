import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORM, golden, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * GET /v2/applications and /v2/applications/{id}, JSON and XML, on the scenario's two
 * applications (rest-scenario.ts). Bodies, statuses and headers are pinned in
 * test/golden/rest/applications/; the summary numbers are also worked out here by hand.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

describe('GET /v2/applications', () => {
  it('lists both applications, sorted by name, with summaries and link templates', async () => {
    await golden(s.ts, 'applications/list', 'GET', '/v2/applications.json');
    await golden(s.ts, 'applications/list-xml', 'GET', '/v2/applications.xml');
  });

  it('filters by name (substring, any case), ids, language and host', async () => {
    await golden(s.ts, 'applications/filter-name', 'GET', '/v2/applications.json?filter[name]=CHECKOUT');
    await golden(s.ts, 'applications/filter-name-none', 'GET', '/v2/applications.json?filter[name]=nothing+like+this');
    await golden(s.ts, 'applications/filter-ids', 'GET', `/v2/applications.json?filter[ids]=${s.billing},999`);
    await golden(s.ts, 'applications/filter-language', 'GET', '/v2/applications.xml?filter[language]=python');
    await golden(s.ts, 'applications/filter-host', 'GET', '/v2/applications.json?filter[host]=web-2&exclude_links=true');
  });

  it('reads the filter from a form-encoded GET body too', async () => {
    const reply = await golden(s.ts, 'applications/filter-form-body', 'GET', '/v2/applications.json?exclude_links=true', {
      body: 'filter[name]=billing',
      headers: FORM,
      note: 'body (application/x-www-form-urlencoded): filter[name]=billing',
    });
    assert.deepEqual(reply.json().applications.map((a: { name: string }) => a.name), ['billing-worker']);
  });

  it('leaves out the link templates with exclude_links=true', async () => {
    const reply = await golden(s.ts, 'applications/exclude-links', 'GET', '/v2/applications.json?exclude_links=true');
    assert.deepEqual(Object.keys(reply.json()), ['applications']);
    await golden(s.ts, 'applications/exclude-links-xml', 'GET', '/v2/applications.xml?exclude_links=true');
  });

  it('answers a page past the end with an empty list (no Link: everything fits on one page)', async () => {
    const reply = await golden(s.ts, 'applications/page-past-end', 'GET', '/v2/applications.json?page=3');
    assert.deepEqual(reply.json().applications, []);
    await golden(s.ts, 'applications/page-past-end-xml', 'GET', '/v2/applications.xml?page=2&exclude_links=true');
  });

  it('application_summary and end_user_summary: the numbers worked out by hand', async () => {
    const apps = (await rest(s.ts, 'GET', '/v2/applications.json')).json().applications as Record<string, any>[];
    const checkout = apps.find((a) => a.id === s.checkout)!;
    const billing = apps.find((a) => a.id === s.billing)!;
    // The summary window is the 10 minutes 14:21–14:31, which holds all the data.
    // checkout HttpDispatcher: 5×10 + 3×20 + 2×5 = 120 calls, 5×2 + 3×3 + 2×5 = 29 s → 241.67 ms;
    // queue time 5×0.1 + 3×0.4 + 2×0.05 = 1.8 s over 120 calls = 15 ms a request → 256.67 → 257.
    assert.equal(checkout.application_summary.response_time, 257);
    assert.equal(checkout.application_summary.throughput, 12); // 120 requests / 10 min
    // errors 5 + 3 + 2 = 10 over 120 web + 10 background transactions: 7.692 % → 7.69.
    assert.equal(checkout.application_summary.error_rate, 7.69);
    // Apdex S 40+45+2 = 87, T 5+12+4 = 21, F 5+3+4 = 12: (87 + 10.5) / 120 = 0.8125 → 0.81.
    assert.equal(checkout.application_summary.apdex_score, 0.81);
    assert.equal(checkout.application_summary.host_count, 2);
    assert.equal(checkout.application_summary.instance_count, 3);
    assert.equal(checkout.health_status, 'orange'); // errors ≥ 5 %
    // EndUser: 25 page loads, 50 s → 2 s each; 2.5 a minute; EndUser/Apdex (20 + 2.5) / 25 = 0.9.
    assert.deepEqual(checkout.end_user_summary, { response_time: 2, throughput: 2.5, apdex_target: 7, apdex_score: 0.9 });
    // billing: 8 calls, 1.6 s → 200 ms, no queue time; 0.8 a minute; Apdex (6 + 1) / 8 = 0.875 → 0.88.
    assert.deepEqual(
      [billing.application_summary.response_time, billing.application_summary.throughput, billing.application_summary.error_rate, billing.application_summary.apdex_score],
      [200, 0.8, 0, 0.88],
    );
    assert.equal(billing.end_user_summary, undefined);
    assert.equal(billing.language, 'python');
  });
});

describe('GET /v2/applications/{id}', () => {
  it('shows one application in JSON and XML', async () => {
    await golden(s.ts, 'applications/show', 'GET', `/v2/applications/${s.checkout}.json`);
    await golden(s.ts, 'applications/show-xml', 'GET', `/v2/applications/${s.checkout}.xml`);
    await golden(s.ts, 'applications/show-background', 'GET', `/v2/applications/${s.billing}.json`);
  });

  it('accepts the key in Api-Key as well as X-Api-Key', async () => {
    const viaApiKey = await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`, { key: null, headers: { 'Api-Key': 'NRAK-TESTKEY0000000000000000000' } });
    const viaX = await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`);
    assert.equal(viaApiKey.status, 200);
    assert.equal(viaApiKey.text, viaX.text);
  });
});
