import assert from 'node:assert/strict';
import { connect as connectSocket, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ManualClock, startTestServer, TEST_API_KEY } from '../helpers/rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from '../helpers/test-server.js';
import { httpGraph, httpRequest, loadApmScenario, NOW, nrqlTime, type HttpReply, type ScenarioIds } from './graph-scenario.js';

/*
 * The graph API's transport over real HTTP (a socket to the server's API port): authentication
 * and its header spellings, compressed and `application/graphql` bodies, GET, the refusals
 * before GraphQL runs (bad JSON, no query, too large, a gzip bomb, a mutation over GET), the
 * GraphQL features clients lean on (undeclared variables, list coercion, aliases, __typename),
 * validation errors, and the 25-requests-per-key concurrency limit. Every error entry of every
 * answer must carry `extensions.errorClass` (client-go reads it to decide whether to retry).
 */

const MIB = 1024 * 1024;
const LOAD_EVENTS = 8000;
/** HttpDispatcher calls of the scenario's applications in 14:25–14:27 (graph-scenario.ts): 10 + 6 + 24. */
const WEB_CALLS = 40;
const CALLS_QUERY = `SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'HttpDispatcher' SINCE ${nrqlTime(25)} UNTIL ${nrqlTime(27)}`;

let ts: TestServer;
let ids: ScenarioIds;
/** Every answer that had errors, checked for errorClass at the end. */
const errorAnswers: { label: string; body: any }[] = [];

before(async () => {
  const clock = new ManualClock(NOW);
  ts = await startTestServer({}, { clock });
  ids = await loadApmScenario(ts, clock);
  // Events slow to scan, for requests that overlap: 8,000 with a 3,000-character attribute (24 MB of text).
  for (let first = 0; first < LOAD_EVENTS; first += 2000) {
    const events = Array.from({ length: 2000 }, (_, i) => ({ eventType: 'LoadEvent', n: first + i, pad: `${'abcdefghij'.repeat(300)}${first + i}`, timestamp: NOW - 60_000 }));
    const reply = await httpRequest(ts, {
      path: '/v1/accounts/1/events',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'api-key': TEST_LICENSE_KEY },
      body: gzipSync(JSON.stringify(events)),
    });
    assert.equal(reply.status, 200, reply.text);
  }
});
after(() => ts?.stop());

/** The parsed body; records it when it has errors. */
function body(label: string, reply: HttpReply): any {
  const parsed = reply.json();
  if (parsed.errors) errorAnswers.push({ label, body: parsed });
  return parsed;
}

/** A refusal before GraphQL runs: the status, one error in the envelope, no data. */
function assertRefused(label: string, reply: HttpReply, status: number, errorClass: string, message: RegExp): any {
  assert.equal(reply.status, status, `${label}: ${reply.text}`);
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  const parsed = body(label, reply);
  assert.equal(parsed.data, undefined, `${label}: no data`);
  assert.equal(parsed.errors.length, 1);
  assert.equal(parsed.errors[0].extensions.errorClass, errorClass);
  assert.match(parsed.errors[0].message, message);
  return parsed;
}

/** One request written to a socket as given (for framings an HTTP client would not send); the reply as HttpReply. */
async function rawHttp(request: string): Promise<HttpReply> {
  const url = new URL(ts.server.apiUrl);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connectSocket(Number(url.port), url.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  return parseRawReply(text);
}

/** An HTTP/1.1 reply read off a socket (Connection: close, so the body is the rest). */
function parseRawReply(raw: string): HttpReply {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head!)![1]);
  const headers = Object.fromEntries(head!.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const text = rest.join('\r\n\r\n');
  return { status, headers, text, json: () => JSON.parse(text) };
}

const CALLS = `{ actor { account(id: 1) { nrql(query: ${JSON.stringify(CALLS_QUERY)}) { results } } } }`;
const CALLS_ANSWER = { actor: { account: { nrql: { results: [{ calls: WEB_CALLS }] } } } };

