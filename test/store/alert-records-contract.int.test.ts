/**
 * AlertRecords' contract, run on every engine that implements it: the embedded DuckDB store and the
 * shared PostgreSQL catalog must hand back the same state for the same writes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertPolicy, Incident, Issue, NrqlCondition } from '../../src/domain/alerts/alert-model.js';
import type { ConditionEvaluatorState } from '../../src/domain/alerts/condition-evaluator.js';
import type { Channel, Destination } from '../../src/domain/alerts/notification-model.js';
import type { AlertRecords, OutboxEntry } from '../../src/store/alert-records.js';
import { Database } from '../../src/store/duckdb/database.js';
import { DuckDbAlertRecords } from '../../src/store/duckdb/duckdb-alert-records.js';
import { PgAlertRecords } from '../../src/store/postgres/pg-alert-records.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/store/postgres/pg-database.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

interface Engine {
  readonly name: string;
  open(): Promise<{ records: AlertRecords; close(): Promise<void> }>;
}

let server: TestPostgres;
let databases = 0;
const dirs: string[] = [];

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'timeslice-alerts-'));
      dirs.push(dir);
      const db = await Database.open({ path: join(dir, 'timeslice.duckdb'), memoryLimit: '256MB' });
      return { records: new DuckDbAlertRecords(db), close: () => db.close() };
    },
  },
  {
    name: 'postgres',
    async open() {
      const db = await openPostgresDatabase(await server.createDatabase(`alerts_${++databases}`));
      return { records: new PgAlertRecords(db), close: () => db.close() };
    },
  },
];

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

// The store keeps bodies as opaque JSON and reads only the fields it indexes: the objects carry those and a marker.
const policy = (id: number, accountId: number, name: string) => ({ id: String(id), accountId, name, incidentPreference: 'PER_POLICY' }) as unknown as AlertPolicy;
const condition = (id: number, accountId: number, policyId: number) => ({ id: String(id), accountId, policyId: String(policyId), name: `c${id}` }) as unknown as NrqlCondition;
const incident = (id: string, conditionId: number, issueId: string | null, detectedAt: number, closeDetectedAt: number | null) =>
  ({ id, accountId: 1, conditionId: String(conditionId), issueId, detectedAt, closeDetectedAt, title: `t-${id}` }) as unknown as Incident;
const issue = (id: string, state: string, createdAt: number, closedAt: number | null) =>
  ({ id, accountId: 1, state, createdAt, closedAt, updatedAt: createdAt }) as unknown as Issue;
const state = (n: number) => ({ marker: n }) as unknown as ConditionEvaluatorState;
const outbox = (key: string, createdAt: number): OutboxEntry => ({
  key, accountId: 1, issueId: 'i1', channelId: 'ch1', workflowId: 'w1', workflowName: 'wf', state: 'ACTIVATED',
  trigger: 'STATE_CHANGE', notificationTrigger: 'ACTIVATED', body: `{"k":"${key}"}`, createdAt,
});

for (const engine of ENGINES) {
  describe(`AlertRecords on ${engine.name}`, () => {
    test('ids come from one sequence per kind; policies and conditions are replaced by id and deleted with their state', async () => {
      const { records, close } = await engine.open();
      try {
        assert.deepEqual([await records.nextId('policy'), await records.nextId('policy'), await records.nextId('condition')], [1, 2, 1]);
        await records.savePolicy({ policy: policy(1, 1, 'a'), createdAt: T0, updatedAt: T0 });
        await records.savePolicy({ policy: policy(2, 1, 'b'), createdAt: T0, updatedAt: T0 });
        await records.savePolicy({ policy: policy(1, 1, 'a renamed'), createdAt: T0, updatedAt: T0 + MIN });
        await records.saveCondition({ condition: condition(1, 1, 1), createdAt: T0, updatedAt: T0 });
        await records.saveCondition({ condition: condition(2, 1, 2), createdAt: T0, updatedAt: T0 });
        await records.commit({ evaluatorStates: new Map([['1', state(1)], ['2', state(2)]]), incidents: [], issues: [] });

        let snap = await records.load();
        assert.deepEqual(snap.policies.map((p) => [p.policy.name, p.updatedAt - T0]), [['a renamed', MIN], ['b', 0]]);
        assert.deepEqual(snap.conditions.map((c) => c.condition.id), ['1', '2']);
        assert.deepEqual([...snap.evaluatorStates].sort(), [['1', state(1)], ['2', state(2)]]);

        // Another account's id deletes nothing.
        await records.deletePolicy(2, '1');
        assert.equal((await records.load()).policies.length, 2);
        await records.deletePolicy(1, '1');
        snap = await records.load();
        assert.deepEqual(snap.policies.map((p) => p.policy.id), ['2']);
        assert.deepEqual(snap.conditions.map((c) => c.condition.id), ['2']);
        assert.deepEqual([...snap.evaluatorStates.keys()], ['2']);
        await records.deleteCondition(1, '2');
        snap = await records.load();
        assert.deepEqual([snap.conditions.length, snap.evaluatorStates.size], [0, 0]);
      } finally {
        await close();
      }
    });

    test('a commit replaces incidents and issues by id; load keeps what is open; windows filter and order', async () => {
      const { records, close } = await engine.open();
      try {
        await records.commit({
          evaluatorStates: new Map([['7', state(1)]]),
          incidents: [incident('a', 7, 'i1', T0, null), incident('b', 7, 'i2', T0 + MIN, T0 + 2 * MIN), incident('c', 7, 'i1', T0 + 3 * MIN, T0 + 4 * MIN)],
          issues: [issue('i1', 'ACTIVATED', T0, null), issue('i2', 'CLOSED', T0 + MIN, T0 + 2 * MIN)],
        });
        await records.commit({ evaluatorStates: new Map([['7', state(2)]]), incidents: [incident('a', 7, 'i1', T0, T0 + 5 * MIN)], issues: [] });

        const snap = await records.load();
        assert.deepEqual(snap.evaluatorStates.get('7'), state(2));
        // a and c are closed but belong to the open issue i1; b is closed and its issue too.
        assert.deepEqual(snap.incidents.map((i) => [i.id, i.closeDetectedAt === null ? null : i.closeDetectedAt - T0]).sort(), [['a', 5 * MIN], ['c', 4 * MIN]]);
        assert.deepEqual(snap.openIssues.map((i) => i.id), ['i1']);

        assert.deepEqual((await records.issues(1, T0, T0 + 10 * MIN)).map((i) => i.id), ['i2', 'i1'], 'newest first');
        assert.deepEqual((await records.issues(1, T0 + 3 * MIN, T0 + 10 * MIN)).map((i) => i.id), ['i1'], 'i2 closed before the window');
        assert.deepEqual((await records.issues(2, T0, T0 + 10 * MIN)).map((i) => i.id), []);
        assert.deepEqual((await records.incidents(1, T0 + 2 * MIN, T0 + 3 * MIN)).map((i) => i.id), ['c', 'b', 'a']);
        assert.deepEqual((await records.incidents(1, T0 + 2 * MIN + 1, T0 + 2 * MIN + 2)).map((i) => i.id), ['a']);
      } finally {
        await close();
      }
    });

    test('the outbox keeps one entry per key, pending oldest first, and marks are logged', async () => {
      const { records, close } = await engine.open();
      try {
        const empty = { evaluatorStates: new Map<string, ConditionEvaluatorState>(), incidents: [], issues: [] };
        await records.commit({ ...empty, outbox: [outbox('k2', T0 + MIN), outbox('k1', T0)] });
        await records.commit({ ...empty, outbox: [outbox('k1', T0 + 9 * MIN), outbox('k3', T0 + 2 * MIN)] });
        assert.deepEqual((await records.pendingNotifications()).map((e) => [e.key, e.createdAt - T0]), [['k1', 0], ['k2', MIN], ['k3', 2 * MIN]]);
        await records.markNotification('k1', 'SENT', 1, T0 + 3 * MIN);
        await records.markNotification('k2', 'FAILED', 5, T0 + 3 * MIN);
        assert.deepEqual((await records.pendingNotifications()).map((e) => e.key), ['k3']);
        assert.deepEqual(
          (await records.notificationLog(1)).map((e) => [e.key, e.status, e.attempts, e.body]),
          [['k1', 'SENT', 1, '{"k":"k1"}'], ['k2', 'FAILED', 5, '{"k":"k2"}'], ['k3', 'PENDING', 0, '{"k":"k3"}']],
        );
        assert.deepEqual(await records.notificationLog(2), []);
      } finally {
        await close();
      }
    });

    test('muting rules and issue settings: ids from their sequence, replaced by id or account, deleted per account', async () => {
      const { records, close } = await engine.open();
      try {
        const rule = (id: number, accountId: number, name: string) => ({ id: String(id), accountId, name }) as unknown as import('../../src/domain/alerts/muting-rules.js').MutingRule;
        assert.deepEqual([await records.nextMutingRuleId!(), await records.nextMutingRuleId!()], [1, 2]);
        await records.saveMutingRule!(rule(2, 1, 'second'));
        await records.saveMutingRule!(rule(1, 1, 'first'));
        await records.saveMutingRule!(rule(1, 1, 'first, renamed'));
        await records.deleteMutingRule!(2, '2');
        assert.deepEqual((await records.loadMutingRules!()).map((r) => [r.id, r.name]), [['1', 'first, renamed'], ['2', 'second']]);
        await records.deleteMutingRule!(1, '2');
        assert.deepEqual((await records.loadMutingRules!()).map((r) => r.id), ['1']);
        const settings = (ttl: number) => ({ issueTtlMs: ttl }) as unknown as import('../../src/domain/alerts/issue-tracker.js').IssueSettings;
        await records.saveIssueSettings!(3, settings(1));
        await records.saveIssueSettings!(1, settings(2));
        await records.saveIssueSettings!(3, settings(5));
        assert.deepEqual(await records.loadIssueSettings!(), [{ accountId: 1, settings: settings(2) }, { accountId: 3, settings: settings(5) }]);
      } finally {
        await close();
      }
    });

    test('REST v2 numbers: given in the commit that stores an incident or issue, never changed; pages and lookups by number', async () => {
      const { records, close } = await engine.open();
      try {
        const withOpened = (id: string, openedAt: number, closedAt: number | null) =>
          ({ ...incident(id, 7, 'i1', openedAt, closedAt), openedAt, closedAt }) as unknown as Incident;
        await records.commit({ evaluatorStates: new Map(), incidents: [withOpened('b', T0 + MIN, null), withOpened('a', T0, T0 + 2 * MIN)], issues: [issue('i1', 'ACTIVATED', T0, null)] });
        await records.commit({ evaluatorStates: new Map(), incidents: [withOpened('a', T0, T0 + 3 * MIN), withOpened('c', T0 + 2 * MIN, null)], issues: [issue('i2', 'CLOSED', T0 + MIN, T0 + 2 * MIN)] });
        // In the order each commit gave them; 'a' stored again keeps its number.
        assert.deepEqual([...(await records.restNumbers('incident', ['a', 'b', 'c']))].sort(), [['a', 2], ['b', 1], ['c', 3]]);
        assert.deepEqual([...(await records.restNumbers('issue', ['i2', 'i1', 'x']))].sort(), [['i1', 1], ['i2', 2], ['x', 3]]);
        assert.equal(await records.restIdOf('incident', 1, 3), 'c');
        assert.equal(await records.restIdOf('incident', 2, 3), undefined, 'another account');
        assert.equal(await records.restIdOf('issue', 1, 3), undefined, 'x is numbered but no issue of the account');
        const page = await records.restIncidents(1, { onlyOpen: false, offset: 0, limit: 2 });
        assert.deepEqual(page.map((p) => [p.number, p.value.id]), [[3, 'c'], [1, 'b']]);
        assert.deepEqual((await records.restIncidents(1, { onlyOpen: false, offset: 2, limit: 2 })).map((p) => p.number), [2]);
        assert.deepEqual((await records.restIncidents(1, { onlyOpen: true, openedFrom: T0 + MIN, offset: 0, limit: 10 })).map((p) => p.value.id), ['c', 'b']);
        assert.deepEqual((await records.restIncidents(1, { onlyOpen: false, ids: ['a'], offset: 0, limit: 10 })).map((p) => p.number), [2]);
        assert.deepEqual((await records.restIssues(1, { onlyOpen: false, offset: 0, limit: 10 })).map((p) => [p.number, p.value.id]), [[2, 'i2'], [1, 'i1']]);
        assert.deepEqual((await records.restIssues(1, { onlyOpen: true, offset: 0, limit: 10 })).map((p) => p.value.id), ['i1']);
      } finally {
        await close();
      }
    });

    test('notification objects keep their order, an update moves one last, deletes are per account', async () => {
      const { records, close } = await engine.open();
      try {
        const dest = (id: string, name: string) => ({ id, accountId: 1, name }) as unknown as Destination;
        await records.saveNotificationObject('destination', dest('d1', 'one'));
        await records.saveNotificationObject('destination', dest('d2', 'two'));
        await records.saveNotificationObject('destination', dest('d1', 'one again'));
        await records.saveNotificationObject('channel', { id: 'c1', accountId: 1, name: 'ch' } as unknown as Channel);
        let config = await records.loadNotificationConfig();
        assert.deepEqual(config.destinations.map((d) => d.name), ['two', 'one again']);
        assert.deepEqual([config.channels.map((c) => c.id), config.workflows], [['c1'], []]);
        await records.deleteNotificationObject('destination', 2, 'd2');
        await records.deleteNotificationObject('destination', 1, 'd1');
        config = await records.loadNotificationConfig();
        assert.deepEqual(config.destinations.map((d) => d.id), ['d2']);
      } finally {
        await close();
      }
    });
  });
}

describe('AlertRecords shared by two nodes (PostgreSQL)', () => {
  test('the same notification decided on both nodes at once is one outbox row; ids never repeat', async () => {
    const url = await server.createDatabase(`alerts_shared_${++databases}`);
    const opened: PostgresDatabase[] = [];
    try {
      opened.push(await openPostgresDatabase(url), await openPostgresDatabase(url));
      const [a, b] = opened.map((db) => new PgAlertRecords(db));
      const empty = { evaluatorStates: new Map<string, ConditionEvaluatorState>(), incidents: [], issues: [] };
      await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 === 0 ? a! : b!).commit({ ...empty, outbox: [outbox('same', T0 + n)] })));
      assert.deepEqual((await b!.pendingNotifications()).map((e) => [e.key]), [['same']]);
      const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? a! : b!).nextId('policy')));
      assert.deepEqual(ids.sort((x, y) => x - y), Array.from({ length: 20 }, (_, n) => n + 1));
    } finally {
      for (const db of opened) await db.close();
    }
  });
});
