import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  execute,
  GraphQLError,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { InflateError, inflateBody } from '../../http/inflate-body.js';
import { AsyncNrqlQueries } from './async-nrql.js';
import { DocumentCache, MAX_DOCUMENT_DEPTH } from './document-cache.js';
import { GraphContext, type Principal } from './graph-context.js';
import type { GraphServices } from './graph-services.js';
import type { GraphErrorClass } from './graph-errors.js';
import { buildGraphSchema } from './graph-schema.js';
import { isWellFormedText } from './validation-rules.js';
import { QueryRefusedError } from '../../nrql/query-admission.js';
import { StoreUnavailableError } from '../../store/plan-executor.js';

export const GRAPH_PATH = '/graphql';
/** Request bodies, as sent and once inflated. */
export const MAX_GRAPH_BODY_BYTES = 1024 * 1024;
/**
 * How deep objects and lists may nest in `variables` (the variables object is level 1): the
 * document's own nesting limit (document-cache.ts). Deeper is INVALID_INPUT, used or not.
 */
export const MAX_VARIABLES_DEPTH = MAX_DOCUMENT_DEPTH;
/** NerdGraph guarantees 25 concurrent requests per user; more are refused with a 429. */
export const MAX_CONCURRENT_PER_KEY = 25;

export interface GraphRouteDeps extends Omit<GraphServices, 'asyncQueries'> {
  /** The key's account, user id and creation time, or undefined for an unknown key. */
  readonly principalForKey: (key: string) => Principal | undefined;
}

interface GraphRequest {
  readonly query: string;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
  /** Sent as GET, where GraphQL over HTTP allows queries only. */
  readonly viaGet: boolean;
}

/** A refusal before GraphQL runs: an HTTP status and one error in GraphQL's envelope. */
class TransportError extends Error {
  constructor(readonly status: number, readonly errorClass: GraphErrorClass, message: string, readonly extra: Record<string, unknown> = {}) {
    super(message);
  }
}

/**
 * `POST /graphql` (and `GET` for introspection tools): NerdGraph's transport. A user API key in
 * `Api-Key` (any case, as HTTP headers are); JSON `{query, variables, operationName}`, gzip or
 * deflate bodies accepted. GraphQL-level failures (validation, resolver errors) answer 200 with
 * `errors[]` beside `data`, as NerdGraph does; only transport failures use other statuses.
 */
export async function graphPlugin(app: FastifyInstance, deps: GraphRouteDeps): Promise<void> {
  const schema = buildGraphSchema();
  const services: GraphServices = { ...deps, asyncQueries: new AsyncNrqlQueries(() => deps.clock.now()) };
  const documents = new DocumentCache(schema);
  const inFlight = new Map<number | string, number>();
  const jsonParser = app.getDefaultJsonParser('error', 'error');

  // Bodies arrive as bytes, whatever their type, so that gzip and deflate can be inflated before
  // JSON is parsed (with Fastify's own parser and its prototype-poisoning guards).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_GRAPH_BODY_BYTES }, (_request, body, done) => done(null, body));

  const handle = async (request: FastifyRequest, reply: FastifyReply, read: () => Promise<GraphRequest>) => {
    try {
      const principal = authenticate(request, deps);
      const held = inFlight.get(principal.userId) ?? 0;
      if (held >= MAX_CONCURRENT_PER_KEY) {
        throw new TransportError(429, 'TOO_MANY_REQUESTS', `More than ${MAX_CONCURRENT_PER_KEY} concurrent requests with this API key; retry when one has finished`);
      }
      inFlight.set(principal.userId, held + 1);
      try {
        const body = await read();
        const result = await run(schema, documents, body, new GraphContext(services, principal, originOf(request)));
        return reply.code(200).send(formatResult(result, request));
      } finally {
        const left = (inFlight.get(principal.userId) ?? 1) - 1;
        if (left === 0) inFlight.delete(principal.userId);
        else inFlight.set(principal.userId, left);
      }
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      return reply.code(error.status).send({ errors: [{ message: error.message, extensions: { errorClass: error.errorClass, ...error.extra } }] });
    }
  };

  app.post(GRAPH_PATH, { bodyLimit: MAX_GRAPH_BODY_BYTES }, (request, reply) =>
    handle(request, reply, async () => postBody(request, jsonParser)));
  app.get(GRAPH_PATH, (request, reply) => handle(request, reply, async () => getBody(request)));
  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: GRAPH_PATH,
    handler: (request, reply) => reply.code(405).header('allow', 'GET, POST').send({
      errors: [{ message: `${request.method} is not a GraphQL method: send POST (or GET for queries)`, extensions: { errorClass: 'INVALID_INPUT' } }],
    }),
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ errors: [{ message: `The request body is larger than ${MAX_GRAPH_BODY_BYTES} bytes`, extensions: { errorClass: 'INVALID_INPUT' } }] });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ errors: [{ message: error.message, extensions: { errorClass: 'INVALID_INPUT' } }] });
    }
    request.log.error({ err: error }, 'graph request failed');
    return reply.code(500).send({ errors: [{ message: 'Internal server error', extensions: { errorClass: 'INTERNAL_SERVER_ERROR' } }] });
  });
}

