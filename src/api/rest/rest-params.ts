/**
 * REST v2 request parameters, read from the query string and from a form-encoded body.
 *
 * New Relic's docs show nearly every call as `curl -X GET <url> -d 'names[]=…'`, which sends the
 * parameters as an `application/x-www-form-urlencoded` body on a GET, so both sources count:
 * - a single-valued parameter (`one`, `bool`, `int`, `has`) is read from the query string when it
 *   is there and from the body otherwise; within one source a repeated key's last value wins
 *   (as Rack reads `a=1&a=2`);
 * - a repeated parameter (`all`, `allOf`) is the union, query string first, each value once, in
 *   order of first occurrence; `all('names')` reads both `names[]` and `names`; a caller that
 *   tolerates an alias asks for it, e.g. `allOf('names', 'name')` for the docs' `name=…` typo;
 * - keys match exactly (`filter[name]` is a key of its own, not nested); an empty value counts as
 *   absent, so `to=` from an unset shell variable means "now" rather than an error.
 *
 * Fastify's default query parser (find-my-way with fast-querystring) already yields this shape: a
 * flat, null-prototype record of decoded keys, `+` read as a space, repeated keys as arrays, and no
 * bracket nesting, so it is used as it is; a qs-style parser would turn `filter[name]` into an
 * object. `registerFormBodyParser` gives bodies the same shape via URLSearchParams, which decodes
 * the same way (rest-params.int.test.ts sends one text both ways and compares); bodies are UTF-8.
 *
 * Fastify hands a GET to no content-type parser at all (GET, HEAD and TRACE are its "bodyless"
 * methods), so for GET a preParsing hook reads a form body itself, with the same limit and the
 * same 413 error as the parser. Declaring GET a body method (`addHttpMethod`) would instead apply
 * to the whole server and run every GET carrying a Content-Type through a parser, so a bodiless
 * GET labelled `application/json` would fail.
 */
import { Buffer } from 'node:buffer';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

export const FORM_BODY_LIMIT_BYTES = 1024 * 1024;

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A parameter the request got wrong; the message is written for the API user. */
export class ParamError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParamError';
  }
}

type Values = ReadonlyMap<string, readonly string[]>;

/** N of `base[N]`, or undefined when `key` is not an indexed `base` key. */
function indexOf(key: string, base: string): number | undefined {
  if (!key.startsWith(`${base}[`) || !key.endsWith(']')) return undefined;
  const inner = key.slice(base.length + 1, -1);
  return /^\d{1,6}$/.test(inner) ? Number(inner) : undefined;
}

const TRUE_WORDS: ReadonlySet<string> = new Set(['true', '1', 't', 'yes', 'on']);
const FALSE_WORDS: ReadonlySet<string> = new Set(['false', '0', 'f', 'no', 'off']);

export class RestParams {
  private constructor(
    private readonly query: Values,
    private readonly body: Values,
  ) {}

  /**
   * `query` is Fastify's `request.query`, `body` its `request.body`. Only string values (and
   * arrays of them) are parameters; anything else, such as a JSON body's numbers, is ignored.
   */
  static from(query: unknown, body: unknown): RestParams {
    return new RestParams(toValues(query), toValues(body));
  }

  one(name: string): string | undefined {
    return this.query.get(name)?.at(-1) ?? this.body.get(name)?.at(-1);
  }

  all(name: string): string[] {
    return this.allOf(name);
  }

  /**
   * The union of `all(name)` for each name: the whole query string first, then the body. Indexed
   * keys (`names[0]`, `names[1]`, as some clients number them) count too, in index order.
   */
  allOf(...names: string[]): string[] {
    const bases = names.map((name) => (name.endsWith('[]') ? name.slice(0, -2) : name));
    const seen = new Set<string>();
    for (const source of [this.query, this.body]) {
      for (const base of bases) {
        for (const key of [`${base}[]`, base]) for (const value of source.get(key) ?? []) seen.add(value);
        const indexed = [...source.keys()]
          .map((key) => ({ key, index: indexOf(key, base) }))
          .filter((k): k is { key: string; index: number } => k.index !== undefined)
          .sort((a, b) => a.index - b.index);
        for (const { key } of indexed) for (const value of source.get(key) ?? []) seen.add(value);
      }
    }
    return [...seen];
  }

  /** Rails' spellings: true/1/t/yes/on and false/0/f/no/off, any case; anything else is a ParamError. */
  bool(name: string): boolean | undefined {
    const text = this.one(name);
    if (text === undefined) return undefined;
    const lower = text.toLowerCase();
    if (TRUE_WORDS.has(lower)) return true;
    if (FALSE_WORDS.has(lower)) return false;
    throw new ParamError(name, `Invalid ${name}: expected true or false`);
  }

  int(name: string): number | undefined {
    const text = this.one(name);
    if (text === undefined) return undefined;
    const value = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value < 1) throw new ParamError(name, `Invalid ${name}: expected a positive whole number`);
    return value;
  }

  has(name: string): boolean {
    return this.one(name) !== undefined;
  }
}

function toValues(source: unknown): Values {
  const values = new Map<string, string[]>();
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return values;
  for (const [key, value] of Object.entries(source)) {
    const strings = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
    if (strings.length > 0) values.set(key, strings);
  }
  return values;
}

/** Decodes a form body into the shape Fastify's query parser gives a query string. */
export function parseFormBody(text: string): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    const previous = record[key];
    if (previous === undefined) record[key] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else record[key] = [previous, value];
  }
  return record;
}

/**
 * Form bodies become `request.body` on every method of `app` and the plugins it registers after
 * this call; over `FORM_BODY_LIMIT_BYTES` the request fails with 413 (FST_ERR_CTP_BODY_TOO_LARGE).
 */
export function registerFormBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
    done(null, parseFormBody(body as string));
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.method !== 'GET' || !isForm(request) || !hasBody(request)) return payload;
    const declared = Number(request.headers['content-length']);
    if (declared > FORM_BODY_LIMIT_BYTES) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    request.body = parseFormBody(await readLimited(payload, FORM_BODY_LIMIT_BYTES));
    return payload;
  });
}

function isForm(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return type !== undefined && type.split(';', 1)[0]?.trim().toLowerCase() === FORM_TYPE;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the whole stream as UTF-8. Past the limit it stops collecting but leaves the stream
 * flowing, so the rest is drained and the 413 can still be written on the same connection.
 */
function readLimited(stream: NodeJS.ReadableStream, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error: Error | undefined) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, length).toString('utf8'));
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += bytes.length;
      if (length > limit) finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      else chunks.push(bytes);
    };
    const onEnd = () => finish(undefined);
    const onError = (error: Error) => finish(Object.assign(error, { statusCode: 400 }));
    const onClose = () => finish(Object.assign(new Error('The request body ended early'), { statusCode: 400 }));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    stream.resume();
  });
}