describe('authentication', () => {
  it('no key and a wrong key: 401 with error_code BAD_API_KEY', async () => {
    const none = assertRefused('no key', await httpGraph(ts, null, CALLS), 401, 'UNAUTHORIZED', /^No API key specified/);
    assert.equal(none.errors[0].extensions.error_code, 'BAD_API_KEY');
    const wrong = assertRefused('wrong key', await httpGraph(ts, 'NRAK-NOTAKEY000000000000000000', CALLS), 401, 'UNAUTHORIZED', /^Invalid API key$/);
    assert.equal(wrong.errors[0].extensions.error_code, 'BAD_API_KEY');
    const blank = assertRefused('blank key', await httpGraph(ts, null, CALLS, undefined, { headers: { 'Api-Key': '   ' } }), 401, 'UNAUTHORIZED', /^No API key specified/);
    assert.equal(blank.errors[0].extensions.error_code, 'BAD_API_KEY');
  });

  it('a license key is not a user key', async () => {
    const reply = await httpGraph(ts, TEST_LICENSE_KEY, CALLS);
    assert.equal(assertRefused('license key', reply, 401, 'UNAUTHORIZED', /^Invalid API key$/).errors[0].extensions.error_code, 'BAD_API_KEY');
  });

  for (const header of ['API-Key', 'Api-Key', 'api-key', 'X-Api-Key', 'x-api-key']) {
    it(`the key in ${header}`, async () => {
      const reply = await httpGraph(ts, null, CALLS, undefined, { headers: { [header]: TEST_API_KEY } });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(body(header, reply), { data: CALLS_ANSWER });
    });
  }

  it('the headers client-go and the terraform provider add are accepted and ignored', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, '{ requestContext { userId apiKey } actor { user { id name timeZoneName } } }', undefined, {
      headers: { 'NewRelic-Requesting-Services': 'newrelic-client-go', 'X-Query-Source-Capability-Id': 'TERRAFORM', 'User-Agent': 'newrelic/newrelic-client-go/2.51.0 (https://github.com/newrelic/newrelic-client-go)' },
    });
    assert.equal(reply.status, 200, reply.text);
    const data = body('client-go headers', reply).data;
    // The key's hint is its kind and last four characters; the user is the key's (id as ID text in requestContext, Int in user).
    assert.equal(data.requestContext.apiKey, `NRAK-…${TEST_API_KEY.slice(-4)}`);
    assert.equal(data.requestContext.userId, String(data.actor.user.id));
    assert.equal(typeof data.actor.user.id, 'number');
    assert.equal(data.actor.user.timeZoneName, 'Etc/UTC');
  });
});

