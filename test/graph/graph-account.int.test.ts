import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { graph, graphData } from '../helpers/graph-client.js';
import { ManualClock } from '../helpers/rest-fixture.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/* `account(id) { reportingEventTypes }`: the event types with data in a window, and the windows it refuses. */

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const HOUR = 3_600_000;

describe('account.reportingEventTypes', () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
    // Deploy events 2 hours ago, Job events 3 days ago: written straight into the store.
    await ts.server.db.catalogConnection.run(`INSERT INTO custom_events VALUES
      (1, 0, 0, 0, make_timestamp(${(NOW - 2 * HOUR) * 1000}), 'Deploy', '{}'),
      (1, 0, 0, 0, make_timestamp(${(NOW - 72 * HOUR) * 1000}), 'Job', '{}')`);
  });
  after(() => ts?.stop());

  const types = async (args: string) => (await graphData(ts, `{ actor { account(id: 1) { reportingEventTypes${args} } } }`)).actor.account.reportingEventTypes;

  it('the last 24 hours by default; a window and a filter narrow it', async () => {
    assert.deepEqual(await types(''), ['Deploy']);
    assert.deepEqual(await types(`(timeWindow: {startTime: ${NOW - 96 * HOUR}, endTime: ${NOW}})`), ['Deploy', 'Job']);
    assert.deepEqual(await types(`(timeWindow: {startTime: ${NOW - 96 * HOUR}, endTime: ${NOW - 48 * HOUR}})`), ['Job']);
    assert.deepEqual(await types(`(filter: ["Job", "Nothing"], timeWindow: {startTime: ${NOW - 96 * HOUR}, endTime: ${NOW}})`), ['Job']);
  });

  it('refuses windows outside NRQL’s dates or ending before they start, as INVALID_INPUT (was an internal error)', async () => {
    for (const [window, message] of [
      ['{startTime: -8640000000000001, endTime: 0}', 'timeWindow.startTime must be epoch milliseconds from 0 to 253402300799999 (the end of year 9999)'],
      ['{startTime: 0, endTime: 8640000000000001}', 'timeWindow.endTime must be epoch milliseconds from 0 to 253402300799999 (the end of year 9999)'],
      [`{startTime: ${NOW}, endTime: ${NOW - 1}}`, 'timeWindow.startTime must be before timeWindow.endTime'],
    ] as const) {
      const reply = await graph(ts, `{ actor { account(id: 1) { reportingEventTypes(timeWindow: ${window}) } } }`);
      assert.deepEqual(reply.body.errors?.map((e) => [e.message, e.extensions?.errorClass, e.path]), [[message, 'INVALID_INPUT', ['actor', 'account', 'reportingEventTypes']]]);
      assert.deepEqual(reply.body.data, { actor: { account: { reportingEventTypes: null } } });
    }
  });
});

describe('queries per request', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  });
  after(() => ts?.stop());

  it('50 queries in one document answer; the 51st and later are INVALID_INPUT, each on its own field', async () => {
    const fields = Array.from({ length: 53 }, (_, i) => `q${i}: nrql(accounts: [1], query: "SELECT count(*) FROM Transaction") { results }`).join(' ');
    const reply = await graph(ts, `{ actor { ${fields} } }`);
    assert.equal(reply.status, 200);
    const answered = Object.entries(reply.body.data.actor).filter(([, v]) => v !== null).map(([k]) => k);
    assert.equal(answered.length, 50);
    assert.deepEqual(reply.body.errors?.map((e) => [e.extensions?.errorClass, e.message]), Array.from({ length: 3 }, () => [
      'INVALID_INPUT', 'A request may run at most 50 queries (NRQL, entity searches, deployment searches); this one asks for more: send them in several requests',
    ]));
    // Entity searches count too, against the same budget.
    const searches = Array.from({ length: 51 }, (_, i) => `s${i}: entitySearch(query: "domain = 'APM'") { count }`).join(' ');
    const searched = await graph(ts, `{ actor { ${searches} } }`);
    assert.equal(searched.body.errors?.length, 1);
  });
});

describe('text that is not well-formed Unicode', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({}, { clock: new ManualClock(NOW) });
  });
  after(() => ts?.stop());

  it('a variable holding a lone surrogate is refused before anything runs, and nothing is stored', async () => {
    const reply = await graph(ts, 'mutation($name: String!) { agentApplicationCreateMobile(accountId: 1, name: $name) { guid } }', { name: 'shop\ud800' });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      errors: [{ message: 'Variable $name holds a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF): send well-formed Unicode', extensions: { errorClass: 'INVALID_INPUT' } }],
    });
    assert.deepEqual(ts.server.entities.mobileApplications.list(1), []);
    // Nested in an input object, and as a key of custom attributes: the path says where.
    const nested = await graph(ts, 'mutation($e: ChangeTrackingCreateEventInput!) { changeTrackingCreateEvent(changeTrackingEvent: $e) { messages } }', {
      e: { entitySearch: { query: "domain = 'APM'" }, customAttributes: { ['k\udc00']: 1 } },
    });
    assert.equal(nested.body.errors?.[0]?.message, 'Variable $e.customAttributes.k\udc00 holds a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF): send well-formed Unicode');
    // A surrogate pair (an emoji) is well-formed.
    const emoji = await graph(ts, 'mutation($name: String!) { agentApplicationCreateMobile(accountId: 1, name: $name) { name } }', { name: 'shop \ud83d\ude00' });
    assert.deepEqual(emoji.body, { data: { agentApplicationCreateMobile: { name: 'shop \ud83d\ude00' } } });
  });
});
