import assert from 'node:assert/strict';
import { seededRandom } from '../helpers/seeded-random.js';
import { after, before, describe, it } from 'node:test';
import { NOW_MS, rest, startScenario, type Scenario } from './rest-scenario.js';

/*
 * No parameter combination makes the metric data, metric names or list endpoints fail: a few
 * thousand seeded random requests (garbage, huge, unicode, repeated, empty and percent-encoded
 * junk values, in the query string, in a form-encoded GET body, or both), JSON and XML, each
 * answered with a status a client can act on and a body of the right shape. A failure prints
 * the seed and the request, which the same seed replays (REST_FUZZ_SEED=n, REST_FUZZ_REQUESTS=n;
 * with a seed given, the count of each status is printed).
 */

const SEED = Number(process.env.REST_FUZZ_SEED ?? 20240305);
const REQUESTS = Number(process.env.REST_FUZZ_REQUESTS ?? 2000);
const ALLOWED = new Set([200, 401, 404, 405, 413, 422]);


let s: Scenario;
before(async () => {
  s = await startScenario();
});
after(() => s?.ts.stop());

const JUNK = [
  '', ' ', '+', '%', '%%', '%zz', '%E0%A4%A', '%FF%FE', '%00', '%C0%AF', '\u0000', '\uFFFF', '\uD800', '名前', '😀', 'Ünïcödé/Μετρική',
  "';DROP TABLE timeslices;--", '"quoted"', '<xml>&amp;</xml>', ']]>', '\\', '../../etc/passwd', 'null', 'undefined', 'NaN', 'Infinity',
  '-Infinity', '1e309', '-0', '0x10', '٣', 'true', 'false', 'TRUE', '1', '0', '[]', '{}', '[object Object]', '__proto__', 'constructor',
];
const NAMES = ['HttpDispatcher', 'Apdex', 'EndUser/Apdex', 'WebFrontend/QueueTime', 'Errors/all', 'OtherTransaction/all', 'EndUser', 'Nope/Nothing', 'apdex', 'HttpDispatcher '];
const VALUES = ['call_count', 'average_response_time', 'score', 's', 'threshold', 'standard_deviation', 'errors_per_minute', 'throughput', 'utilization', 'no_value'];
const TIMES = [
  '2024-03-05T14:00:00Z', '2024-03-05T14:20:00+00:00', '2024-03-05T16:20:00%2B02:00', '2024-03-05T16:20:00+02:00', '2024-03-05T09:25:00-05:00',
  '2024-03-05T14:29:30Z', '2024-03-05T14:30:19Z', '2024-03-05T14:30:20Z', '2024-03-05T15:00:00Z', '2024-03-05', '2024-03-05 14:10', '2024-03-05T14:10:00.123456789Z',
  '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '2024-03-05T24:00:00Z', '2024-03-05T14:00:00+18:00', '2024-03-05T14:00:00-18:01', '0000-01-01T00:00:00Z',
  '0001-01-01', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '2024-02-20T00:00:00Z', '2024-01-01T00:00:00Z', '2023-03-05T00:00:00Z',
  '1709647200', '2024-W10', 'now', '2024-03-05t14:00:00z', '+002024-03-05T14:00:00Z',
];
const PERIODS = ['60', '120', '300', '600', '1800', '3600', '10800', '259200', '0', '-60', '90', '60.0', '1e3', '999999999999999999999', '9007199254740993', '31536000000'];
const PAGES = ['1', '2', '3', '0', '-1', 'abc', '1.5', '99999999999999999999', '9007199254740991', '1000000'];

