import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConnectFacts, redirectHost } from './collector.js';
import { CollectorError } from './collector-error.js';

test('redirect_host carries the port for agents that split it, and not for those that keep theirs', () => {
  assert.equal(redirectHost('localhost', 3443, 'NewRelic-NodeAgent/13.20.0 (nodejs 20.20.2 linux-x64)'), 'localhost:3443');
  assert.equal(redirectHost('localhost', 3443, 'NewRelic-Go-Agent/3.35.0'), 'localhost:3443');
  assert.equal(redirectHost('collector.example', 3443, 'NewRelic-PythonAgent/10.0.0 (Python 3.12.1 linux)'), 'collector.example');
  assert.equal(redirectHost('collector.example', 3443, 'NewRelic-JavaAgent/8.10.0'), 'collector.example');
  assert.equal(redirectHost('localhost:3443', 3443, undefined), 'localhost:3443');
});

test('connect facts: names, roll-ups, host, pid', () => {
  const facts = parseConnectFacts([{ app_name: ['main', 'rollup', 'main'], host: 'web-1', display_host: 'Web 1', pid: 42, language: 'nodejs', agent_version: '13.20.0' }], 'UA');
  assert.deepEqual(facts, { appNames: ['main', 'rollup'], language: 'nodejs', agentVersion: '13.20.0', host: 'web-1', displayHost: 'Web 1', pid: 42, port: null, userAgent: 'UA' });
  assert.deepEqual(parseConnectFacts([{ app_name: 'a;b, c' }], undefined).appNames, ['a', 'b', 'c']);
});

test('connect facts without an application name are refused with 400', () => {
  for (const body of [[{}], [{ app_name: [] }], [{ app_name: ['  '] }], [], 'x', [[1]]]) {
    assert.throws(() => parseConnectFacts(body, undefined), (e: unknown) => e instanceof CollectorError && e.statusCode === 400);
  }
});

test('connect facts: the first 3 distinct names, cut to 255 characters; pid and port in range or unknown', () => {
  const long = 'n'.repeat(300);
  const facts = parseConnectFacts([{ app_name: ['a', 'a', `${long}x`, `${long}y`, 'b', 'c'], host: ` ${'h'.repeat(256)} `, pid: 2 ** 31, port: 65_536 }], 'U'.repeat(300));
  assert.deepEqual(facts, {
    appNames: ['a', 'n'.repeat(255), 'b'], language: null, agentVersion: null, host: 'h'.repeat(255), displayHost: null, pid: null, port: null, userAgent: 'U'.repeat(255),
  });
  assert.deepEqual(parseConnectFacts([{ app_name: ['x'], pid: 2 ** 31 - 1, port: 65_535 }], undefined), {
    appNames: ['x'], language: null, agentVersion: null, host: 'unknown', displayHost: null, pid: 2 ** 31 - 1, port: 65_535, userAgent: null,
  });
  assert.deepEqual([-1, 1.5, '12', '99999999999', 'x'].map((pid) => parseConnectFacts([{ app_name: ['x'], pid }], undefined).pid), [null, null, 12, null, null]);
});
