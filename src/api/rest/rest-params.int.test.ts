import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyBaseOptions } from '../../http/fastify-options.js';
import { parseRestTime } from '../../domain/time/iso8601.js';
import { FORM_BODY_LIMIT_BYTES, RestParams, registerFormBodyParser } from './rest-params.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Echo {
  query: Record<string, unknown>;
  body: unknown;
  names: string[];
  from?: string;
  fromMs?: number;
  to?: string;
  summarize?: boolean;
  filterName?: string;
}

function buildApp(): FastifyInstance {
  const app = Fastify(fastifyBaseOptions(undefined)) as unknown as FastifyInstance;
  registerFormBodyParser(app);
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: '/v2/echo.json',
    handler: async (request): Promise<Echo> => {
      const params = RestParams.from(request.query, request.body);
      const from = params.one('from');
      return {
        query: { ...(request.query as object) },
        body: request.body ?? null,
        names: params.allOf('names', 'name'),
        from,
        fromMs: from === undefined ? undefined : parseRestTime(from),
        to: params.one('to'),
        summarize: params.bool('summarize'),
        filterName: params.one('filter[name]'),
      };
    },
  });
  return app;
}

test('a GET with a form body: body and query string merge, the query string winning', async () => {
  const app = buildApp();
  const response = await app.inject({
    method: 'GET',
    url: '/v2/echo.json?from=2024-03-05T14:00:00Z&names[]=HttpDispatcher',
    headers: FORM,
    payload: 'names[]=Apdex&names[]=HttpDispatcher&from=2024-03-05T10:00:00Z&to=2024-03-05T15:00:00Z&summarize=true',
  });
  assert.equal(response.statusCode, 200, response.body);
  const echo = response.json<Echo>();
  assert.deepEqual(echo.names, ['HttpDispatcher', 'Apdex']);
  assert.equal(echo.from, '2024-03-05T14:00:00Z');
  assert.equal(echo.to, '2024-03-05T15:00:00Z');
  assert.equal(echo.summarize, true);
  await app.close();
});

test('PUT, POST and DELETE read form bodies too', async () => {
  const app = buildApp();
  for (const method of ['POST', 'PUT', 'DELETE'] as const) {
    const response = await app.inject({ method, url: '/v2/echo.json?names[]=A', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }, payload: 'names[]=B&summarize=0' });
    assert.equal(response.statusCode, 200, `${method}: ${response.body}`);
    assert.deepEqual(response.json<Echo>().names, ['A', 'B'], method);
    assert.equal(response.json<Echo>().summarize, false, method);
  }
  await app.close();
});

test('%2B08:00 in from is a + offset', async () => {
  const app = buildApp();
  const query = await app.inject({ method: 'GET', url: '/v2/echo.json?from=2024-03-05T14:00:00%2B08:00' });
  assert.equal(query.json<Echo>().from, '2024-03-05T14:00:00+08:00');
  assert.equal(query.json<Echo>().fromMs, Date.parse('2024-03-05T06:00:00Z'));
  const body = await app.inject({ method: 'GET', url: '/v2/echo.json', headers: FORM, payload: 'from=2024-03-05T14:00:00%2B08:00' });
  assert.equal(body.json<Echo>().fromMs, Date.parse('2024-03-05T06:00:00Z'));
  await app.close();
});

test('a literal + in the query string arrives as a space and still reads as the offset', async () => {
  const app = buildApp();
  for (const response of [
    await app.inject({ method: 'GET', url: '/v2/echo.json?from=2024-03-05T14:00:00+08:00' }),
    await app.inject({ method: 'GET', url: '/v2/echo.json', headers: FORM, payload: 'from=2024-03-05T14:00:00+08:00' }),
  ]) {
    assert.equal(response.json<Echo>().from, '2024-03-05T14:00:00 08:00');
    assert.equal(response.json<Echo>().fromMs, Date.parse('2024-03-05T06:00:00Z'));
  }
  await app.close();
});

