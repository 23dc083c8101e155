import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpGraphData, httpRest as rest } from '../helpers/http-client.js';
import { startScenario, type Scenario } from './rest-scenario.js';

/*
 * Issue 19: the URI templates beside REST v2 objects led to 404s (New Relic's own values:
 * `/v2/application/{application_id}/hosts?ids=…`, `/v2/servers/{server_id}`). A client filling a
 * template with the ids of the object's own `links` must reach the object: every template of every
 * object kind is filled and followed here, over HTTP to the listening service, and must answer 200
 * with the objects it names.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(async () => {
  await s?.ts.stop();
});

type Obj = Record<string, any>;

/** Fills `{name}` from `values` (lists joined by commas); a template naming anything else fails the test. */
function fill(template: string, values: Record<string, number | readonly number[]>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = values[name];
    assert.notEqual(value, undefined, `${template}: nothing to fill {${name}} with`);
    return Array.isArray(value) ? value.join(',') : String(value);
  });
}

async function follow(template: string, values: Record<string, number | readonly number[]>): Promise<Obj> {
  const reply = await rest(s.ts, 'GET', fill(template, values));
  assert.equal(reply.status, 200, `${fill(template, values)} (from ${template}): ${reply.text}`);
  return reply.json();
}

describe('REST v2 link templates lead to the objects they name', () => {
  it('application, host and instance templates', async () => {
    const body = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`)).json();
    const app = body.application;
    const appValues = {
      application_id: app.id,
      host_ids: app.links.application_hosts, host_id: app.links.application_hosts[0],
      instance_ids: app.links.application_instances, instance_id: app.links.application_instances[0],
    };
    assert.deepEqual(Object.keys(body.links).sort(), [
      'application.application_host', 'application.application_hosts', 'application.application_instance', 'application.application_instances',
    ]);
    assert.deepEqual((await follow(body.links['application.application_hosts'], appValues)).application_hosts.map((h: Obj) => h.id).sort(),
      [s.hosts.web1, s.hosts.web2].sort());
    assert.equal((await follow(body.links['application.application_host'], appValues)).application_host.id, app.links.application_hosts[0]);
    assert.equal((await follow(body.links['application.application_instances'], appValues)).application_instances.length, 3);
    assert.equal((await follow(body.links['application.application_instance'], appValues)).application_instance.id, app.links.application_instances[0]);

    const hostBody = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/hosts/${s.hosts.web1}.json`)).json();
    const host = hostBody.application_host;
    const hostValues = { application_id: host.links.application, instance_ids: host.links.application_instances, instance_id: host.links.application_instances[0] };
    assert.deepEqual(Object.keys(hostBody.links).sort(), ['application_host.application', 'application_host.application_instance', 'application_host.application_instances']);
    assert.equal((await follow(hostBody.links['application_host.application'], hostValues)).application.id, s.checkout);
    assert.deepEqual((await follow(hostBody.links['application_host.application_instances'], hostValues)).application_instances.map((i: Obj) => i.id).sort(),
      [s.instances.web1a, s.instances.web1b].sort());
    assert.equal((await follow(hostBody.links['application_host.application_instance'], hostValues)).application_instance.host, 'web-1');

    const instanceBody = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/instances/${s.instances.web2}.json`)).json();
    const instance = instanceBody.application_instance;
    const instanceValues = { application_id: instance.links.application, host_id: instance.links.application_host };
    assert.deepEqual(Object.keys(instanceBody.links).sort(), ['application_instance.application', 'application_instance.application_host']);
    assert.equal((await follow(instanceBody.links['application_instance.application'], instanceValues)).application.id, s.checkout);
    assert.equal((await follow(instanceBody.links['application_instance.application_host'], instanceValues)).application_host.id, s.hosts.web2);
  });

  it('deployment and key transaction templates', async () => {
    assert.equal((await rest(s.ts, 'POST', `/v2/applications/${s.checkout}/deployments.json`, { body: { deployment: { revision: 'r1' } } })).status, 201);
    const deployments = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}/deployments.json`)).json();
    const deployment = deployments.deployments[0];
    assert.equal((await follow(deployments.links['deployment.agent'], { application_id: deployment.links.application })).application.id, s.checkout);

    const guid = Buffer.from(`1|APM|APPLICATION|${s.checkout}`).toString('base64').replace(/=+$/, '');
    await httpGraphData(s.ts, `mutation { keyTransactionCreate(applicationGuid: "${guid}", name: "Dispatch",
      metricName: "WebTransaction/Custom/checkout", apdexTarget: 0.5, browserApdexTarget: 7) { guid } }`);
    const kts = (await rest(s.ts, 'GET', '/v2/key_transactions.json')).json();
    const kt = kts.key_transactions[0];
    assert.equal((await follow(kts.links['key_transaction.application'], { application_id: kt.links.application })).application.id, s.checkout);
  });
});
