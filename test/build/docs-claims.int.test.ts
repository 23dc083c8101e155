// Sentences the docs once got wrong about the code; each check names the test that holds the behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8').replace(/\s+/g, ' ');

test('docs/nrql.md does not call actor.account.nrql unbuilt (test/graph/graph-three-ways.int.test.ts runs it)', () => {
  const schema = read('src/api/graphql/schema.graphql');
  assert.match(schema, /type Account \{[^}]* nrql\(/, 'Account has nrql');
  const nrqlDoc = read('docs/nrql.md');
  assert.doesNotMatch(nrqlDoc, /actor\.account\.nrql`? \([^)]*not built/);
  assert.match(nrqlDoc, /actor \{ account\(id: 1\) \{ nrql\(query: "…"\) \{ results \} \} \}`, which answers the same container/);
});

test('docs/graph-api.md does not say a permalink with #key= runs the query (test/e2e/graphiql.int.test.ts: it runs on Run)', () => {
  const graphDoc = read('docs/graph-api.md');
  assert.doesNotMatch(graphDoc, /#key=NRAK-…` to run it at once/);
  assert.match(graphDoc, /the entity's query runs when you press Run/);
});