function authenticate(request: FastifyRequest, deps: GraphRouteDeps): Principal {
  const header = request.headers['api-key'] ?? request.headers['x-api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!key) {
    throw new TransportError(401, 'UNAUTHORIZED', 'No API key specified: send a user API key in the Api-Key header', { error_code: 'BAD_API_KEY' });
  }
  const principal = deps.principalForKey(key);
  if (!principal) throw new TransportError(401, 'UNAUTHORIZED', 'Invalid API key', { error_code: 'BAD_API_KEY' });
  return principal;
}

/** The scheme and host the client used (behind a proxy: what it forwarded), for permalinks. */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

async function postBody(request: FastifyRequest, jsonParser: ReturnType<FastifyInstance['getDefaultJsonParser']>): Promise<GraphRequest> {
  let raw = request.body instanceof Buffer ? request.body : Buffer.alloc(0);
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'deflate') {
    try {
      raw = await inflateBody(raw, encoding, MAX_GRAPH_BODY_BYTES);
    } catch (error) {
      if (!(error instanceof InflateError)) throw error;
      if (error.reason === 'tooLarge') throw new TransportError(413, 'INVALID_INPUT', `The request body inflates to more than ${MAX_GRAPH_BODY_BYTES} bytes`);
      throw new TransportError(400, 'INVALID_INPUT', `The request body is not valid ${encoding} data`);
    }
  } else if (encoding !== 'identity' && encoding !== '') {
    throw new TransportError(415, 'INVALID_INPUT', `Unsupported Content-Encoding '${encoding}': send gzip, deflate or none`);
  }
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // `application/graphql` carries the document itself, as some tools send it.
  if (type === 'application/graphql') return { query: raw.toString('utf8'), variables: undefined, operationName: undefined, viaGet: false };
  if (raw.length === 0) throw new TransportError(400, 'INVALID_INPUT', 'The request body is empty: send JSON {"query": "…", "variables": {…}}');
  const parsed = await new Promise<unknown>((resolve, reject) => {
    jsonParser(request, raw.toString('utf8'), (error: Error | null, value?: unknown) => (error ? reject(error) : resolve(value)));
  }).catch(() => {
    throw new TransportError(400, 'INVALID_INPUT', 'The request body is not valid JSON: send {"query": "…", "variables": {…}}');
  });
  return graphRequest(parsed, false);
}

function getBody(request: FastifyRequest): GraphRequest {
  const q = (request.query ?? {}) as Record<string, unknown>;
  let variables: unknown = q.variables;
  if (typeof variables === 'string' && variables.trim() !== '') {
    try {
      variables = JSON.parse(variables);
    } catch {
      throw new TransportError(400, 'INVALID_INPUT', 'The variables parameter is not valid JSON');
    }
  }
  return graphRequest({ query: q.query, variables: variables === '' ? undefined : variables, operationName: q.operationName }, true);
}

function graphRequest(body: unknown, viaGet: boolean): GraphRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TransportError(400, 'INVALID_INPUT', 'The request body must be a JSON object {"query": "…", "variables": {…}}');
  }
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') throw new TransportError(400, 'INVALID_INPUT', 'The request has no "query" string');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new TransportError(400, 'INVALID_INPUT', '"variables" must be a JSON object');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw new TransportError(400, 'INVALID_INPUT', '"operationName" must be a string');
  }
  return {
    query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
    viaGet,
  };
}

