import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { RATE_LIMIT_DOCS_URL } from '../../http/rate-limit.js';
import { RestError } from './rest-error.js';
import { restRoute, restV2Plugin } from './rest-plugin.js';

const GOOD_KEY = 'NRAK-GOODGOODGOODGOODGOODGOODGOO';
const OTHER_KEY = 'NRAK-OTHEROTHEROTHEROTHEROTHERO';
const catalog = {
  accountForUserKey: (key: string) => (key === GOOD_KEY ? 7 : key === OTHER_KEY ? 8 : undefined),
};
const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

/** 2023-11-14T22:13:20Z, 20 s into its minute. */
const T0 = 1_700_000_000_000;

interface Built {
  app: FastifyInstance;
  clock: { now(): number; set(ms: number): void };
  logs: string[];
}

async function build(rateLimitPerMinute?: number): Promise<Built> {
  let now = T0;
  const clock = { now: () => now, set: (ms: number) => { now = ms; } };
  const logs: string[] = [];
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logs.push(line) } } });
  // The API app has its own not-found handler for everything outside /v2.
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ root: request.url }));
  await app.register(restV2Plugin({ catalog, clock, ...(rateLimitPerMinute ? { rateLimitPerMinute } : {}) }));

  restRoute(app, 'GET', '/v2/things/:id', async (request, ctx) => {
    const { id } = request.params as { id: string };
    if (id === '404') throw RestError.notFound('Thing with id 404 not found');
    if (id === '422') throw RestError.unprocessable('Invalid thing', ['name is too long', 'size < 0 & "odd"']);
    if (id === 'boom') throw new Error('database exploded at 0x1234');
    return { body: { thing: { id, account_id: ctx.accountId, format: ctx.format, active: true, gone: null } } };
  });
  restRoute(app, 'PUT', '/v2/things/:id', async (request) => ({ body: { thing: request.body as Record<string, unknown> } }));
  restRoute(app, 'DELETE', '/v2/things/:id', async (request) => ({ body: { deleted: (request.params as { id: string }).id } }));
  restRoute(app, 'POST', '/v2/things', async () => ({ body: { thing: { id: 1 } }, status: 201, headers: { 'x-extra': 'yes' } }));
  restRoute(app, 'GET', '/v2/things', async (request) => {
    const page = Number((request.query as { page?: string }).page ?? '1');
    return { body: { things: [] }, pagination: { page, lastPage: 3 } };
  });
  await app.ready();
  return { app, clock, logs };
}

const auth = { 'x-api-key': GOOD_KEY };

