import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

export const GRAPHIQL_PATH = '/graphiql';
const GRAPHIQL_ASSETS_PATH = '/graphiql/assets/';

/** The page's own script, read from the source tree (the build does not copy it). */
const PAGE_SCRIPT = new URL('../../../../src/api/graphql/graphiql-page.js', import.meta.url);

/** What GraphiQL needs to fill the window; inline so that the page is one request, allowed by its hash. */
const PAGE_STYLE = 'html,body,#graphiql{height:100%;margin:0}';

const gzipAsync = promisify(gzip);
const require = createRequire(import.meta.url);

interface Asset {
  /** Under GRAPHIQL_ASSETS_PATH, with the package version (or, for the page script, a content hash) in it. */
  readonly url: string;
  readonly file: string;
  readonly type: string;
}

interface AssetBody {
  readonly identity: Buffer;
  readonly gzip: Buffer;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The page's Content-Security-Policy, as tight as GraphiQL runs under (checked in Chromium by
 * test/e2e/graphiql.int.test.ts, which fails on any violation): scripts and requests to this
 * origin only, and no `eval` (the bundle's one `new Function` is a fallback behind `globalThis`).
 * GraphiQL's dialogs add a `<style>` element while open (react-remove-scroll's scroll lock, whose
 * text depends on the scrollbar's width, so no hash fits), hence inline style elements; inline
 * style attributes stay refused. Browsers without `style-src-elem` fall back to `style-src`, which
 * allows the page's own `<style>` by hash. GraphiQL's CSS carries its fonts and icons as `data:`
 * URLs (nothing else is an image or a font). No plugins, no `<base>`, no forms, no framing.
 */
function contentSecurityPolicy(styleHash: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' '${styleHash}'`,
    "style-src-elem 'self' 'unsafe-inline'",
    "style-src-attr 'none'",
    'img-src data:',
    'font-src data:',
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * GraphiQL, served by the service itself: `GET /graphiql` and the bundles it loads, from this
 * install's `node_modules` (graphiql's UMD build with React 18's), so nothing comes from a CDN.
 *
 * - Assets are a fixed list, one route each, whose URLs name the package version: they are cached
 *   for a year as immutable, and no request path reaches the file system.
 * - The page's fetcher POSTs JSON to `/graphql` with the Headers editor's `Api-Key`. The editor
 *   starts as `{"Api-Key": ""}`; `/graphiql#key=NRAK-…` fills the key in from the URL fragment,
 *   which browsers never send (so it stays out of server and proxy logs), and the page drops the
 *   fragment from the address bar at once. The key is never written to the browser's storage.
 */
export async function graphiqlPlugin(app: FastifyInstance): Promise<void> {
  const graphiql = packageDir('graphiql');
  const react = packageDir('react');
  const reactDom = packageDir('react-dom');
  const pageScript = readFileSync(PAGE_SCRIPT);
  const assets: Record<'css' | 'react' | 'reactDom' | 'graphiql' | 'page', Asset> = {
    css: { url: `graphiql-${graphiql.version}.min.css`, file: join(graphiql.dir, 'graphiql.min.css'), type: CSS },
    react: { url: `react-${react.version}.production.min.js`, file: join(react.dir, 'umd/react.production.min.js'), type: JS },
    reactDom: { url: `react-dom-${reactDom.version}.production.min.js`, file: join(reactDom.dir, 'umd/react-dom.production.min.js'), type: JS },
    graphiql: { url: `graphiql-${graphiql.version}.min.js`, file: join(graphiql.dir, 'graphiql.min.js'), type: JS },
    page: { url: `graphiql-page-${sha256(pageScript).toString('hex').slice(0, 16)}.js`, file: fileURLToPath(PAGE_SCRIPT), type: JS },
  };
  const bodies = new Map<string, Promise<AssetBody>>();

  for (const asset of Object.values(assets)) {
    // A missing file is a broken install: refuse to start rather than serve a blank page.
    statSync(asset.file);
    app.get(GRAPHIQL_ASSETS_PATH + asset.url, async (request, reply) => {
      const body = await bodyOf(bodies, asset);
      reply.header('content-type', asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('vary', 'accept-encoding');
      if (acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(body.gzip);
      return reply.send(body.identity);
    });
  }

  const styleHash = `sha256-${sha256(Buffer.from(PAGE_STYLE)).toString('base64')}`;
  const html = pageHtml(assets, PAGE_STYLE);
  const csp = contentSecurityPolicy(styleHash);
  // Entity permalinks (`permalink` of every entity) open GraphiQL on that entity's query. No
  // data is shown without the user's key, so the link itself reveals nothing.
  app.get<{ Params: { guid: string } }>('/redirect/entity/:guid', async (request, reply) => {
    const guid = request.params.guid;
    if (!/^[A-Za-z0-9+/]{1,400}$/.test(guid)) return reply.code(404).send({ error: { title: `'${guid.slice(0, 100)}' is not an entity GUID` } });
    return reply.redirect(`${GRAPHIQL_PATH}?entity=${encodeURIComponent(guid)}`, 302);
  });

  app.get(GRAPHIQL_PATH, async (_request, reply) =>
    reply.type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(html));
}

function pageHtml(assets: Record<'css' | 'react' | 'reactDom' | 'graphiql' | 'page', Asset>, style: string): string {
  const src = (asset: Asset) => GRAPHIQL_ASSETS_PATH + asset.url;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · Timeslice</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${src(assets.css)}">
<style>${style}</style>
<script defer src="${src(assets.react)}"></script>
<script defer src="${src(assets.reactDom)}"></script>
<script defer src="${src(assets.graphiql)}"></script>
<script defer src="${src(assets.page)}"></script>
</head>
<body>
<div id="graphiql"><noscript>GraphiQL needs JavaScript.</noscript></div>
</body>
</html>
`;
}

/** Read and compressed on first use (graphiql's bundle is 3.5 MB, about 0.8 MB gzipped), then kept. */
function bodyOf(bodies: Map<string, Promise<AssetBody>>, asset: Asset): Promise<AssetBody> {
  let body = bodies.get(asset.url);
  if (!body) {
    body = readFile(asset.file).then(async (identity) => ({ identity, gzip: await gzipAsync(identity, { level: 9 }) }));
    // A failed read is not remembered: the next request tries again.
    body.catch(() => bodies.delete(asset.url));
    bodies.set(asset.url, body);
  }
  return body;
}

function acceptsGzip(request: FastifyRequest): boolean {
  return new Negotiator(request.raw).encoding(['gzip', 'identity']) === 'gzip';
}

function packageDir(name: string): { dir: string; version: string } {
  const manifest = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: dirname(manifest), version };
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