async function run(schema: GraphQLSchema, documents: DocumentCache, body: GraphRequest, ctx: GraphContext): Promise<ExecutionResult> {
  const checked = documents.get(body.query);
  if ('errors' in checked) return { errors: checked.errors };
  const refusal = checkVariables(body.variables);
  if (refusal) return { errors: [new GraphQLError(refusal, { extensions: { errorClass: 'INVALID_INPUT' } })] };
  if (body.viaGet && operationOf(checked.document, body.operationName)?.operation === 'mutation') {
    throw new TransportError(405, 'INVALID_INPUT', 'Mutations must be sent with POST');
  }
  return execute({ schema, document: checked.document, contextValue: ctx, variableValues: body.variables, operationName: body.operationName });
}

/**
 * Why the variables cannot be used, or undefined: objects and lists nested past
 * `MAX_VARIABLES_DEPTH` (the variables object is level 1), or a string (value or key) that is not
 * well-formed Unicode, named by its place, e.g. `$name.key[2]`. The walk keeps its own stack, so
 * no nesting, however deep JSON.parse let it be, can overflow the call stack.
 */
function checkVariables(variables: Record<string, unknown> | undefined): string | undefined {
  if (variables === undefined) return undefined;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: variables, path: '$', depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) return `Variable ${path} holds a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF): send well-formed Unicode`;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_VARIABLES_DEPTH) return `Variables nest objects and lists more than ${MAX_VARIABLES_DEPTH} deep: send flatter variables`;
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [`${path}[${i}]`, item])
      : Object.entries(value).map(([key, item]) => [path === '$' ? `$${key}` : `${path}.${key}`, item]);
    if (!Array.isArray(value)) {
      const badKey = Object.keys(value).find((key) => !isWellFormedText(key));
      if (badKey !== undefined) return `Variable ${path === '$' ? `$${badKey}` : `${path}.${badKey}`} holds a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF): send well-formed Unicode`;
    }
    // Pushed in reverse so that the first offending place in document order is found first.
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: entries[i]![0], depth: depth + 1 });
  }
  return undefined;
}

function operationOf(document: DocumentNode, name: string | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  return name === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === name);
}

/**
 * Errors in NerdGraph's envelope: every entry has `extensions.errorClass`. An error no resolver
 * meant (a bug, a store failure) is logged and shown as INTERNAL_SERVER_ERROR without its
 * message, which may hold internals; validation and input coercion errors are INVALID_INPUT.
 */
function formatResult(result: ExecutionResult, request: FastifyRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (result.errors?.length) out.errors = result.errors.map((e) => formatError(e, request));
  if ('data' in result) out.data = result.data;
  return out;
}

function formatError(error: GraphQLError, request: FastifyRequest): GraphQLFormattedError {
  const formatted = error.toJSON();
  const original = error.originalError;
  // A query not admitted (wherever a resolver ran one: summaries, reporting event types): clients retry it.
  if (original instanceof QueryRefusedError) {
    return { ...formatted, extensions: { errorClass: 'TOO_MANY_REQUESTS', retryAfterSeconds: original.retryAfterSeconds } };
  }
  // The data store is away (a ClickHouse shard down): said as it is, a class clients retry.
  if (original instanceof StoreUnavailableError) return { ...formatted, message: original.message, extensions: { errorClass: 'SERVER_ERROR' } };
  // A resolver's unintended throw has a path; a scalar refusing an argument or variable (a
  // TypeError graphql-js wraps with the value's location) has none, and is the caller's input.
  if (original && !(original instanceof GraphQLError) && error.path !== undefined) {
    request.log.error({ err: original, path: error.path }, 'graph resolver failed');
    return { ...formatted, message: 'Internal server error', extensions: { errorClass: 'INTERNAL_SERVER_ERROR' } };
  }
  if (formatted.extensions?.errorClass === undefined) return { ...formatted, extensions: { ...formatted.extensions, errorClass: 'INVALID_INPUT' } };
  return formatted;
}