describe('restV2Plugin and restRoute', () => {
  it('serves both suffixes, each in its own format whatever Accept says', async () => {
    const { app } = await build();
    const json = await app.inject({ url: '/v2/things/42.json', headers: { ...auth, accept: 'application/xml' } });
    assert.equal(json.statusCode, 200);
    assert.equal(json.headers['content-type'], JSON_TYPE);
    assert.equal(json.body, '{"thing":{"id":"42","account_id":7,"format":"json","active":true,"gone":null}}');

    const xml = await app.inject({ url: '/v2/things/42.xml', headers: { ...auth, accept: 'application/json' } });
    assert.equal(xml.statusCode, 200);
    assert.equal(xml.headers['content-type'], XML_TYPE);
    assert.equal(
      xml.body,
      `${XML_DECL}<thing_response><thing><id>42</id><account_id>7</account_id><format>xml</format><active>true</active></thing></thing_response>`,
    );
  });

  it('authenticates by X-Api-Key or Api-Key, any case, trimmed; the account comes from the key', async () => {
    const { app } = await build();
    for (const headers of [{ 'X-Api-Key': GOOD_KEY }, { 'Api-Key': GOOD_KEY }, { 'API-KEY': ` ${GOOD_KEY}\t` }, { 'x-api-key': 'wrong', 'api-key': OTHER_KEY }]) {
      const res = await app.inject({ url: '/v2/things/1.json', headers });
      assert.equal(res.statusCode, 200, JSON.stringify(headers));
    }
    const other = await app.inject({ url: '/v2/things/1.json', headers: { 'api-key': OTHER_KEY } });
    assert.equal(other.json().thing.account_id, 8);
  });

  it('refuses a missing or unknown key with 401 in the request format', async () => {
    const { app } = await build();
    const missing = await app.inject({ url: '/v2/things/1.json', headers: { 'x-api-key': '  ' } });
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.headers['content-type'], JSON_TYPE);
    assert.equal(missing.body, '{"error":{"title":"No API key specified; send a user API key in the X-Api-Key or Api-Key header"}}');

    const badJson = await app.inject({ url: '/v2/things/1.json', headers: { 'x-api-key': 'NRAK-NOPE' } });
    assert.equal(badJson.statusCode, 401);
    assert.equal(badJson.body, '{"error":{"title":"Invalid API key"}}');

    const badXml = await app.inject({ url: '/v2/things/1.xml', headers: { 'api-key': 'NRAK-NOPE' } });
    assert.equal(badXml.statusCode, 401);
    assert.equal(badXml.headers['content-type'], XML_TYPE);
    assert.equal(badXml.body, `${XML_DECL}<error><title>Invalid API key</title></error>`);
    assert.match(badXml.body, /<error>(.*?)<\/error>/);
  });

  it('sends a thrown RestError as its status and error body', async () => {
    const { app } = await build();
    const notFound = await app.inject({ url: '/v2/things/404.json', headers: auth });
    assert.equal(notFound.statusCode, 404);
    assert.equal(notFound.body, '{"error":{"title":"Thing with id 404 not found"}}');
    const notFoundXml = await app.inject({ url: '/v2/things/404.xml', headers: auth });
    assert.equal(notFoundXml.body, `${XML_DECL}<error><title>Thing with id 404 not found</title></error>`);

    const invalid = await app.inject({ url: '/v2/things/422.json', headers: auth });
    assert.equal(invalid.statusCode, 422);
    assert.equal(invalid.body, '{"error":{"title":"Invalid thing","messages":["name is too long","size < 0 & \\"odd\\""]}}');
    const invalidXml = await app.inject({ url: '/v2/things/422.xml', headers: auth });
    assert.equal(
      invalidXml.body,
      `${XML_DECL}<error><title>Invalid thing</title><messages><message>name is too long</message><message>size &lt; 0 &amp; &quot;odd&quot;</message></messages></error>`,
    );
  });

  it('answers an unexpected exception with a generic 500 and logs it', async () => {
    const { app, logs } = await build();
    const res = await app.inject({ url: '/v2/things/boom.xml', headers: auth });
    assert.equal(res.statusCode, 500);
    assert.equal(res.body, `${XML_DECL}<error><title>Internal server error</title></error>`);
    assert.equal(logs.length, 1);
    assert.match(logs[0] ?? '', /database exploded at 0x1234/);
  });

  it('passes status and headers through, and builds Link from the request URL', async () => {
    const { app } = await build();
    const created = await app.inject({ method: 'POST', url: '/v2/things.json', headers: auth });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers['x-extra'], 'yes');

    const list = await app.inject({ url: '/v2/things.json?filter[ids]=1,2&page=2', headers: { ...auth, host: 'apm.example.com' } });
    assert.equal(list.statusCode, 200);
    const base = 'http://apm.example.com/v2/things.json?filter[ids]=1%2C2&page=';
    assert.equal(list.headers.link, `<${base}3>;rel="next", <${base}3>;rel="last", <${base}1>;rel="first", <${base}1>;rel="prev"`);
  });

  it('reads a JSON body, and refuses malformed, oversized or non-JSON bodies in the error shape', async () => {
    const { app } = await build();
    const ok = await app.inject({ method: 'PUT', url: '/v2/things/1.json', headers: auth, payload: { thing: { name: 'x' } } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { thing: { thing: { name: 'x' } } });

    const malformed = await app.inject({
      method: 'PUT',
      url: '/v2/things/1.json',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"thing": {',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.headers['content-type'], JSON_TYPE);
    assert.equal(malformed.body, '{"error":{"title":"Request body is not valid JSON"}}');

    const malformedXml = await app.inject({
      method: 'PUT',
      url: '/v2/things/1.xml',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: 'nope',
    });
    assert.equal(malformedXml.statusCode, 400);
    assert.equal(malformedXml.body, `${XML_DECL}<error><title>Request body is not valid JSON</title></error>`);

    const huge = await app.inject({
      method: 'PUT',
      url: '/v2/things/1.json',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: `{"a":"${'x'.repeat(2 * 1024 * 1024)}"}`,
    });
    assert.equal(huge.statusCode, 413);
    assert.equal(huge.body, '{"error":{"title":"Request body too large: the limit is 1048576 bytes"}}');

    const xmlBody = await app.inject({
      method: 'PUT',
      url: '/v2/things/1.json',
      headers: { ...auth, 'content-type': 'application/xml' },
      payload: '<thing/>',
    });
    assert.equal(xmlBody.statusCode, 415);
    assert.equal(xmlBody.body, `{"error":{"title":"Unsupported Content-Type 'application/xml'; send application/json"}}`);
  });

  it('answers HEAD for GET routes through the same authentication', async () => {
    const { app } = await build();
    const ok = await app.inject({ method: 'HEAD', url: '/v2/things/1.xml', headers: auth });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['content-type'], XML_TYPE);
    assert.equal(ok.body, '');
    const refused = await app.inject({ method: 'HEAD', url: '/v2/things/1.xml' });
    assert.equal(refused.statusCode, 401);
  });

  it('authenticates before reading the body', async () => {
    const { app } = await build();
    const res = await app.inject({
      method: 'PUT',
      url: '/v2/things/1.json',
      headers: { 'content-type': 'application/json' },
      payload: `{"a":"${'x'.repeat(2 * 1024 * 1024)}"}`,
    });
    assert.equal(res.statusCode, 401);
  });

  it('accepts a bodiless DELETE labelled application/json', async () => {
    const { app } = await build();
    const res = await app.inject({ method: 'DELETE', url: '/v2/things/9.json', headers: { ...auth, 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '{"deleted":"9"}');
  });

  it('limits each key per clock minute and answers 429 with the rate-limit headers', async () => {
    const { app, clock } = await build(3);
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ url: '/v2/things/1.json', headers: auth });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
    }
    const limited = await app.inject({ url: '/v2/things/1.json', headers: auth });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['content-type'], JSON_TYPE);
    assert.equal(limited.body, '{"error":{"title":"Rate limit exceeded: 3 requests per minute per API key"}}');
    assert.equal(limited.headers['x-ratelimit-limit'], '3');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    assert.equal(limited.headers['x-ratelimit-reset'], String(T0 / 1000 + 40));
    assert.equal(limited.headers['x-ratelimit-docs'], RATE_LIMIT_DOCS_URL);
    assert.equal(limited.headers['retry-after'], '40');

    const limitedXml = await app.inject({ url: '/v2/things/1.xml', headers: auth });
    assert.equal(limitedXml.statusCode, 429);
    assert.equal(limitedXml.body, `${XML_DECL}<error><title>Rate limit exceeded: 3 requests per minute per API key</title></error>`);

    const otherKey = await app.inject({ url: '/v2/things/1.json', headers: { 'api-key': OTHER_KEY } });
    assert.equal(otherKey.statusCode, 200);

    clock.set(T0 + 40_000);
    const nextMinute = await app.inject({ url: '/v2/things/1.json', headers: auth });
    assert.equal(nextMinute.statusCode, 200);
  });

  it('answers unknown /v2 paths with 404 and wrong methods with 405, in the error shape', async () => {
    const { app } = await build();
    const nope = await app.inject({ url: '/v2/nope.json' });
    assert.equal(nope.statusCode, 404);
    assert.equal(nope.headers['content-type'], JSON_TYPE);
    assert.equal(nope.body, '{"error":{"title":"No such API endpoint: GET /v2/nope.json"}}');

    const nopeXml = await app.inject({ method: 'POST', url: '/v2/nope.xml?x=1', headers: { 'content-type': 'application/json' }, payload: '{' });
    assert.equal(nopeXml.statusCode, 404);
    assert.equal(nopeXml.body, `${XML_DECL}<error><title>No such API endpoint: POST /v2/nope.xml</title></error>`);

    const wrongSuffix = await app.inject({ url: '/v2/things/1.txt', headers: auth });
    assert.equal(wrongSuffix.statusCode, 404);

    const patch = await app.inject({ method: 'PATCH', url: '/v2/things/1.json', headers: auth });
    assert.equal(patch.statusCode, 405);
    assert.equal(patch.headers.allow, 'DELETE, GET, HEAD, PUT');
    assert.equal(patch.body, '{"error":{"title":"Method PATCH is not allowed on /v2/things/1.json; allowed: DELETE, GET, HEAD, PUT"}}');

    const outside = await app.inject({ url: '/elsewhere' });
    assert.deepEqual(outside.json(), { root: '/elsewhere' });
  });

  it('refuses routes registered before the plugin, or with a suffix', async () => {
    const bare = Fastify();
    assert.throws(() => restRoute(bare, 'GET', '/v2/x', async () => ({ body: {} })), /register restV2Plugin/);
    await bare.register(restV2Plugin({ catalog, clock: { now: () => 0 } }));
    assert.throws(() => restRoute(bare, 'GET', '/v2/x.json', async () => ({ body: {} })), /without its \.json\/\.xml suffix/);
  });
});
