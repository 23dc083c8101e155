import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FORM, golden, NOW_MS, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * GET /v2/applications/{id}/hosts and /instances, one of each by id, JSON and XML, over the
 * scenario (rest-scenario.ts): checkout-web runs on web-1 (instances pid 4100, 4101) and web-2
 * (pid 4200). Bodies are pinned in test/golden/rest/hosts/; the summary numbers are worked out
 * here by hand from the harvests, over the 10-minute window 14:21–14:31 that holds all the data.
 */

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const hosts = () => `/v2/applications/${s.checkout}/hosts`;
const instances = () => `/v2/applications/${s.checkout}/instances`;
type Obj = Record<string, any>;

describe('GET /v2/applications/{id}/hosts', () => {
  it('lists the hosts by name, with their summaries and link templates', async () => {
    await golden(s.ts, 'hosts/list', 'GET', `${hosts()}.json`);
    await golden(s.ts, 'hosts/list-xml', 'GET', `${hosts()}.xml`);
    await golden(s.ts, 'hosts/list-billing', 'GET', `/v2/applications/${s.billing}/hosts.json`);
  });

  it('filters by host name (substring, any case) and ids, also from a form body', async () => {
    await golden(s.ts, 'hosts/filter-hostname', 'GET', `${hosts()}.json?filter[hostname]=EB-2`);
    await golden(s.ts, 'hosts/filter-hostname-none', 'GET', `${hosts()}.xml?filter[hostname]=db`);
    await golden(s.ts, 'hosts/filter-ids', 'GET', `${hosts()}.json?filter[ids]=${s.hosts.web1},999`);
    const reply = await golden(s.ts, 'hosts/filter-form-body', 'GET', `${hosts()}.json`, {
      body: 'filter[hostname]=web-1', headers: FORM, note: 'body (application/x-www-form-urlencoded): filter[hostname]=web-1',
    });
    assert.deepEqual(reply.json().application_hosts.map((h: Obj) => h.id), [s.hosts.web1]);
  });

  it('answers a page past the end with an empty list', async () => {
    await golden(s.ts, 'hosts/page-past-end', 'GET', `${hosts()}.json?page=2`);
  });

  it('shows one host in JSON and XML', async () => {
    await golden(s.ts, 'hosts/show', 'GET', `${hosts()}/${s.hosts.web1}.json`);
    await golden(s.ts, 'hosts/show-xml', 'GET', `${hosts()}/${s.hosts.web2}.xml`);
  });

  it('host summaries: the numbers worked out by hand', async () => {
    const list = (await rest(s.ts, 'GET', `${hosts()}.json`)).json().application_hosts as Obj[];
    assert.deepEqual(list.map((h) => h.host), ['web-1', 'web-2']);
    const [web1, web2] = list as [Obj, Obj];
    // web-1 = pid 4100 (minutes 22–26) + pid 4101 (24–26). HttpDispatcher 5×10 + 3×20 = 110 calls,
    // 5×2 + 3×3 = 19 s → 172.73 ms; queue 5×0.1 + 3×0.4 = 1.7 s over 110 requests = 15.45 ms → 188.18 → 188.
    // Throughput 110 / 10 min = 11. Errors 5 + 3 = 8 over 110 web + 5×2 background = 120: 6.667 % → 6.67.
    // Apdex S 40 + 45 = 85, T 5 + 12 = 17, F 5 + 3 = 8: (85 + 8.5) / 110 = 0.85.
    assert.deepEqual(web1.application_summary, { response_time: 188, throughput: 11, error_rate: 6.67, apdex_score: 0.85, instance_count: 2 });
    // Browser data came from pid 4100 only: 25 page loads, 50 s → 2 s; 2.5 a minute; (20 + 2.5) / 25 = 0.9.
    assert.deepEqual(web1.end_user_summary, { response_time: 2, throughput: 2.5, apdex_score: 0.9 });
    assert.equal(web1.health_status, 'orange'); // errors ≥ 5 %
    assert.deepEqual(web1.links, { application: s.checkout, application_instances: [s.instances.web1a, s.instances.web1b] });
    // web-2 = pid 4200 (minutes 25–26): 10 calls, 10 s → 1000 ms; queue 0.1 s / 10 = 10 ms → 1010.
    // 1 request a minute; errors 2 / 10 = 20 %; Apdex S 2, T 4, F 4: (2 + 2) / 10 = 0.4.
    assert.deepEqual(web2.application_summary, { response_time: 1010, throughput: 1, error_rate: 20, apdex_score: 0.4, instance_count: 1 });
    assert.equal(web2.end_user_summary, undefined);
    assert.equal(web2.health_status, 'red');
  });
});