describe('bodies', () => {
  it('gzip, zlib deflate and raw deflate bodies', async () => {
    const json = Buffer.from(JSON.stringify({ query: CALLS }), 'utf8');
    for (const [encoding, bytes] of [['gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['deflate', deflateRawSync(json)], ['GZIP', gzipSync(json)]] as const) {
      const reply = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'content-encoding': encoding, 'api-key': TEST_API_KEY }, body: bytes });
      assert.equal(reply.status, 200, `${encoding}: ${reply.text}`);
      assert.deepEqual(body(encoding, reply), { data: CALLS_ANSWER });
    }
  });

  it('variables in a gzipped body, as client-go sends them', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, 'query($id: Int!, $q: Nrql!) { actor { account(id: $id) { nrql(query: $q) { results } } } }', { id: 1, q: CALLS_QUERY }, { gzip: true });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(body('gzip variables', reply), { data: CALLS_ANSWER });
  });

  it('an application/graphql body is the document itself', async () => {
    const reply = await httpRequest(ts, { headers: { 'content-type': 'application/graphql; charset=utf-8', 'api-key': TEST_API_KEY }, body: CALLS });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(body('application/graphql', reply), { data: CALLS_ANSWER });
  });

  it('a body that is not JSON, not an object, has no query or bad variables: 400 in the errors envelope', async () => {
    const post = (text: string) => httpRequest(ts, { headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY }, body: text });
    assertRefused('bad JSON', await post('{"query": "{ actor { user { id } } }"'), 400, 'INVALID_INPUT', /not valid JSON/);
    assertRefused('JSON array', await post('[{"query": "{ actor { user { id } } }"}]'), 400, 'INVALID_INPUT', /JSON object/);
    assertRefused('no query', await post('{"variables": {}}'), 400, 'INVALID_INPUT', /no "query"/);
    assertRefused('empty query', await post('{"query": "  "}'), 400, 'INVALID_INPUT', /no "query"/);
    assertRefused('query not a string', await post('{"query": 5}'), 400, 'INVALID_INPUT', /no "query"/);
    assertRefused('variables a list', await post('{"query": "{ actor { user { id } } }", "variables": [1]}'), 400, 'INVALID_INPUT', /"variables" must be a JSON object/);
    assertRefused('operationName a number', await post('{"query": "{ actor { user { id } } }", "operationName": 3}'), 400, 'INVALID_INPUT', /operationName/);
    assertRefused('empty body', await post(''), 400, 'INVALID_INPUT', /empty/);
    const corrupt = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'api-key': TEST_API_KEY }, body: Buffer.from('not gzip at all') });
    assertRefused('corrupt gzip', corrupt, 400, 'INVALID_INPUT', /not valid gzip/);
    const br = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'content-encoding': 'br', 'api-key': TEST_API_KEY }, body: '{}' });
    assertRefused('brotli', br, 415, 'INVALID_INPUT', /Content-Encoding 'br'/);
  });

  it('a body over 1 MiB is 413', async () => {
    // A valid document padded with a comment to 1 MiB + 1 byte of JSON.
    const base = JSON.stringify({ query: '{ actor { user { id } } }#' });
    const padded = `${base.slice(0, -2)}${'x'.repeat(MIB + 1 - base.length)}"}`;
    assert.equal(Buffer.byteLength(padded), MIB + 1);
    const reply = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY }, body: padded });
    assertRefused('over 1 MiB', reply, 413, 'INVALID_INPUT', /larger than 1048576 bytes/);
    // Exactly at the limit is read (and then is a document with a long comment).
    const atLimit = `${base.slice(0, -2)}${'x'.repeat(MIB - base.length)}"}`;
    assert.equal(Buffer.byteLength(atLimit), MIB);
    const ok = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY }, body: atLimit });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.equal(typeof body('at limit', ok).data.actor.user.id, 'number');
  });

  it('a chunked body (no Content-Length) over 1 MiB is 413 too', async () => {
    const payload = JSON.stringify({ query: `{ actor { user { id } } }#${'x'.repeat(MIB)}` });
    const raw = await rawHttp(`POST /graphql HTTP/1.1\r\nHost: localhost\r\nApi-Key: ${TEST_API_KEY}\r\nContent-Type: application/json\r\n` +
      `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${Buffer.byteLength(payload).toString(16)}\r\n${payload}\r\n0\r\n\r\n`);
    assertRefused('chunked over 1 MiB', raw, 413, 'INVALID_INPUT', /larger than 1048576 bytes/);
  });

  it('a gzip bomb is 413, however small it is on the wire', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"query": "{ actor { user { id } } }", "pad": "'), Buffer.alloc(64 * MIB, 'a'), Buffer.from('"}')]), { level: 9 });
    assert.ok(bomb.length < 200 * 1024, `the bomb is ${bomb.length} bytes on the wire`);
    const reply = await httpRequest(ts, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'api-key': TEST_API_KEY }, body: bomb });
    assertRefused('gzip bomb', reply, 413, 'INVALID_INPUT', /inflates to more than 1048576 bytes/);
  });
});

