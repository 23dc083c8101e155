import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORM, golden, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * PUT and DELETE /v2/applications/{id}, in order on one scenario: renames and settings, then
 * a delete refused while the application reports and accepted once it has been silent for more
 * than 10 minutes. Golden files are in test/golden/rest/applications/mutation/.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

describe('PUT /v2/applications/{id}', () => {
  it('changes the name and the settings from a JSON body and answers with the updated object', async () => {
    const body = { application: { name: 'Checkout (prod)', settings: { app_apdex_threshold: 0.4, end_user_apdex_threshold: 5, enable_real_user_monitoring: true } } };
    const reply = await golden(s.ts, 'applications/mutation/put-json', 'PUT', `/v2/applications/${s.checkout}.json`, {
      body, note: `body (application/json): ${JSON.stringify(body)}`,
    });
    const app = reply.json().application;
    assert.equal(app.name, 'Checkout (prod)');
    assert.deepEqual(app.settings, { app_apdex_threshold: 0.4, end_user_apdex_threshold: 5, enable_real_user_monitoring: true, use_server_side_config: false });
    assert.equal(app.application_summary.apdex_target, 0.4);
    assert.equal(app.end_user_summary.apdex_target, 5);
    const shown = await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`);
    assert.deepEqual(shown.json().application, app);
  });

  it('takes a partial body, ignores unknown members, and answers in XML for .xml', async () => {
    const body = { application: { settings: { app_apdex_threshold: 0.25 }, colour: 'blue' }, extra: 1 };
    await golden(s.ts, 'applications/mutation/put-partial-xml', 'PUT', `/v2/applications/${s.checkout}.xml`, {
      body, note: `body (application/json): ${JSON.stringify(body)}`,
    });
    const shown = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`)).json().application;
    assert.equal(shown.name, 'Checkout (prod)');
    assert.equal(shown.settings.app_apdex_threshold, 0.25);
    assert.equal(shown.settings.end_user_apdex_threshold, 5);
  });

  it('takes the same fields form-encoded', async () => {
    const body = 'application[name]=Billing+worker&application[settings][app_apdex_threshold]=1.5&application[settings][enable_real_user_monitoring]=true';
    const reply = await golden(s.ts, 'applications/mutation/put-form', 'PUT', `/v2/applications/${s.billing}.json`, {
      body, headers: FORM, note: `body (application/x-www-form-urlencoded): ${body}`,
    });
    const app = reply.json().application;
    assert.equal(app.name, 'Billing worker');
    assert.equal(app.settings.app_apdex_threshold, 1.5);
    assert.equal(app.settings.enable_real_user_monitoring, true);
  });

  it('the renamed applications list by their new names; the agents still report into them', async () => {
    await golden(s.ts, 'applications/mutation/list-after-put', 'GET', '/v2/applications.json?exclude_links=true&filter[name]=prod');
  });
});

describe('DELETE /v2/applications/{id}', () => {
  it('is refused with 422 while the application reports', async () => {
    await golden(s.ts, 'applications/mutation/delete-reporting', 'DELETE', `/v2/applications/${s.billing}.json`);
    await golden(s.ts, 'applications/mutation/delete-reporting-xml', 'DELETE', `/v2/applications/${s.billing}.xml`);
    assert.equal((await rest(s.ts, 'GET', `/v2/applications/${s.billing}.json`)).status, 200);
  });

  it('11 minutes after the last data: 200 with the (gray) object, then the application is gone', async () => {
    s.clock.ms += 11 * 60_000;
    const reply = await golden(s.ts, 'applications/mutation/delete', 'DELETE', `/v2/applications/${s.billing}.json`);
    assert.equal(reply.json().application.health_status, 'gray');
    assert.equal(reply.json().application.reporting, false);
    await golden(s.ts, 'applications/mutation/show-after-delete', 'GET', `/v2/applications/${s.billing}.json`);
    await golden(s.ts, 'applications/mutation/delete-again-xml', 'DELETE', `/v2/applications/${s.billing}.xml`);
    await golden(s.ts, 'applications/mutation/data-after-delete', 'GET', `/v2/applications/${s.billing}/metrics/data.json?names[]=HttpDispatcher`);
    await golden(s.ts, 'applications/mutation/list-after-delete', 'GET', '/v2/applications.json?exclude_links=true');
  });
});
