import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import Negotiator from 'negotiator';

/** What `GET /` describes: the service and where its surfaces are. */
export interface ServiceIndex {
  readonly name: string;
  readonly description: string;
  readonly health: string;
  readonly rest: string;
  readonly graphql: string;
  readonly graphiql: string;
}

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d252c}',
  'h1{margin-bottom:.25rem}',
  'ul{padding-left:1.25rem}',
  'li{margin:.75rem 0}',
  'code{font-size:.9em;background:#f0f2f4;padding:.1em .3em;border-radius:3px}',
  'a{color:#0b6acb}',
].join('');

/**
 * `GET /`: the index as JSON, as it always was, for API clients (no Accept header, any type, or
 * JSON); a small HTML page with the same links for a browser, whose Accept header prefers
 * `text/html`.
 */
export function indexHandler(index: ServiceIndex): RouteHandlerMethod {
  const html = indexHtml(index);
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'accept');
    if (new Negotiator(request.raw).mediaType(['application/json', 'text/html']) !== 'text/html') return index;
    return reply.type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .send(html);
  };
}

function indexHtml(index: ServiceIndex): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(index.name)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<h1>${e(index.name)}</h1>
<p>${e(index.description)}</p>
<ul>
<li><a href="${e(index.graphiql)}">GraphiQL</a>: the graph API (<code>POST ${e(index.graphql)}</code>) in the browser.
Put a user API key into its <code>Api-Key</code> header, or open <code>${e(index.graphiql)}#key=NRAK-…</code>
(the part after <code>#</code> never leaves the browser).</li>
<li><a href="${e(index.rest)}">REST API v2: applications</a>, with a user API key in the <code>X-Api-Key</code> header.</li>
<li><a href="${e(index.health)}">Health</a></li>
</ul>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
