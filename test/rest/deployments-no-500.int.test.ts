import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seededRandom } from '../helpers/seeded-random.js';
import { TEST_API_KEY, TEST_LICENSE_KEY } from '../helpers/test-server.js';
import { rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * No body makes the write endpoints of this issue fail: seeded random bodies (every JSON type,
 * junk text, emoji, huge values, wrong content types) to POST /v2/applications/{id}/deployments,
 * POST /deployments.xml and POST /v1/accounts/1/events, each answered with a status a client can
 * act on and a body in its API's shape. A failure prints the seed and the request
 * (DEPLOY_FUZZ_SEED=n replays it).
 */

const SEED = Number(process.env.DEPLOY_FUZZ_SEED ?? 20240306);
const REQUESTS = 600;

let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const TEXTS = ['', ' ', 'v1.2.3', '9f1c2ab', '名前', '😀', 'a\u0000b', '<x>&</x>', '"', '\\', '%zz', 'null', '2024-03-05T14:00:00Z', '2024-03-05T14:30:19Z', '2099-01-01T00:00:00Z', 'checkout-web', 'billing-worker', 'Metric', 'x.y'];

function fuzzer(rand: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const chance = (p: number) => rand() < p;
  const scalar = (): unknown => pick([
    () => pick(TEXTS), () => pick(TEXTS).repeat(pick([1, 40, 5000])), () => Math.floor(rand() * 2e9) - 1e9, () => rand() * 1e12,
    () => pick([true, false, null]), () => 1.5, () => -0,
  ])();
  const value = (depth = 0): unknown => (depth < 2 && chance(0.15) ? (chance(0.5) ? [value(depth + 1)] : { k: value(depth + 1) }) : scalar());
  /** Usually a good start, then random members on top. */
  const object = (keys: readonly string[], good: Record<string, unknown> = {}): Record<string, unknown> => {
    const o: Record<string, unknown> = chance(0.7) ? { ...good } : {};
    for (const k of keys) if (chance(0.3)) o[k] = value();
    if (chance(0.2)) o[pick(TEXTS)] = value();
    return o;
  };
  const deploymentFields = ['revision', 'changelog', 'description', 'user', 'timestamp'];

  return (): { endpoint: 'v2' | 'v0' | 'events'; url: string; body: string; headers: Record<string, string>; key?: string | null } => {
    const endpoint = pick(['v2', 'v2', 'v0', 'events'] as const);
    if (endpoint === 'v2') {
      const app = pick([s.checkout, s.billing, 999]);
      const body = chance(0.8) ? JSON.stringify(chance(0.85) ? { deployment: chance(0.9) ? object(deploymentFields, { revision: 'v1' }) : value() } : value()) : pick(TEXTS);
      const type = chance(0.9) ? 'application/json' : pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml']);
      return { endpoint, url: `/v2/applications/${app}/deployments.${pick(['json', 'xml'])}`, body, headers: { 'content-type': type } };
    }
    if (endpoint === 'v0') {
      const fields = ['app_name', 'application_id', ...deploymentFields.slice(0, 4)];
      const good = { app_name: pick(['checkout-web', 'billing-worker']), revision: 'r' };
      const form = Object.entries(object(fields, good)).map(([f, v]) => `${chance(0.8) ? `deployment[${f}]` : f}=${encodeURIComponent(String(v))}`).join('&');
      const json = chance(0.2);
      const key: Record<string, string> = chance(0.9) ? pick<Record<string, string>>([{ 'x-license-key': TEST_LICENSE_KEY }, { 'x-api-key': TEST_API_KEY }]) : { [pick(['x-license-key', 'x-api-key'])]: pick([TEST_API_KEY, TEST_LICENSE_KEY, 'nope']) };
      return {
        endpoint, url: '/deployments.xml', key: null,
        body: json ? JSON.stringify({ deployment: object(fields, good) }) : form,
        headers: { ...key, 'content-type': json ? 'application/json' : pick(['application/octet-stream', 'application/x-www-form-urlencoded']) },
      };
    }
    const events = Array.from({ length: Math.floor(rand() * 5) }, () => (chance(0.9) ? { eventType: chance(0.8) ? pick(['Purchase', 'Mobile', 'PageView']) : scalar(), ...object(['a', 'appId', 'timestamp', 'accountId']) } : value()));
    return {
      endpoint, url: '/v1/accounts/1/events', key: null,
      body: chance(0.9) ? JSON.stringify(chance(0.8) ? events : events[0] ?? value()) : pick(TEXTS),
      headers: { 'x-insert-key': chance(0.95) ? TEST_LICENSE_KEY : TEST_API_KEY, 'content-type': 'application/json' },
    };
  };
}

const ALLOWED = { v2: [201, 404, 400, 415, 422], v0: [201, 400, 403, 422], events: [200, 400, 403] } as const;

describe('deployments and events under random bodies', () => {
  it(`${REQUESTS} seeded requests (seed ${SEED}): no 500, every body in its API's shape`, { timeout: 120_000 }, async () => {
    const next = fuzzer(seededRandom(SEED));
    const statuses = new Map<string, number>();
    for (let i = 0; i < REQUESTS; i++) {
      // Deployment times must increase: a minute per request keeps given times in the past and after the latest.
      s.clock.ms += 60_000;
      const r = next();
      const reply = await rest(s.ts, 'POST', r.url, { body: r.body, headers: r.headers, ...(r.key !== undefined ? { key: r.key } : {}) });
      const where = `request ${i} (seed ${SEED}): POST ${r.url} ${JSON.stringify(r.headers)} ${r.body.slice(0, 300)}`;
      statuses.set(`${r.endpoint} ${reply.status}`, (statuses.get(`${r.endpoint} ${reply.status}`) ?? 0) + 1);
      assert.ok((ALLOWED[r.endpoint] as readonly number[]).includes(reply.status), `status ${reply.status} for ${where}: ${reply.text.slice(0, 300)}`);
      if (r.endpoint === 'v0') {
        assert.match(reply.text, reply.status === 201 ? /^<\?xml[^\n]*\n<deployment>\n[\s\S]*<\/deployment>\n$/ : /^<\?xml[^\n]*\n<errors>\n( {2}<error>[^<\n]+<\/error>\n)+<\/errors>\n$/, where);
      } else if (r.endpoint === 'events') {
        const body = JSON.parse(reply.text);
        assert.ok(reply.status === 200 ? body.success === true : reply.status === 403 ? Object.keys(body).length === 0 : body.success === false && typeof body.error === 'string', where);
      } else if (r.url.endsWith('.xml')) {
        assert.match(reply.text, reply.status === 201 ? /^<\?xml[^\n]*\n<deployment_response><deployment><id>\d+<\/id>/ : /^<\?xml[^\n]*\n<error><title>[^<]+<\/title>/, where);
      } else {
        const body = JSON.parse(reply.text);
        assert.ok(reply.status === 201 ? Number.isInteger(body.deployment?.id) : typeof body.error?.title === 'string', where);
      }
    }
    // The mix reaches the successes, not only refusals.
    for (const ok of ['v2 201', 'v0 201', 'events 200']) assert.ok((statuses.get(ok) ?? 0) > 20, `too few ${ok}: ${JSON.stringify([...statuses].sort())}`);
  });
});