describe('GET', () => {
  it('query and variables as parameters', async () => {
    const search = new URLSearchParams({
      query: 'query($id: Int!, $q: Nrql!) { actor { account(id: $id) { nrql(query: $q) { results } } } }',
      variables: JSON.stringify({ id: 1, q: CALLS_QUERY }),
    });
    const reply = await httpRequest(ts, { method: 'GET', path: `/graphql?${search}`, headers: { 'api-key': TEST_API_KEY } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(body('GET', reply), { data: CALLS_ANSWER });
  });

  it('a mutation over GET is refused with 405, and nothing changes', async () => {
    const guid = Buffer.from(`1|APM|APPLICATION|${ids.staleApp}`).toString('base64').replace(/=+$/, '');
    const search = new URLSearchParams({ query: `mutation { agentApplicationDelete(guid: "${guid}") { success } }` });
    const reply = await httpRequest(ts, { method: 'GET', path: `/graphql?${search}`, headers: { 'api-key': TEST_API_KEY } });
    assertRefused('mutation over GET', reply, 405, 'INVALID_INPUT', /POST/);
    assert.ok(ts.server.catalog.application(ids.staleApp), 'the application is still there');
    // The mutation picked by operationName among a query and a mutation is refused too.
    const two = new URLSearchParams({ query: `query Q { actor { user { id } } } mutation M { agentApplicationDelete(guid: "${guid}") { success } }`, operationName: 'M' });
    assertRefused('named mutation over GET', await httpRequest(ts, { method: 'GET', path: `/graphql?${two}`, headers: { 'api-key': TEST_API_KEY } }), 405, 'INVALID_INPUT', /POST/);
    assert.ok(ts.server.catalog.application(ids.staleApp));
  });

  it('GET without a query, or with variables that are not JSON, is 400', async () => {
    assertRefused('GET no query', await httpRequest(ts, { method: 'GET', path: '/graphql', headers: { 'api-key': TEST_API_KEY } }), 400, 'INVALID_INPUT', /no "query"/);
    const bad = new URLSearchParams({ query: '{ actor { user { id } } }', variables: '{id: 1' });
    assertRefused('GET bad variables', await httpRequest(ts, { method: 'GET', path: `/graphql?${bad}`, headers: { 'api-key': TEST_API_KEY } }), 400, 'INVALID_INPUT', /variables/);
  });
});

describe('GraphQL features clients rely on', () => {
  it('undeclared variables are ignored (client-go sends more than the document declares)', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, 'query($queryBuilder: EntitySearchQueryBuilder) { actor { entitySearch(queryBuilder: $queryBuilder) { count query } } }', {
      queryBuilder: { domain: 'APM', type: 'APPLICATION' },
      options: { limit: 5 },
      query: "name = 'nothing'",
      sortBy: ['NAME'],
      cursor: null,
    });
    assert.equal(reply.status, 200, reply.text);
    // web-shop, batch-worker and stale-app.
    assert.deepEqual(body('undeclared', reply), { data: { actor: { entitySearch: { count: 3, query: "domain = 'APM' AND type = 'APPLICATION'" } } } });
  });

  it('a single value where a list is expected (accounts: 1 for [Int!]!), inline and as a variable', async () => {
    const inline = await httpGraph(ts, TEST_API_KEY, `{ actor { nrql(accounts: 1, query: ${JSON.stringify(CALLS_QUERY)}) { results } } }`);
    assert.equal(inline.status, 200, inline.text);
    assert.deepEqual(body('coercion', inline), { data: { actor: { nrql: { results: [{ calls: WEB_CALLS }] } } } });
    const variable = await httpGraph(ts, TEST_API_KEY, 'query($a: [Int!]!, $q: Nrql!) { actor { nrql(accounts: $a, query: $q) { results } } }', { a: 1, q: CALLS_QUERY });
    assert.equal(variable.status, 200, variable.text);
    assert.deepEqual(body('coercion variable', variable), { data: { actor: { nrql: { results: [{ calls: WEB_CALLS }] } } } });
  });

  it('aliases, the same field twice with different arguments', async () => {
    const q = `{ me: actor { first: account(id: 1) { id name } web: nrql(accounts: [1], query: ${JSON.stringify(CALLS_QUERY)}) { results }
      other: nrql(accounts: [1], query: "SELECT count(newrelic.timeslice.value) AS calls FROM Metric WHERE metricTimesliceName = 'OtherTransaction/all' SINCE ${nrqlTime(20)} UNTIL ${nrqlTime(30)}") { results } } }`;
    const reply = await httpGraph(ts, TEST_API_KEY, q);
    assert.equal(reply.status, 200, reply.text);
    // batch-worker: 3 harvests of 6 calls.
    assert.deepEqual(body('aliases', reply), { data: { me: { first: { id: 1, name: 'Default' }, web: { results: [{ calls: WEB_CALLS }] }, other: { results: [{ calls: 18 }] } } } });
  });

  it('__typename on the root, objects, interfaces, and in inline fragments', async () => {
    const guid = Buffer.from(`1|APM|APPLICATION|${ids.webShop}`).toString('base64').replace(/=+$/, '');
    const reply = await httpGraph(ts, TEST_API_KEY, `{ __typename actor { __typename account(id: 1) { __typename } entity(guid: "${guid}") { __typename ... on ApmApplicationEntity { __typename applicationId } }
      entitySearch(query: "domainId = '${ids.webShop}'") { __typename results { __typename entities { __typename } } } } }`);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(body('__typename', reply), {
      data: {
        __typename: 'RootQueryType',
        actor: {
          __typename: 'Actor',
          account: { __typename: 'Account' },
          entity: { __typename: 'ApmApplicationEntity', applicationId: ids.webShop },
          entitySearch: { __typename: 'EntitySearch', results: { __typename: 'EntitySearchResult', entities: [{ __typename: 'ApmApplicationEntityOutline' }] } },
        },
      },
    });
  });

  it('operationName picks one of several operations', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, 'query A { actor { user { id } } } query B { actor { account(id: 1) { name } } }', undefined, {});
    // Without operationName GraphQL cannot choose: an error, still a 200.
    assert.equal(reply.status, 200);
    assert.match(body('no operationName', reply).errors[0].message, /operation name/i);
    const picked = await httpRequest(ts, {
      headers: { 'content-type': 'application/json', 'api-key': TEST_API_KEY },
      body: JSON.stringify({ query: 'query A { actor { user { id } } } query B { actor { account(id: 1) { name } } }', operationName: 'B' }),
    });
    assert.deepEqual(body('operationName', picked), { data: { actor: { account: { name: 'Default' } } } });
  });
});