describe('GET /v2/applications/{id}/instances', () => {
  it('lists the instances by host name, then id', async () => {
    await golden(s.ts, 'hosts/instances-list', 'GET', `${instances()}.json`);
    await golden(s.ts, 'hosts/instances-list-xml', 'GET', `${instances()}.xml`);
  });

  it('filters by host name and ids', async () => {
    await golden(s.ts, 'hosts/instances-filter-hostname', 'GET', `${instances()}.json?filter[hostname]=web-1`);
    await golden(s.ts, 'hosts/instances-filter-ids', 'GET', `${instances()}.xml?filter[ids]=${s.instances.web2},${s.instances.web1a}`);
  });

  it('shows one instance in JSON and XML', async () => {
    await golden(s.ts, 'hosts/instance-show', 'GET', `${instances()}/${s.instances.web1b}.json`);
    await golden(s.ts, 'hosts/instance-show-xml', 'GET', `${instances()}/${s.instances.web1a}.xml`);
  });

  it('instance summaries: by hand, and they add up to the application', async () => {
    const list = (await rest(s.ts, 'GET', `${instances()}.json`)).json().application_instances as Obj[];
    assert.deepEqual(list.map((i) => i.id), [s.instances.web1a, s.instances.web1b, s.instances.web2]);
    const summary = (i: Obj) => i.application_summary;
    // pid 4100: 50 calls, 10 s → 200 ms, queue 0.5 s / 50 = 10 ms → 210; 5 a minute; errors 5 / (50 + 10) = 8.33 %;
    // Apdex (40 + 2.5) / 50 = 0.85.
    assert.deepEqual(summary(list[0]!), { response_time: 210, throughput: 5, error_rate: 8.33, apdex_score: 0.85, instance_count: 1 });
    // pid 4101: 60 calls, 9 s → 150 ms, queue 1.2 s / 60 = 20 ms → 170; 6 a minute; errors 3 / 60 = 5 %; (45 + 6) / 60 = 0.85.
    assert.deepEqual(summary(list[1]!), { response_time: 170, throughput: 6, error_rate: 5, apdex_score: 0.85, instance_count: 1 });
    assert.deepEqual(summary(list[2]!), { response_time: 1010, throughput: 1, error_rate: 20, apdex_score: 0.4, instance_count: 1 });
    // The application's 257 ms is the request-weighted mean of its instances': (210×50 + 170×60 + 1010×10) / 120 = 256.67.
    const app = (await rest(s.ts, 'GET', `/v2/applications/${s.checkout}.json`)).json().application as Obj;
    assert.equal(app.application_summary.response_time, 257);
    assert.equal(Number(((210 * 50 + 170 * 60 + 1010 * 10) / 120).toPrecision(3)), 257);
    assert.equal(list.reduce((n, i) => n + i.application_summary.throughput, 0), app.application_summary.throughput);
    for (const i of list) assert.equal(i.port, null); // the captured Node agent connect names no port
  });
});

describe('hosts and instances that stopped reporting', () => {
  it('are gray, without summaries, and link every instance of the host', async () => {
    // The last harvest arrived at 14:30:20; at 14:40:20 nothing has reported for 10 minutes.
    s.clock.ms = NOW_MS + 10 * 60_000;
    try {
      await golden(s.ts, 'hosts/not-reporting', 'GET', `${hosts()}/${s.hosts.web1}.json`);
      await golden(s.ts, 'hosts/instance-not-reporting-xml', 'GET', `${instances()}/${s.instances.web2}.xml`);
      const list = (await rest(s.ts, 'GET', `${hosts()}.json`)).json().application_hosts as Obj[];
      assert.deepEqual(list.map((h) => h.health_status), ['gray', 'gray']);
      assert.ok(list.every((h) => h.application_summary === undefined));
    } finally {
      s.clock.ms = NOW_MS;
    }
  });
});
