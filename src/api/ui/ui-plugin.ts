import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

export const UI_PATH = '/ui';

/** Where `npm run build:web` (vite, web/vite.config.mjs) writes the UI; read from the source tree. */
const BUILD_DIR = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The UI's Content-Security-Policy: its own scripts, styles and API only. The build emits no
 * inline script or style (vite's module preload polyfill is off); uPlot and React set styles
 * through the CSSOM, which a policy does not govern, so inline style attributes stay refused.
 * Checked in Chromium by test/e2e/web-ui.int.test.ts, which fails on any violation.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'none'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  readonly type: string;
  readonly identity: Buffer;
  readonly gzip: Buffer;
}

/**
 * The web UI under /ui/: every path below it answers the one page (the browser routes), and its
 * assets, whose file names carry a content hash, are a fixed list read at start (no request path
 * reaches the file system) and cached as immutable. Without a build the routes say how to make one
 * rather than keep the service from starting.
 */
export async function uiPlugin(app: FastifyInstance, options: { readonly buildDir?: string } = {}): Promise<void> {
  const dir = options.buildDir ?? BUILD_DIR;
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn({ dir }, 'the web UI is not built (npm run build:web); /ui/ answers 503');
    const missing = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(503).send({ error: { title: 'The web UI is not built: run `npm run build` (or `npm run build:web`) in the Timeslice directory' } });
    app.get(UI_PATH, missing);
    app.get(`${UI_PATH}/*`, missing);
    return;
  }
  const html = readFileSync(indexFile);
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const identity = readFileSync(join(assetDir, name));
    assets.set(name, { type, identity, gzip: gzipSync(identity, { level: 9 }) });
  }

  const page = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8')
      .header('content-security-policy', UI_CSP)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(html);

  app.get(UI_PATH, async (_request, reply) => reply.redirect(`${UI_PATH}/`, 302));
  app.get<{ Params: { name: string } }>(`${UI_PATH}/assets/:name`, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).send({ error: { title: `No UI asset ${request.params.name.slice(0, 100)}` } });
    reply.header('content-type', asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (new Negotiator(request.raw).encoding(['gzip', 'identity']) === 'gzip') return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.identity);
  });
  app.get(`${UI_PATH}/`, page);
  app.get(`${UI_PATH}/*`, page);
}
