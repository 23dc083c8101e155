import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConditionScript, type ConditionScript } from './condition-script.js';

// Golden condition tests (alerts reference §7.1): each file in test/golden/alerts is one scenario,
// run against the evaluator with an injected clock; expectations were worked out by hand from the
// reference's rules, never produced by the code.
const dir = join(process.cwd(), 'test/golden/alerts');

for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const script = JSON.parse(readFileSync(join(dir, file), 'utf8')) as ConditionScript;
  test(`golden condition ${file}: ${script.description}`, () => {
    const outcome = runConditionScript(script);
    assert.deepEqual(outcome.incidents, script.expect.incidents, 'incidents');
    assert.deepEqual(
      outcome.issues.map((issue, i) => {
        const expected = script.expect.issues[i];
        if (expected?.incidents !== undefined) return issue;
        return {
          state: issue.state, priority: issue.priority, totalIncidents: issue.totalIncidents,
          ...(expected?.mutingState !== undefined ? { mutingState: issue.mutingState } : {}),
          ...(expected?.activatedAt !== undefined ? { activatedAt: issue.activatedAt } : {}),
        };
      }),
      script.expect.issues,
      'issues',
    );
    assert.deepEqual(outcome.notifications, script.expect.notifications, 'notifications');
    assert.deepEqual(outcome.alertSeverity, script.expect.alertSeverity ?? [], 'alertSeverity');
  });
}