describe('GraphQL errors are 200 with errors[]', () => {
  it('a syntax error: INVALID_INPUT with its location, no data', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, '{ actor {\n  user { id }\n  account(id: 1) { name }\n');
    assert.equal(reply.status, 200, reply.text);
    const parsed = body('syntax', reply);
    assert.equal(parsed.data, undefined);
    assert.equal(parsed.errors.length, 1);
    assert.match(parsed.errors[0].message, /^Syntax Error: Expected Name, found <EOF>\.$/);
    assert.deepEqual(parsed.errors[0].locations, [{ line: 4, column: 1 }]);
    assert.equal(parsed.errors[0].extensions.errorClass, 'INVALID_INPUT');
  });

  it('an unknown field and an unknown argument: INVALID_INPUT with locations, no data', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, '{ actor {\n  user { id shoeSize }\n  account(id: 1, region: "EU") { name }\n} }');
    assert.equal(reply.status, 200, reply.text);
    const parsed = body('unknown field', reply);
    assert.equal(parsed.data, undefined);
    assert.deepEqual(parsed.errors.map((e: any) => [e.message, e.locations, e.extensions.errorClass]), [
      ['Cannot query field "shoeSize" on type "User".', [{ line: 2, column: 13 }], 'INVALID_INPUT'],
      ['Unknown argument "region" on field "Actor.account".', [{ line: 3, column: 18 }], 'INVALID_INPUT'],
    ]);
  });

  it('a variable of the wrong type, and a missing required one', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, 'query($id: Int!) { actor { account(id: $id) { name } } }', { id: 'one' });
    assert.equal(reply.status, 200, reply.text);
    const parsed = body('bad variable', reply);
    assert.equal(parsed.data, undefined);
    assert.equal(parsed.errors.length, 1);
    assert.match(parsed.errors[0].message, /^Variable "\$id" got invalid value "one"; Int cannot represent non-integer value: "one"$/);
    assert.equal(parsed.errors[0].extensions.errorClass, 'INVALID_INPUT');
    const missing = body('missing variable', await httpGraph(ts, TEST_API_KEY, 'query($id: Int!) { actor { account(id: $id) { name } } }'));
    assert.match(missing.errors[0].message, /^Variable "\$id" of required type "Int!" was not provided\.$/);
    assert.equal(missing.errors[0].extensions.errorClass, 'INVALID_INPUT');
  });

  it('a literal of the wrong kind for a custom scalar: INVALID_INPUT with its location, as for a built-in one', async () => {
    const builtIn = body('Int literal', await httpGraph(ts, TEST_API_KEY, '{ actor { account(id: "one") { name } } }'));
    assert.deepEqual(builtIn.errors.map((e: any) => [e.locations, e.extensions.errorClass]), [[[{ line: 1, column: 23 }], 'INVALID_INPUT']]);
    for (const [document, column] of [
      ['{ actor { entity(guid: 5) { name } } }', 24],
      ['{ actor { nrql(accounts: [1], query: "SELECT count(*) FROM Metric", timeout: "soon") { results } } }', 78],
      ['{ actor { nrql(accounts: [1], query: 42) { results } } }', 38],
    ] as const) {
      const parsed = body(document, await httpGraph(ts, TEST_API_KEY, document));
      assert.equal(parsed.data, undefined, document);
      assert.equal(parsed.errors.length, 1, document);
      assert.equal(parsed.errors[0].extensions.errorClass, 'INVALID_INPUT', document);
      assert.deepEqual(parsed.errors[0].locations, [{ line: 1, column }], `${document}: ${JSON.stringify(parsed.errors[0])}`);
    }
  });

  it('a resolver error keeps the data beside it: bad NRQL is INVALID_INPUT on the nrql path, never a retried class', async () => {
    const reply = await httpGraph(ts, TEST_API_KEY, '{ actor { user { id } nrql(accounts: [1], query: "SELECT count(* FROM Metric") { results } } }');
    assert.equal(reply.status, 200, reply.text);
    const parsed = body('bad nrql', reply);
    assert.equal(typeof parsed.data.actor.user.id, 'number');
    assert.equal(parsed.data.actor.nrql, null);
    assert.equal(parsed.errors.length, 1);
    assert.deepEqual(parsed.errors[0].path, ['actor', 'nrql']);
    assert.equal(parsed.errors[0].extensions.errorClass, 'INVALID_INPUT');
    assert.match(parsed.errors[0].message, /line 1 position/i);
  });
});

