import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEPRECATION_HEADER, encodeExtValue, isPastSunset, isRestV2Path, parseSunsetMode, REST_SUNSET_MS, successorOf, SUNSET_HEADER } from './sunset.js';

describe('end-of-life constants', () => {
  it('the sunset is the first instant after 31 July 2027 UTC; the deprecation 1 January 2026', () => {
    assert.equal(REST_SUNSET_MS, Date.parse('2027-08-01T00:00:00Z'));
    assert.equal(SUNSET_HEADER, 'Sun, 01 Aug 2027 00:00:00 GMT');
    assert.equal(DEPRECATION_HEADER, `@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    assert.equal(DEPRECATION_HEADER, '@1767225600');
  });
});

describe('parseSunsetMode', () => {
  it('date by default; never and now; any case and spacing', () => {
    assert.deepEqual([undefined, '', ' date ', 'NEVER', 'Now'].map(parseSunsetMode), ['date', 'date', 'date', 'never', 'now']);
  });

  it('refuses anything else, naming the choices', () => {
    assert.throws(() => parseSunsetMode('2027-07-31'), /must be one of date, never, now, got '2027-07-31'/);
  });
});

describe('isPastSunset', () => {
  it('date: from 2027-08-01T00:00:00.000Z on; never: never; now: always', () => {
    const lastMs = Date.parse('2027-07-31T23:59:59.999Z');
    const first = Date.parse('2027-08-01T00:00:00.000Z');
    assert.deepEqual([isPastSunset('date', lastMs), isPastSunset('date', first), isPastSunset('date', first + 86_400_000)], [false, true, true]);
    assert.deepEqual([isPastSunset('never', first + 1e12), isPastSunset('now', 0)], [false, true]);
  });
});

describe('successorOf', () => {
  it('names the graph operation or NRQL query of the spec for each kind of REST call', () => {
    assert.match(successorOf('REST v2', 'GET', '/v2/applications.json'), /entitySearch/);
    assert.match(successorOf('REST v2', 'PUT', '/v2/applications/{id}.json'), /agentApplicationSettingsUpdate/);
    assert.match(successorOf('REST v2', 'DELETE', '/v2/applications/{id}.xml'), /agentApplicationDelete/);
    assert.match(successorOf('REST v2', 'GET', '/v2/applications/{id}/metrics/data.json'), /FROM Metric/);
    assert.match(successorOf('REST v2', 'GET', '/v2/applications/{id}/hosts/{hostId}/metrics/data.json'), /FROM Metric/);
    assert.match(successorOf('REST v2', 'GET', '/v2/applications/{id}/hosts.json'), /FROM Transaction WHERE appId = <id> FACET host/);
    assert.match(successorOf('REST v2', 'GET', '/v2/applications/{id}/deployments.json'), /FROM ChangeTrackingEvent, Deployment WHERE \(eventType\(\) = 'Deployment' OR/);
    assert.match(successorOf('REST v2', 'POST', '/v2/applications/{id}/deployments.json'), /changeTrackingCreateEvent/);
    assert.match(successorOf('REST v2', 'DELETE', '/v2/applications/{id}/deployments/{deploymentId}.json'), /immutable/);
    assert.match(successorOf('REST v2', 'POST', '/v2/mobile_applications.json'), /agentApplicationCreateMobile/);
    assert.match(successorOf('REST v2', 'GET', '/v2/mobile_applications/{id}/metrics/data.json'), /FROM Mobile/);
    assert.match(successorOf('REST v2', 'POST', '/v2/browser_applications.json'), /agentApplicationCreateBrowser/);
    assert.match(successorOf('REST v2', 'GET', '/v2/key_transactions.json'), /KEY_TRANSACTION/);
    assert.match(successorOf('REST v2', 'GET', '/v2/alerts_incidents.json'), /aiIssues/);
    assert.match(successorOf('REST v2', 'GET', undefined), /POST \/graphql/);
    assert.match(successorOf('Deployments v0', 'POST', '/deployments.xml'), /changeTrackingCreateEvent/);
  });
});

describe('isRestV2Path', () => {
  it('everything under /v2/, nothing else', () => {
    assert.deepEqual(['/v2', '/v2/', '/v2/applications.json', '/v1/accounts/1/events', '/v20/x', '/deployments.xml', '/graphql'].map(isRestV2Path),
      [true, true, true, false, false, false, false]);
  });
});

describe('encodeExtValue', () => {
  it("percent-encodes every byte outside RFC 8187's attr-char", () => {
    assert.equal(encodeExtValue(`a "b", <c> (d)'*é|~`), 'a%20%22b%22%2C%20%3Cc%3E%20%28d%29%27%2A%C3%A9%7C~');
  });
});