test('repeated names[] in the query string, escaped or not, and the singular alias', async () => {
  const app = buildApp();
  const response = await app.inject({ method: 'GET', url: '/v2/echo.json?names[]=A&names[]=B&names%5B%5D=C&names[]=A&name=D' });
  assert.deepEqual(response.json<Echo>().names, ['A', 'B', 'C', 'D']);
  await app.close();
});

test('the default query parser keeps filter[name] as a flat key; a body decodes to the same record', async () => {
  const app = buildApp();
  const text = 'filter[name]=My+App%21&filter%5Bids%5D=1,2,3&names[]=A&names[]=B&x=%ZZ&flag';
  const response = await app.inject({ method: 'GET', url: `/v2/echo.json?${text}`, headers: FORM, payload: text });
  const echo = response.json<Echo>();
  assert.deepEqual(echo.query, { 'filter[name]': 'My App!', 'filter[ids]': '1,2,3', 'names[]': ['A', 'B'], x: '%ZZ', flag: '' });
  assert.deepEqual(echo.body, echo.query);
  assert.equal(echo.filterName, 'My App!');
  await app.close();
});

test('GETs that are not form posts are left alone', async () => {
  const app = buildApp();
  const labelledJson = await app.inject({ method: 'GET', url: '/v2/echo.json?names[]=A', headers: { 'content-type': 'application/json' } });
  assert.equal(labelledJson.statusCode, 200, labelledJson.body);
  const jsonBody = await app.inject({ method: 'GET', url: '/v2/echo.json?names[]=A', headers: { 'content-type': 'application/json' }, payload: '{"names[]":"B"}' });
  assert.equal(jsonBody.statusCode, 200, jsonBody.body);
  assert.deepEqual(jsonBody.json<Echo>().names, ['A']);
  const emptyForm = await app.inject({ method: 'GET', url: '/v2/echo.json?names[]=A', headers: FORM });
  assert.equal(emptyForm.statusCode, 200, emptyForm.body);
  assert.equal(emptyForm.json<Echo>().body, null);
  await app.close();
});

test('a form body over 1 MiB is refused with 413, declared or streamed, on GET and POST', async () => {
  const app = buildApp();
  const big = `names[]=${'A'.repeat(2 * 1024 * 1024)}`;
  for (const method of ['GET', 'POST'] as const) {
    const response = await app.inject({ method, url: '/v2/echo.json', headers: FORM, payload: big });
    assert.equal(response.statusCode, 413, `${method}: ${response.body}`);
    assert.equal(response.json<{ code: string }>().code, 'FST_ERR_CTP_BODY_TOO_LARGE');
  }
  const streamed = await app.inject({
    method: 'GET',
    url: '/v2/echo.json',
    headers: { ...FORM, 'transfer-encoding': 'chunked' },
    payload: Readable.from([Buffer.from(big.slice(0, 1024 * 1024)), Buffer.from(big.slice(1024 * 1024))]),
  });
  assert.equal(streamed.statusCode, 413, streamed.body);
  const atLimit = await app.inject({ method: 'GET', url: '/v2/echo.json', headers: FORM, payload: `names[]=${'A'.repeat(FORM_BODY_LIMIT_BYTES - 8)}` });
  assert.equal(atLimit.statusCode, 200);
  await app.close();
});

test('over a real socket a refused GET body still gets its 413, and the next request is served', async () => {
  const app = buildApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, agent, method: 'GET', path: '/v2/echo.json?names[]=A', headers: { ...FORM, 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    assert.equal((await send(`names[]=${'B'.repeat(2 * 1024 * 1024)}`)).status, 413);
    const next = await send('names[]=C');
    assert.equal(next.status, 200, next.text);
    assert.deepEqual((JSON.parse(next.text) as Echo).names, ['A', 'C']);
  } finally {
    agent.destroy();
    await app.close();
  }
});
