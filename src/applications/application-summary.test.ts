import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Host, Instance } from '../store/catalog.js';
import type { MetricScope } from '../store/metric-index.js';
import { applicationParts, summaryWindow } from './application-summary.js';

const NOW = Date.UTC(2024, 2, 5, 14, 30, 20);

describe('summaryWindow', () => {
  it('whole minutes ending with the one now is in', () => {
    assert.deepEqual(summaryWindow(NOW, 10), { beginMs: Date.UTC(2024, 2, 5, 14, 21), endMs: Date.UTC(2024, 2, 5, 14, 31) });
    assert.deepEqual(summaryWindow(Date.UTC(2024, 2, 5, 14, 30), 30), { beginMs: Date.UTC(2024, 2, 5, 14, 1), endMs: Date.UTC(2024, 2, 5, 14, 31) });
    assert.deepEqual(summaryWindow(Date.UTC(2024, 2, 5, 14, 30, 59, 999), 1), { beginMs: Date.UTC(2024, 2, 5, 14, 30), endMs: Date.UTC(2024, 2, 5, 14, 31) });
  });
});

describe('applicationParts', () => {
  const host = (id: number): Host => ({ id, accountId: 1, appId: 9, name: `h${id}` });
  const instance = (id: number, hostId: number): Instance => ({ id, accountId: 1, appId: 9, hostId, pid: id, port: null, agentVersion: null });
  // Host 1 last reported 9:59.999 ago (live), host 2 exactly 10 minutes ago (not), host 3 never.
  const last: Record<string, number> = {
    'host:1': NOW - 599_999, 'host:2': NOW - 600_000,
    'instance:11': NOW - 1_000, 'instance:12': NOW - 600_000, 'instance:21': NOW - 700_000,
  };
  const deps = {
    catalog: {
      hostsOf: (appId: number) => (appId === 9 ? [host(1), host(2), host(3)] : []),
      instancesOf: (appId: number) => (appId === 9 ? [instance(11, 1), instance(12, 1), instance(21, 2)] : []),
    },
    metrics: {
      lastReportedAt: (scope: MetricScope) => {
        assert.equal(scope.appId, 9);
        return scope.hostId !== undefined ? last[`host:${scope.hostId}`] : last[`instance:${scope.instanceId}`];
      },
    },
  };

  it('all hosts and instances, and those that sent metric data in the last 10 minutes', () => {
    const parts = applicationParts(deps, 9, NOW);
    assert.deepEqual(parts.hosts.map((h) => h.id), [1, 2, 3]);
    assert.deepEqual(parts.instances.map((i) => i.id), [11, 12, 21]);
    assert.deepEqual(parts.liveHosts.map((h) => h.id), [1]);
    assert.deepEqual(parts.liveInstances.map((i) => i.id), [11]);
  });

  it('an application without hosts has no parts', () => {
    assert.deepEqual(applicationParts(deps, 8, NOW), { hosts: [], instances: [], liveHosts: [], liveInstances: [] });
  });
});
