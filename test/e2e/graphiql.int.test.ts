import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { chromium, type Page, type Request } from 'playwright-core';
import { graphData } from '../helpers/graph-client.js';
import { connectApp } from '../helpers/rest-fixture.js';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/test-server.js';

/*
 * GraphiQL as a user meets it: the root page in a real Chromium (Debian's, installed by .ci/run),
 * its link to /graphiql, the key pasted into the Headers editor, the page's default query run
 * against an application an agent connected. Every request the page makes must go to the
 * service's own origin and succeed, and the page must run without a single console error, so a
 * Content-Security-Policy violation fails the test.
 *
 * Expected values come from the node_modules files and package versions read here, New Relic's
 * GUID format, and the name the service gives a key's user; never from the code under test.
 */

const CHROMIUM = '/usr/bin/chromium';
/** What this machine's Chromium needs (docs of the machine): no sandbox as root, no calls home. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOT = '/tmp/graphiql.png';
const APP_NAME = 'graphiql-e2e-checkout';
const NO_KEY = 'No API key: put a user API key (NRAK-…) into "Api-Key" in the Headers tab below, or open /graphiql#key=NRAK-…';

const nodeModules = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const versionOf = (name: string): string => (JSON.parse(readFileSync(`${nodeModules}${name}/package.json`, 'utf8')) as { version: string }).version;
/** Each served asset: URL under /graphiql/assets/ and the file it must serve byte for byte. */
const ASSETS = [
  { url: `graphiql-${versionOf('graphiql')}.min.css`, file: 'graphiql/graphiql.min.css', type: 'text/css; charset=utf-8' },
  { url: `react-${versionOf('react')}.production.min.js`, file: 'react/umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  { url: `react-dom-${versionOf('react-dom')}.production.min.js`, file: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
  { url: `graphiql-${versionOf('graphiql')}.min.js`, file: 'graphiql/graphiql.min.js', type: 'text/javascript; charset=utf-8' },
];
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const apmGuid = (accountId: number, appId: number) => Buffer.from(`${accountId}|APM|APPLICATION|${appId}`).toString('base64').replace(/=+$/, '');

async function withServer(t: { after: (fn: () => Promise<void>) => void }): Promise<TestServer> {
  const ts = await startTestServer();
  t.after(() => ts.stop());
  return ts;
}

test('GET / answers API clients with the JSON index and browsers with an HTML page', async (t) => {
  const ts = await withServer(t);
  const json = {
    name: 'Timeslice',
    description: 'Self-hosted APM service speaking the New Relic agent protocol, REST API v2 and NerdGraph.',
    health: '/healthz',
    rest: '/v2/applications.json',
    graphql: '/graphql',
    graphiql: '/graphiql',
  };
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5', 'text/html;q=0, */*']) {
    const res = await ts.server.api.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } });
    assert.equal(res.statusCode, 200, `Accept: ${accept}`);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', `Accept: ${accept}`);
    assert.deepEqual(res.json(), json, `Accept: ${accept}`);
  }
  for (const accept of [BROWSER_ACCEPT, 'text/html', 'text/html, application/json;q=0.9']) {
    const res = await ts.server.api.inject({ method: 'GET', url: '/', headers: { accept } });
    assert.equal(res.statusCode, 200, `Accept: ${accept}`);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', `Accept: ${accept}`);
    assert.equal(res.headers.vary, 'accept');
    const style = /<style>([^<]*)<\/style>/.exec(res.body)![1]!;
    assert.equal(res.headers['content-security-policy'],
      `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    assert.deepEqual([...res.body.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[2], m[1]]),
      [['GraphiQL', '/graphiql'], ['REST API v2: applications', '/v2/applications.json'], ['Health', '/healthz']]);
  }
});

test('GraphiQL page and assets: fixed, versioned files from node_modules, cached as immutable, gzipped on request; nothing else under the path', async (t) => {
  const ts = await withServer(t);
  const page = await ts.server.api.inject({ method: 'GET', url: '/graphiql' });
  assert.equal(page.statusCode, 200);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  const style = /<style>([^<]*)<\/style>/.exec(page.body)![1]!;
  assert.equal(page.headers['content-security-policy'], [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    "style-src-elem 'self' 'unsafe-inline'",
    "style-src-attr 'none'",
    'img-src data:',
    'font-src data:',
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '));
  const loaded = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  const pageScript = loaded.find((u) => /^\/graphiql\/assets\/graphiql-page-[0-9a-f]{16}\.js$/.test(u));
  assert.deepEqual(loaded, ['data:,', `/graphiql/assets/${ASSETS[0]!.url}`, ...ASSETS.slice(1).map((a) => `/graphiql/assets/${a.url}`), pageScript]);

  const pageScriptSource = readFileSync(fileURLToPath(new URL('../../../src/api/graphql/graphiql-page.js', import.meta.url)));
  assert.equal(pageScript, `/graphiql/assets/graphiql-page-${createHash('sha256').update(pageScriptSource).digest('hex').slice(0, 16)}.js`);
  const served = [...ASSETS.map((a) => ({ url: `/graphiql/assets/${a.url}`, bytes: readFileSync(nodeModules + a.file), type: a.type })),
    { url: pageScript!, bytes: pageScriptSource, type: 'text/javascript; charset=utf-8' }];
  for (const asset of served) {
    const plain = await ts.server.api.inject({ method: 'GET', url: asset.url });
    assert.equal(plain.statusCode, 200, asset.url);
    assert.equal(plain.headers['content-type'], asset.type, asset.url);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable', asset.url);
    assert.equal(plain.headers['x-content-type-options'], 'nosniff', asset.url);
    assert.equal(plain.headers['content-encoding'], undefined, asset.url);
    assert.ok(plain.rawPayload.equals(asset.bytes), `${asset.url} is the file, byte for byte`);
    const zipped = await ts.server.api.inject({ method: 'GET', url: asset.url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(zipped.headers['content-encoding'], 'gzip', asset.url);
    assert.ok(gunzipSync(zipped.rawPayload).equals(asset.bytes), `${asset.url} gzipped`);
    assert.ok(zipped.rawPayload.length < asset.bytes.length, `${asset.url} gzipped is smaller`);
    const refused = await ts.server.api.inject({ method: 'GET', url: asset.url, headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    assert.equal(refused.headers['content-encoding'], undefined, `${asset.url}: gzip;q=0`);
  }

  for (const url of [
    '/graphiql/assets/',
    '/graphiql/assets/graphiql.min.js',
    `/graphiql/assets/graphiql-0.0.1.min.js`,
    '/graphiql/assets/../../package.json',
    '/graphiql/assets/..%2f..%2fpackage.json',
    '/graphiql/assets/%2e%2e/%2e%2e/package.json',
    '/graphiql/assets/react/umd/react.production.min.js',
    '/graphiql/assets/graphiql-page.js',
  ]) {
    const res = await ts.server.api.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 404, url);
    assert.equal(typeof res.json().error.title, 'string', url);
  }
});

interface Traffic {
  readonly requests: Request[];
  readonly failed: string[];
  readonly badStatus: string[];
  readonly consoleErrors: string[];
}

function watch(page: Page, traffic: Traffic): void {
  page.on('request', (r) => traffic.requests.push(r));
  page.on('requestfailed', (r) => traffic.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) traffic.badStatus.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') traffic.consoleErrors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => traffic.consoleErrors.push(`page error: ${e.message}`));
}

/** GraphiQL's CodeMirror 5 editors keep their instance on the wrapper element. */
const editorValue = (page: Page, selector: string) =>
  page.$eval(selector, (el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
const HEADERS_EDITOR = 'section[aria-label="Headers"] .graphiql-editor:not(.hidden) .CodeMirror';
const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const RESULT = 'section.result-window .CodeMirror';

const isIntrospection = (r: Request) => r.method() === 'POST' && r.url().endsWith('/graphql') && r.postDataJSON()?.operationName === 'IntrospectionQuery';
const isQuery = (r: Request) => r.method() === 'POST' && r.url().endsWith('/graphql') && r.postDataJSON()?.operationName !== 'IntrospectionQuery';

test('GraphiQL in Chromium: root page, its link, a pasted key, the default query over real data; same origin only', { timeout: 120_000 }, async (t) => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  const ts = await withServer(t);
  const { appId } = await connectApp(ts, APP_NAME);
  const origin = ts.server.apiUrl;

  // launch() starts Chromium on a fresh temporary profile of its own and removes it on close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`))");
  const traffic: Traffic = { requests: [], failed: [], badStatus: [], consoleErrors: [] };
  const page = await context.newPage();
  watch(page, traffic);

  await page.goto(`${origin}/`);
  assert.equal(await page.title(), 'Timeslice');
  await Promise.all([page.waitForURL(`${origin}/graphiql`), page.getByRole('link', { name: 'GraphiQL' }).click()]);
  await page.waitForSelector(RESULT);

  // No key yet: the page says where it goes instead of asking the service for the schema.
  await page.waitForFunction((sel) => (globalThis as any).document.querySelector(sel)?.CodeMirror.getValue() !== '', RESULT);
  assert.deepEqual(JSON.parse(await editorValue(page, RESULT)), { errors: [{ message: NO_KEY }] });
  assert.equal(traffic.requests.filter((r) => r.url().endsWith('/graphql')).length, 0, 'nothing is sent without a key');
  assert.equal(await editorValue(page, HEADERS_EDITOR), '{\n  "Api-Key": ""\n}');

  // Typed as a user would: the schema is fetched again with the key, without a reload.
  const introspected = page.waitForResponse((r) => isIntrospection(r.request()));
  await page.click(HEADERS_EDITOR);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(`{"Api-Key": "${TEST_API_KEY}"}`);
  assert.deepEqual(JSON.parse(await editorValue(page, HEADERS_EDITOR)), { 'Api-Key': TEST_API_KEY });
  assert.equal((await introspected).status(), 200);

  const answered = page.waitForResponse((r) => isQuery(r.request()));
  await page.click('.graphiql-execute-button');
  const query = (await answered).request();
  assert.equal(query.headers()['content-type'], 'application/json');
  assert.equal(query.headers()['api-key'], TEST_API_KEY);
  assert.equal(query.postDataJSON().query, await editorValue(page, QUERY_EDITOR), 'the default query, as shown');
  await page.waitForFunction((sel) => (globalThis as any).document.querySelector(sel)?.CodeMirror.getValue().includes('"data"'), RESULT);
  assert.deepEqual(JSON.parse(await editorValue(page, RESULT)), {
    data: {
      actor: {
        user: { name: 'Admin' },
        entitySearch: { results: { entities: [{ name: APP_NAME, guid: apmGuid(1, appId) }] } },
      },
    },
  });
  await page.screenshot({ path: SCREENSHOT });
  // History keeps each request's headers, with the key blanked; nothing stored holds the key.
  const stored = await page.evaluate(() => ({ ...(globalThis as any).localStorage }) as Record<string, string>);
  const history = JSON.parse(stored['timeslice:graphiql:queries']!) as { queries: { query: string; headers: string }[] };
  assert.deepEqual(history.queries.map((q) => [q.query, JSON.parse(q.headers)]), [[query.postDataJSON().query, { 'Api-Key': '' }]]);
  assert.equal(JSON.stringify(stored).includes(TEST_API_KEY), false, 'the key is not in localStorage');

  // The key in the URL fragment: filled in, used for the schema, and gone from the address bar.
  const second = await context.newPage();
  watch(second, traffic);
  const withKey = second.waitForResponse((r) => isIntrospection(r.request()));
  await second.goto(`${origin}/graphiql#key=${TEST_API_KEY}`);
  const introspection = await withKey;
  assert.equal(introspection.status(), 200);
  assert.equal(introspection.request().headers()['api-key'], TEST_API_KEY);
  assert.equal(second.url(), `${origin}/graphiql`);
  assert.deepEqual(JSON.parse(await editorValue(second, HEADERS_EDITOR)), { 'Api-Key': TEST_API_KEY });
  // The docs explorer reads the fetched schema; a dialog adds its scroll-lock <style> under the CSP.
  await second.click('[aria-label="Show Documentation Explorer"]');
  await second.locator('a.graphiql-doc-explorer-type-name', { hasText: /^RootQueryType$/ }).first().click();
  await second.locator('.graphiql-doc-explorer-field-name', { hasText: /^actor$/ }).waitFor({ timeout: 10_000 });
  await second.click('[aria-label="Open settings dialog"]');
  await second.locator('.graphiql-dialog-title', { hasText: 'Settings' }).waitFor({ timeout: 10_000 });
  await second.keyboard.press('Escape');
  await second.locator('.graphiql-dialog-title').waitFor({ state: 'detached', timeout: 10_000 });

  // An entity's permalink (with the key in the fragment, which survives the redirect) opens GraphiQL on that entity.
  const guid = apmGuid(1, appId);
  // Asked without a socket, the permalink names inject's origin; its path is what matters.
  const permalinkPath = new URL((await graphData(ts, `{ actor { entity(guid: "${guid}") { permalink } } }`)).actor.entity.permalink as string).pathname;
  assert.equal(permalinkPath, `/redirect/entity/${guid}`);
  const permalink = `${origin}${permalinkPath}`;
  const third = await context.newPage();
  watch(third, traffic);
  await third.goto(`${permalink}#key=${TEST_API_KEY}`);
  assert.equal(third.url(), `${origin}/graphiql?entity=${encodeURIComponent(guid)}`);
  await third.waitForSelector(RESULT);
  assert.ok((await editorValue(third, QUERY_EDITOR)).includes(`entity(guid: "${guid}")`), 'the editor opens on the entity');
  const entityAnswer = third.waitForResponse((r) => isQuery(r.request()));
  await third.click('.graphiql-execute-button');
  await entityAnswer;
  await third.waitForFunction((sel) => (globalThis as any).document.querySelector(sel)?.CodeMirror.getValue().includes('"data"'), RESULT);
  const shown = JSON.parse(await editorValue(third, RESULT)).data.actor.entity;
  assert.deepEqual([shown.__typename, shown.guid, shown.name, shown.entityType], ['ApmApplicationEntity', guid, APP_NAME, 'APM_APPLICATION_ENTITY']);

  const paths = new Set(traffic.requests.map((r) => new URL(r.url()).pathname.replace(/graphiql-page-[0-9a-f]{16}\.js$/, 'graphiql-page-#.js')));
  assert.deepEqual([...paths].sort(), ['/', '/graphiql', ...ASSETS.map((a) => `/graphiql/assets/${a.url}`), '/graphiql/assets/graphiql-page-#.js', '/graphql', `/redirect/entity/${guid}`].sort());
  assert.deepEqual(traffic.requests.filter((r) => new URL(r.url()).origin !== origin).map((r) => r.url()), [], 'every request goes to the service');
  assert.deepEqual(traffic.failed, []);
  assert.deepEqual(traffic.badStatus, []);
  assert.deepEqual(traffic.consoleErrors, []);
});