/**
 * Requests sent together: every socket is connected first, then each writes its whole request in
 * one go, so they all reach the server in the same moment (an HTTP client would stagger them by
 * its connection set-up). Each closes after its answer.
 */
async function together(keys: readonly string[], query: string): Promise<HttpReply[]> {
  const url = new URL(ts.server.apiUrl);
  const sockets = await Promise.all(keys.map(() => new Promise<Socket>((resolve, reject) => {
    const socket = connectSocket(Number(url.port), url.hostname, () => resolve(socket));
    socket.on('error', reject);
  })));
  const payload = JSON.stringify({ query });
  const answers = sockets.map((socket) => new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  }));
  sockets.forEach((socket, i) => socket.write(
    `POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nApi-Key: ${keys[i]}\r\n` +
    `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  ));
  return (await Promise.all(answers)).map(parseRawReply);
}

describe('concurrency: 25 requests in flight per key', () => {
  /**
   * Slow on purpose, and slow in the database rather than in JavaScript: a regular expression over
   * every LoadEvent's 3,000 characters (the 800 whose n ends in 7 match).
   */
  const SLOW = `{ actor { nrql(accounts: [1], query: "SELECT count(*) FROM LoadEvent WHERE pad RLIKE '.*j[0-9]*7' SINCE 1 hour ago") { results } } }`;
  const SLOW_ANSWER = { data: { actor: { nrql: { results: [{ count: LOAD_EVENTS / 10 }] } } } };

  it('25 at once are all answered', async () => {
    const replies = await together(Array(25).fill(TEST_API_KEY), SLOW);
    assert.deepEqual(replies.map((r) => r.status), Array(25).fill(200));
    for (const r of replies) assert.deepEqual(body('slow', r), SLOW_ANSWER);
  });

  it('26 at once from one key: one is refused with 429 TOO_MANY_REQUESTS, 25 are answered; another user\'s key is not held up', async () => {
    // The 25 are per user, as NerdGraph's: another key of the same user would share them.
    const other = (await ts.server.catalog.createUser({ accountId: 1, name: 'Other', email: 'other@example.com' })).key;
    const replies = await together([...Array(26).fill(TEST_API_KEY), other], SLOW);
    const mine = replies.slice(0, 26);
    // At most 25 can be in flight, so of 26 arriving together exactly one is refused.
    assert.deepEqual(mine.map((r) => r.status).sort(), [...Array(25).fill(200), 429], `statuses ${mine.map((r) => r.status).join(',')}`);
    for (const r of mine) {
      if (r.status === 429) assertRefused('429', r, 429, 'TOO_MANY_REQUESTS', /^More than 25 concurrent requests with this API key/);
      else assert.deepEqual(body('slow', r), SLOW_ANSWER);
    }
    assert.equal(replies[26]!.status, 200, replies[26]!.text);
    assert.deepEqual(body('other key', replies[26]!), SLOW_ANSWER);
    // The slots are given back: the key works again at once.
    assert.deepEqual(body('after 429', await httpGraph(ts, TEST_API_KEY, CALLS)), { data: CALLS_ANSWER });
  });
});

describe('the errors envelope', () => {
  it('every error entry of every answer above has extensions.errorClass and a message', () => {
    assert.ok(errorAnswers.length >= 20, `${errorAnswers.length} answers with errors were checked`);
    for (const { label, body: b } of errorAnswers) {
      assert.ok(Array.isArray(b.errors) && b.errors.length > 0, label);
      for (const e of b.errors) {
        assert.equal(typeof e.message, 'string', label);
        assert.equal(typeof e.extensions?.errorClass, 'string', `${label}: ${JSON.stringify(e)}`);
      }
    }
  });
});