function fuzzer(rand: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const chance = (p: number) => rand() < p;
  const huge = () => pick(['x', '名', '%', 'a/'] as const).repeat(pick([1000, 5000, 20_000]));
  const junk = (): string => (chance(0.05) ? huge() : chance(0.5) ? pick(JUNK) : pick(JUNK) + pick(JUNK));
  const value = (good: readonly string[]): string => (chance(0.6) ? pick(good) : junk());
  /** Percent-encodes, or (sometimes) leaves the text raw so that stray `%`, `&` and `=` reach the parser as they are. */
  const encode = (text: string): string => {
    if (chance(0.15)) return text.replace(/[#\s]/g, (c) => encodeURIComponent(c));
    // A lone surrogate has no UTF-8 form: send the bytes it would have had, which are not UTF-8 either.
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
    return encodeURIComponent(text.replace(lone, '\uE000')).replace(/%EE%80%80/g, '%ED%A0%80');
  };

  const metricParams = (): [string, string][] => {
    const params: [string, string][] = [];
    const names = chance(0.1) ? 0 : 1 + Math.floor(rand() * (chance(0.05) ? 300 : 4));
    for (let i = 0; i < names; i++) params.push([pick(['names[]', 'names[]', 'names', 'name', 'names[][]']), value(NAMES)]);
    for (let i = Math.floor(rand() * 4); i > 0; i--) params.push([pick(['values[]', 'values']), value(VALUES)]);
    if (chance(0.6)) params.push(['from', value(TIMES)]);
    if (chance(0.6)) params.push(['to', value(TIMES)]);
    if (chance(0.4)) params.push(['period', value(PERIODS)]);
    if (chance(0.4)) params.push(['summarize', value(['true', 'false', '1', '0', 'TRUE'])]);
    if (chance(0.3)) params.push(['raw', value(['true', 'false'])]);
    if (chance(0.1)) params.push(['page', value(PAGES)]);
    if (chance(0.2)) params.push([junk(), junk()]);
    // A repeated single-valued parameter.
    if (chance(0.1) && params.length > 0) params.push(pick(params));
    return params;
  };
  const listParams = (): [string, string][] => {
    const params: [string, string][] = [];
    if (chance(0.4)) params.push(['filter[name]', value(['checkout', 'billing', 'WEB', ''])]);
    if (chance(0.3)) params.push(['filter[ids]', value(['1', '1,2', '2,999', ' 1 , 2 ', ',,', '1,two', '99999999999999999999'])]);
    if (chance(0.3)) params.push([pick(['filter[language]', 'filter[host]', 'filter[id]']), value(['nodejs', 'python,nodejs', 'web-1', 'WEB-2'])]);
    if (chance(0.4)) params.push(['page', value(PAGES)]);
    // Only valid values: a wrong one is a known 500 (rest-errors.int.test.ts, 'exclude_links must be a boolean').
    if (chance(0.3)) params.push(['exclude_links', pick(['true', 'false', '1', '0'])]);
    if (chance(0.1)) params.push(['page', value(PAGES)]);
    if (chance(0.2)) params.push([junk(), junk()]);
    return params;
  };

  return (): { method: 'GET' | 'PUT' | 'POST' | 'DELETE'; url: string; body?: string; key?: string | null; headers?: Record<string, string> } => {
    const format = chance(0.5) ? 'json' : 'xml';
    const id = (good: readonly number[], bad: readonly string[]) => (chance(0.9) ? String(pick(good)) : pick(bad));
    const appId = id([s.checkout, s.checkout, s.billing], ['999', 'abc', '0', '-1', '99999999999999999999', '%20', '1.0']);
    const base = pick([
      `/v2/applications/${appId}`,
      `/v2/applications/${appId}`,
      `/v2/applications/${appId}/hosts/${id([s.hosts.web1, s.hosts.web2], ['999', 'web-1'])}`,
      `/v2/applications/${appId}/instances/${id([s.instances.web1a, s.instances.web2], ['999', 'x'])}`,
    ]);
    const kind = pick(['data', 'data', 'data', 'names', 'list']);
    const path = kind === 'list' ? `/v2/applications.${format}` : kind === 'names' ? `${base}/metrics.${format}` : `${base}/metrics/data.${format}`;
    const params = kind === 'list' ? listParams() : kind === 'names' ? [...(chance(0.5) ? [['name', value(NAMES)] as [string, string]] : []), ...(chance(0.3) ? [['page', value(PAGES)] as [string, string]] : [])] : metricParams();
    const inBody = params.filter(() => chance(0.3));
    const inQuery = params.filter((p) => !inBody.includes(p) || chance(0.2));
    const join = (list: [string, string][]) => list.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
    const query = join(inQuery);
    const request: ReturnType<ReturnType<typeof fuzzer>> = {
      method: chance(0.03) ? pick(['PUT', 'POST', 'DELETE'] as const) : 'GET',
      url: query === '' ? path : `${path}?${query}`,
    };
    if (inBody.length > 0) {
      request.body = join(inBody);
      request.headers = { 'content-type': 'application/x-www-form-urlencoded' };
    }
    if (chance(0.02)) request.key = pick([null, 'NRAK-WRONG', '']);
    if (chance(0.005)) {
      request.body = `names[]=${'y'.repeat(1024 * 1024 + 10)}`;
      request.headers = { 'content-type': 'application/x-www-form-urlencoded' };
    }
    return request;
  };
}

/** A body of the right shape for its status and format; returns what is wrong, or undefined. */
function shapeProblem(status: number, contentType: string, text: string, path: string): string | undefined {
  const isXml = path.endsWith('.xml');
  if (contentType !== (isXml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8')) return `content-type ${contentType}`;
  if (isXml) {
    if (!text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')) return 'no XML declaration';
    const root = status === 200 ? (path.endsWith('/metrics/data.xml') ? 'metric_data_response' : path.endsWith('/metrics.xml') ? 'metrics_response' : 'applications_response') : 'error';
    const problem = xmlProblem(text.slice(text.indexOf('\n') + 1));
    if (problem) return problem;
    if (!text.includes(`\n<${root}>`) || !text.endsWith(`</${root}>`)) return `root is not <${root}>`;
    if (status !== 200 && !/^<error><title>[^<]+<\/title>/.test(text.slice(text.indexOf('\n') + 1))) return 'no <error><title>';
    return undefined;
  }
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (status !== 200) return typeof body?.error?.title === 'string' && body.error.title !== '' ? undefined : 'no error.title';
  if (path.endsWith('/metrics/data.json')) {
    const d = body.metric_data;
    if (!d || typeof d.from !== 'string' || !Array.isArray(d.metrics) || !Array.isArray(d.metrics_found) || !Array.isArray(d.metrics_not_found)) return 'not a metric_data body';
    for (const m of d.metrics) {
      for (const t of m.timeslices) {
        for (const v of Object.values(t.values)) if (typeof v !== 'number' || !Number.isFinite(v)) return `value ${String(v)} in ${m.name}`;
      }
    }
    return undefined;
  }
  if (path.endsWith('/metrics.json')) return Array.isArray(body.metrics) ? undefined : 'not a metrics body';
  return Array.isArray(body.applications) ? undefined : 'not an applications body';
}

/** Well-formedness of the one-line documents the API writes: balanced tags, the five entities and character references. */
function xmlProblem(text: string): string | undefined {
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z_][\w.\-]*)>|&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);|([<>&])/g;
  let m: RegExpExecArray | null;
  while ((m = token.exec(text)) !== null) {
    if (m[4] !== undefined) return `stray '${m[4]}' at ${m.index}`;
    if (m[2] === undefined) continue;
    if (m[1] === '') stack.push(m[2]);
    else if (stack.pop() !== m[2]) return `unbalanced </${m[2]}> at ${m.index}`;
  }
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(text)) return 'a character XML 1.0 forbids';
  return stack.length === 0 ? undefined : `unclosed <${stack.at(-1)}>`;
}

describe('REST v2 under random parameters', () => {
  it(`${REQUESTS} seeded requests (seed ${SEED}): no 500, every body in its shape`, { timeout: 60_000 }, async () => {
    const next = fuzzer(seededRandom(SEED));
    const statuses = new Map<number, number>();
    const started = Date.now();
    for (let i = 0; i < REQUESTS; i++) {
      // The rate limit is 1000 a minute per key: a new minute every 500 requests.
      if (i % 500 === 0) s.clock.ms = NOW_MS + (i / 500) * 60_000;
      const request = next();
      const reply = await rest(s.ts, request.method, request.url, {
        ...(request.key !== undefined ? { key: request.key } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.headers ? { headers: request.headers } : {}),
      });
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      const where = `request ${i} (seed ${SEED}): ${request.method} ${request.url.slice(0, 500)}${request.body ? ` body ${request.body.slice(0, 300)}` : ''}`;
      assert.ok(ALLOWED.has(reply.status), `status ${reply.status} for ${where}: ${reply.text.slice(0, 300)}`);
      const path = request.url.split('?', 1)[0]!;
      const problem = shapeProblem(reply.status, String(reply.headers['content-type']), reply.text, path);
      assert.equal(problem, undefined, `${problem} for ${where}: ${reply.text.slice(0, 300)}`);
    }
    // The mix reaches the answers that matter, not only refusals.
    assert.ok((statuses.get(200) ?? 0) > REQUESTS / 10, `too few 200s: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(422) ?? 0) > REQUESTS / 10, `too few 422s: ${JSON.stringify([...statuses])}`);
    if (process.env.REST_FUZZ_SEED) console.log(JSON.stringify([...statuses].sort()));
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });
});
