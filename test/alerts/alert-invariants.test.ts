import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PRIORITY_RANK, type Incident } from '../../src/domain/alerts/alert-model.js';
import type { AlertEngine } from '../../src/domain/alerts/alert-engine.js';
import { runConditionScript, type ConditionScript } from './condition-script.js';

// The invariants of alerts reference §7.2, over random conditions, series (gaps, lags, out-of-order
// arrivals), edits and user actions, checked after every instant of the simulated clock.

const term = (priority: 'CRITICAL' | 'WARNING') =>
  fc.record({
    priority: fc.constant(priority),
    operator: fc.constantFrom('ABOVE', 'ABOVE_OR_EQUALS', 'BELOW', 'BELOW_OR_EQUALS', 'EQUALS', 'NOT_EQUALS' as const),
    threshold: fc.constantFrom(1, 2, 3),
    thresholdDuration: fc.constantFrom(120, 180, 240),
    thresholdOccurrences: fc.constantFrom('ALL', 'AT_LEAST_ONCE' as const),
  });

const scriptArb: fc.Arbitrary<ConditionScript> = fc
  .record({
    preference: fc.constantFrom('PER_POLICY', 'PER_CONDITION', 'PER_CONDITION_AND_TARGET' as const),
    conditions: fc.array(
      fc.record({
        method: fc.constantFrom('EVENT_FLOW', 'EVENT_TIMER', 'CADENCE' as const),
        delay: fc.constantFrom(0, 60, 120),
        fill: fc.constantFrom('NONE', 'STATIC', 'LAST_VALUE' as const),
        critical: fc.option(term('CRITICAL'), { nil: undefined }),
        warning: fc.option(term('WARNING'), { nil: undefined }),
        expiration: fc.option(fc.record({ expirationDuration: fc.constantFrom(120, 300), openViolationOnExpiration: fc.boolean(), closeViolationsOnExpiration: fc.boolean() }), { nil: undefined }),
        limit: fc.constantFrom(300, 600, 86_400),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    series: fc.array(
      fc.record({
        condition: fc.nat({ max: 2 }),
        host: fc.constantFrom('a', 'b'),
        from: fc.nat({ max: 5 }),
        values: fc.array(fc.constantFrom('_', '0', '1', '2', '3', '4'), { minLength: 1, maxLength: 24 }),
        lag: fc.constantFrom(0, 10, 45, 130),
      }),
      { maxLength: 5 },
    ),
    actions: fc.array(fc.record({ at: fc.nat({ max: 30 }), kind: fc.constantFrom('ack', 'resolve', 'edit', 'disable'), issue: fc.nat({ max: 3 }), condition: fc.nat({ max: 2 }) }), { maxLength: 4 }),
  })
  .map((r) => {
    const conditions = r.conditions.map((c, i) => {
      const terms = [c.critical, c.warning].filter((t) => t !== undefined);
      return {
        id: `c${i}`,
        name: `c${i}`,
        enabled: true,
        query: 'SELECT average(duration) FROM Transaction FACET host',
        facets: ['host'],
        signal: {
          aggregationWindow: 60,
          aggregationMethod: c.method,
          ...(c.method === 'EVENT_TIMER' ? { aggregationTimer: 30 } : { aggregationDelay: c.delay }),
          fillOption: c.fill,
          ...(c.fill === 'STATIC' ? { fillValue: 3 } : {}),
        },
        terms: terms.length > 0 ? terms : [{ priority: 'CRITICAL' as const, operator: 'ABOVE' as const, threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' as const }],
        ...(c.expiration !== undefined ? { expiration: c.expiration } : {}),
        violationTimeLimitSeconds: c.limit,
      };
    });
    const actions = r.actions.map((a) => {
      const condition = conditions[a.condition % conditions.length]!;
      if (a.kind === 'ack') return { at: `+${a.at}m`, ack: a.issue };
      if (a.kind === 'resolve') return { at: `+${a.at}m`, resolve: a.issue };
      if (a.kind === 'disable') return { at: `+${a.at}m`, disable: condition.id };
      return { at: `+${a.at}m`, edit: { condition: condition.id, patch: { terms: condition.terms.map((t) => ({ ...t, threshold: t.threshold + 1 })) } } };
    });
    return {
      description: 'random',
      policy: { name: 'p', incidentPreference: r.preference },
      conditions,
      start: '2024-06-10T06:00:00Z',
      until: '+40m',
      tickSeconds: 15,
      series: r.series.map((s) => ({
        condition: conditions[s.condition % conditions.length]!.id,
        signal: { host: s.host },
        values: s.values.join(' '),
        from: `+${s.from}m`,
        arrivalLagSeconds: s.lag,
      })),
      actions,
      expect: { incidents: [], issues: [], notifications: [] },
    } satisfies ConditionScript;
  });

/** Issue ids the script's actions address by index may not exist: such actions are skipped by the runner's engine. */
function checkStep(engine: AlertEngine): void {
  const { incidents, issues } = engine.state;
  const open = Object.values(incidents).filter((i) => i.closedAt === null);
  // ≤ 1 open incident per (condition, signal, term).
  const keys = open.map((i) => JSON.stringify([i.conditionId, i.signalKey, i.termKey]));
  assert.equal(new Set(keys).size, keys.length, `two open incidents share a term: ${keys.join(' ')}`);
  // Every open incident is in exactly one open issue, the one it names.
  for (const incident of open) {
    const holders = Object.values(issues.issues).filter((issue) => issue.state !== 'CLOSED' && issue.openIncidentIds.includes(incident.id));
    assert.equal(holders.length, 1, `open incident ${incident.id} is in ${holders.length} open issues`);
    assert.equal(holders[0]!.id, incident.issueId);
  }
  for (const issue of Object.values(issues.issues)) {
    // Issue priority = the highest of its incidents'.
    const priorities = issue.incidentIds.map((id) => incidents[id]!.priority);
    const max = priorities.reduce((a, b) => (PRIORITY_RANK[b] > PRIORITY_RANK[a] ? b : a));
    assert.equal(issue.priority, max, `issue ${issue.id} priority`);
    if (issue.state === 'CLOSED') assert.equal(issue.openIncidentIds.length, 0);
    for (const id of issue.openIncidentIds) assert.equal(incidents[id]!.closedAt, null, `closed incident ${id} still open in issue ${issue.id}`);
  }
}

function checkHistory(all: readonly Incident[]): void {
  for (const i of all) {
    // Data-time order of degradation, open and close.
    assert.ok(i.degradationAt <= i.openedAt, `degradation ${i.degradationAt} after open ${i.openedAt}`);
    if (i.closedAt !== null) assert.ok(i.openedAt <= i.closedAt, `open ${i.openedAt} after close ${i.closedAt} (${i.closeCause})`);
  }
}

test('alert invariants hold over random conditions, series and user actions', () => {
  const stats = { incidents: 0, closed: 0, issues: 0 };
  fc.assert(
    fc.property(scriptArb, (script) => {
      const closedIssues = new Set<string>();
      const outcome = runConditionScript(script, (engine) => checkStep(engine));
      for (const e of outcome.events) {
        if (e.kind !== 'issue') continue;
        // A closed issue never reopens: no event for it after its CLOSED event.
        assert.ok(!closedIssues.has(e.event.issueId), `issue ${e.event.issueId} changed after closing (${e.event.trigger})`);
        if (e.event.state === 'CLOSED') closedIssues.add(e.event.issueId);
      }
      checkHistory(outcome.rawIncidents);
      stats.incidents += outcome.rawIncidents.length;
      stats.closed += outcome.rawIncidents.filter((i) => i.closedAt !== null).length;
      stats.issues += outcome.rawIssues.length;
    }),
    { numRuns: 300, seed: 20_261_126 },
  );
  // The generator must exercise the machinery, not only quiet signals.
  assert.ok(stats.incidents > 300 && stats.closed > 150 && stats.issues > 150, JSON.stringify(stats));
});

test('the invariant checks fail on a broken state', () => {
  // A check that cannot fail is no check: corrupt a real run and require each assertion to fire.
  const script: ConditionScript = {
    description: 'one incident',
    policy: { name: 'p', incidentPreference: 'PER_POLICY' },
    conditions: [{ id: 'c1', name: 'c1', enabled: true, query: 'q', terms: [{ priority: 'CRITICAL', operator: 'ABOVE', threshold: 2, thresholdDuration: 120, thresholdOccurrences: 'ALL' }], signal: { aggregationWindow: 60, aggregationMethod: 'EVENT_FLOW', aggregationDelay: 0 } }],
    start: '2024-06-10T06:00:00Z',
    until: '+4m',
    series: [{ condition: 'c1', values: '3 3 3 3' }],
    expect: { incidents: [], issues: [], notifications: [] },
  };
  const { engine } = runConditionScript(script);
  checkStep(engine);
  const issue = Object.values(engine.state.issues.issues)[0]!;
  engine.state.issues.issues[issue.id] = { ...issue, priority: 'HIGH' };
  assert.throws(() => checkStep(engine), /priority/);
  engine.state.issues.issues[issue.id] = { ...issue, state: 'CLOSED' };
  assert.throws(() => checkStep(engine), /in 0 open issues/);
  const incident = Object.values(engine.state.incidents)[0]!;
  assert.throws(() => checkHistory([{ ...incident, closedAt: incident.openedAt - 1 }]), /after close/);
});

/** A state without what a restart reads again (open windows, arrival times, the watermark) and a diagnostic counter. */
function decided(state: unknown): string {
  const skipped = new Set(['pending', 'lastArrivalAt', 'watermark', 'droppedLate']);
  return JSON.stringify(state, (key, value: unknown) => (skipped.has(key) ? undefined : value));
}

test('an evaluator revision moves whenever what it decided changed (the service commits a state only then)', () => {
  let moved = 0;
  fc.assert(
    fc.property(scriptArb, (script) => {
      const seen = new Map<string, { revision: number; decided: string }>();
      runConditionScript(script, (engine) => {
        for (const id of engine.conditionIds()) {
          const evaluator = engine.evaluator(id)!;
          const now = { revision: evaluator.revision, decided: decided(evaluator.state) };
          const before = seen.get(id);
          if (before !== undefined && before.decided !== now.decided) {
            assert.notEqual(now.revision, before.revision, `condition ${id} changed without a new revision: ${before.decided} → ${now.decided}`);
            moved += 1;
          }
          seen.set(id, now);
        }
      });
    }),
    { numRuns: 150, seed: 20_261_127 },
  );
  assert.ok(moved > 500, `only ${moved} changes seen`);
});
