import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apdexClass, BeaconError, clampedLoadTime, jsErrorRows, pageOrigin, rumCallRows, type BeaconTarget } from '../../src/ingest/browser/beacon-rows.js';
import { deobfuscate, obfuscate, ObfuscationKeys } from '../../src/ingest/browser/obfuscation.js';
import { userAgentFacts } from '../../src/ingest/browser/user-agent.js';

const target: BeaconTarget = { accountId: 1, appId: 7, appIdAttribute: 7, appName: 'Shop', entityGuid: 'g', apdexT: 2 };
const at = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('browser beacon rows', () => {
  it('classifies page loads against the browser Apdex T: S ≤ T < Tol ≤ 4T < F', () => {
    assert.deepEqual([1.999, 2, 2.001, 8, 8.001].map((d) => apdexClass(d, 2)), ['s', 's', 't', 't', 'f']);
  });

  it('clamps load times past max(4.5 T, 13.5 s)', () => {
    assert.equal(clampedLoadTime(20, 2), 13.5);
    assert.equal(clampedLoadTime(20, 4), 18);
    assert.equal(clampedLoadTime(12, 4), 12);
  });

  it('takes the page origin as receive time less rst', () => {
    assert.equal(pageOrigin({ query: { rst: '250' }, receivedAt: at, userAgent: undefined }), at - 250);
    assert.equal(pageOrigin({ query: { rst: 'x' }, receivedAt: at, userAgent: undefined }), at);
  });

  it('fills the EndUser slots of a page view (reference §3.7)', () => {
    const { timeslices, rows } = rumCallRows(target, { query: { be: '300', fe: '2700', dc: '1500', qt: '20', ap: '250', rst: '3100' }, receivedAt: at, userAgent: undefined }, { ja: { tier: 'gold' } });
    const byName = Object.fromEntries(timeslices.map((t) => [t.name, t.stats]));
    assert.deepEqual(byName.EndUser, [1, 3, 2.7, 3, 3, 0.25]);
    assert.deepEqual(byName['EndUser/RB'], [1, 1.5, 0.02, 1.5, 1.5, 0]);
    assert.deepEqual(byName['EndUser/Apdex'], [0, 1, 0, 2, 2, 0]);
    assert.deepEqual(byName.Browser, [1, 0, 0, 0, 0, 0]);
    assert.deepEqual(byName['EndUser/UserAgent/Desktop/Browser'], [1, 3, 2.7, 3, 3, 0.25]);
    assert.equal(rows.length, 1);
    const attributes = JSON.parse(rows.columns[6]![0] as string);
    assert.equal(attributes.networkDuration, 0.03); // be − ap − qt
    assert.equal(attributes.tier, 'gold');
    assert.equal(rows.columns[4]![0], at - 3100);
  });

  it('names per-transaction timeslices after the APM transaction', () => {
    const { timeslices } = rumCallRows(target, { query: { be: '1', fe: '1' }, receivedAt: at, userAgent: undefined, transactionName: 'WebTransaction/Expressjs/GET//' }, undefined);
    assert.deepEqual(timeslices.slice(-2).map((t) => t.name), ['EndUser/WebTransaction/WebTransaction/Expressjs/GET//', 'EndUser/Apdex/WebTransaction/Expressjs/GET//']);
  });

  it('refuses a RUM call without be or fe, or with a negative one', () => {
    assert.throws(() => rumCallRows(target, { query: { be: '1' }, receivedAt: at, userAgent: undefined }, undefined), BeaconError);
    assert.throws(() => rumCallRows(target, { query: { be: '-1', fe: '1' }, receivedAt: at, userAgent: undefined }, undefined), BeaconError);
  });

  it('writes one JavaScriptError per occurrence of a bucket', () => {
    const { rows, occurrences } = jsErrorRows(target, { query: {}, receivedAt: at, userAgent: undefined }, {
      err: [{ params: { exceptionClass: 'TypeError', message: 'x', timestamp: at }, metrics: { count: 3 } }],
    });
    assert.equal(occurrences, 3);
    assert.equal(rows.length, 3);
  });
});

describe('obfuscation (browser-agent reference §4.3)', () => {
  const license = '0000111122223333444455556666777788889999';
  it("matches the cross-agent test vector", () => {
    assert.equal(obfuscate('WebTransaction/brink/of/glory', license), 'Z1VSZENQX0JTUUZbXF4fUkJYX1oeXVQdVV9fQkk=');
    assert.equal(deobfuscate('SxJFEgtKE1BeQlpTEQoSUlVFUBNMTw==', license), '{"u":{"alpha":"beta"}}');
  });

  it('reads transaction names only once the account key is learned, and only names that read as transactions', () => {
    const keys = new ObfuscationKeys();
    const to = 'Z1VSZENQX0JTUUZbXF4fUkJYX1oeXVQdVV9fQkk=';
    assert.equal(keys.transactionName(1, to), undefined);
    keys.learn(1, license);
    assert.equal(keys.transactionName(1, to), 'WebTransaction/brink/of/glory');
    assert.equal(keys.transactionName(2, to), undefined);
    keys.learn(1, 'ffff111122223333444455556666777788889999');
    assert.equal(keys.transactionName(1, to), undefined);
  });
});

describe('user agent facts', () => {
  it('reads browser, version, system and device', () => {
    assert.deepEqual(userAgentFacts('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36'),
      { userAgentName: 'Headless Chrome', userAgentVersion: '156.0', userAgentOS: 'Linux', deviceType: 'Desktop' });
    assert.deepEqual(userAgentFacts('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'),
      { userAgentName: 'Safari', userAgentVersion: '17.0', userAgentOS: 'iOS', deviceType: 'Mobile' });
    assert.deepEqual(userAgentFacts(undefined), { userAgentName: 'Other', userAgentVersion: '', userAgentOS: 'Other', deviceType: 'Desktop' });
  });
});
