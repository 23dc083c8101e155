import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestError } from './rest-error.js';

describe('RestError', () => {
  it('carries status, title and the body clients parse', () => {
    const e = RestError.notFound('Application with id 9999 not found');
    assert.equal(e.status, 404);
    assert.equal(e.message, 'Application with id 9999 not found');
    assert.deepEqual(e.body, { error: { title: 'Application with id 9999 not found' } });
  });

  it('adds messages only when there are some', () => {
    assert.deepEqual(RestError.unprocessable('Invalid parameters', ['from is after to']).body, {
      error: { title: 'Invalid parameters', messages: ['from is after to'] },
    });
    assert.deepEqual(RestError.unprocessable('Invalid parameters', []).body, { error: { title: 'Invalid parameters' } });
  });

  it('has titles written for people', () => {
    const cases: [RestError, number, string][] = [
      [RestError.unauthorized('missing'), 401, 'No API key specified; send a user API key in the X-Api-Key or Api-Key header'],
      [RestError.unauthorized('invalid'), 401, 'Invalid API key'],
      [RestError.forbidden('This key may not delete deployments'), 403, 'This key may not delete deployments'],
      [RestError.routeNotFound('GET', '/v2/nope.json'), 404, 'No such API endpoint: GET /v2/nope.json'],
      [RestError.badRequest('Bad request'), 400, 'Bad request'],
      [RestError.malformedJson(), 400, 'Request body is not valid JSON'],
      [RestError.tooLarge(1024), 413, 'Request body too large: the limit is 1024 bytes'],
      [RestError.unsupportedMediaType('text/csv'), 415, "Unsupported Content-Type 'text/csv'; send application/json"],
      [RestError.rateLimited(1000, {}), 429, 'Rate limit exceeded: 1000 requests per minute per API key'],
      [RestError.internal(), 500, 'Internal server error'],
    ];
    for (const [error, status, title] of cases) {
      assert.equal(error.status, status, title);
      assert.equal(error.title, title);
    }
  });

  it('names the allowed methods in words and in Allow', () => {
    const e = RestError.methodNotAllowed('PATCH', '/v2/applications/1.json', ['DELETE', 'GET', 'PUT']);
    assert.equal(e.status, 405);
    assert.equal(e.title, 'Method PATCH is not allowed on /v2/applications/1.json; allowed: DELETE, GET, PUT');
    assert.deepEqual(e.headers, { allow: 'DELETE, GET, PUT' });
  });
});
