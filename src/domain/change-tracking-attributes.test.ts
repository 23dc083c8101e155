import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isReservedCustomAttribute } from './change-tracking-attributes.js';

test('the event\'s own attributes and NRQL keywords are reserved, whatever their case', () => {
  // The names New Relic's change tracking docs list, as they spell them.
  for (const name of ['accountId', 'appID', 'category', 'changeTrackingId', 'customAttributes', 'description', 'entity.guid', 'entity.name', 'eventType', 'groupId', 'timestamp', 'type', 'user']) {
    assert.equal(isReservedCustomAttribute(name), true, name);
  }
  for (const name of ['select', 'FROM', 'Where', 'since', 'until', 'facet', 'limit', 'deploymentId', 'service.source']) {
    assert.equal(isReservedCustomAttribute(name), true, name);
  }
  for (const name of ['region', 'pods', 'canary', 'selected', 'entity', 'users']) {
    assert.equal(isReservedCustomAttribute(name), false, name);
  }
});
