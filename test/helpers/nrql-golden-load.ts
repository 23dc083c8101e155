import { CUSTOM_EVENTS, Rows } from '../../src/store/append-tables.js';
import { attributeJson } from '../../src/store/attribute-json.js';
import { agentQuery, invoke } from './collector-client.js';
import type { Script } from './nrql-golden-script.js';
import { connectApp, sendMetrics, type AgentHandle, type ManualClock } from './rest-fixture.js';
import { TEST_LICENSE_KEY, type TestServer } from './test-server.js';

/** The account the golden scripts write to and query. */
export const ACCOUNT = 1;

/** Rounds floats to 12 significant digits so 0.1 + 0.2 and 0.3 compare equal on both sides. */
export function normalize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  return value;
}

export async function loadGoldenScript(ts: TestServer, script: Script, clock: ManualClock): Promise<void> {
  let agent: AgentHandle | undefined;
  const need = () => {
    if (!agent) throw new Error('an `agent <app> <host>` line must come before data lines');
    return agent;
  };
  const post = async (method: string, body: unknown) => {
    const reply = await invoke(ts.server, { query: agentQuery(method, TEST_LICENSE_KEY, need().runId), body });
    if (reply.status !== 200) throw new Error(`${method} answered ${reply.status}: ${reply.text}`);
  };
  for (const line of script.lines) {
    switch (line.kind) {
      case 'now':
        clock.ms = line.ms;
        break;
      case 'agent':
        agent = await connectApp(ts, line.app, line.host);
        break;
      case 'event': {
        const method = { Transaction: 'analytic_event_data', TransactionError: 'error_event_data', Span: 'span_event_data' }[line.eventType];
        if (!method) throw new Error(`event lines take Transaction, TransactionError or Span, not ${line.eventType}`);
        const [intrinsics = {}, user = {}, agentAttrs = {}] = line.parts;
        await post(method, [need().runId, { reservoir_size: 100, events_seen: 1 }, [[{ type: line.eventType, ...intrinsics }, user, agentAttrs]]]);
        break;
      }
      case 'custom':
        await post('custom_event_data', [need().runId, [[{ type: line.eventType, timestamp: (line.attributes as { timestamp?: number }).timestamp ?? clock.ms }, line.attributes]]]);
        break;
      case 'insert': {
        const res = await ts.server.api.inject({
          method: 'POST', url: `/v1/accounts/${ACCOUNT}/events`, headers: { 'x-license-key': TEST_LICENSE_KEY, 'content-type': 'application/json' }, payload: JSON.stringify([line.event]),
        });
        if (res.statusCode !== 200) throw new Error(`Event API answered ${res.statusCode}: ${res.body}`);
        break;
      }
      case 'stored': {
        const { eventType, timestamp, ...attributes } = line.event as { eventType: string; timestamp: number };
        const rows = new Rows(CUSTOM_EVENTS);
        rows.push(ACCOUNT, 0, 0, 0, timestamp, eventType, attributeJson(attributes));
        await ts.server.writer.write([rows]);
        break;
      }
      case 'metric':
        await sendMetrics(ts, need().runId, line.beginMs, line.beginMs + line.seconds * 1000, [[line.name, line.scope, line.stats as [number, number, number, number, number, number]]]);
        break;
      case 'case':
        break;
    }
  }
}

