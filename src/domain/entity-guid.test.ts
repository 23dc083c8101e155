import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityGuid, parseEntityGuid } from './entity-guid.js';

test('entity GUIDs match New Relic\'s encoding', () => {
  // The GUID the lab collector used for account 1, application 12345 (agent-protocol.md §4.2).
  assert.equal(entityGuid(1, 'APM', 'APPLICATION', 12345), 'MXxBUE18QVBQTElDQVRJT058MTIzNDU');
  assert.deepEqual(parseEntityGuid('MXxBUE18QVBQTElDQVRJT058MTIzNDU'), { accountId: 1, domain: 'APM', type: 'APPLICATION', domainId: '12345' });
});

test('GUIDs have no padding and round-trip for every length', () => {
  for (const id of [1, 12, 123, 1234, 99999999]) {
    const guid = entityGuid(42, 'BROWSER', 'APPLICATION', id);
    assert.ok(!guid.endsWith('='));
    assert.equal(parseEntityGuid(guid)?.domainId, String(id));
  }
});

test('strings that are not GUIDs parse to undefined', () => {
  assert.equal(parseEntityGuid('not-a-guid'), undefined);
  assert.equal(parseEntityGuid(Buffer.from('x|APM|APPLICATION|1').toString('base64')), undefined);
});
