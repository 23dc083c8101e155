/** The error body every REST v2 client parses: `title`, and `messages` when there are details. */
export interface RestErrorBody {
  error: { title: string; messages?: string[] };
}

/**
 * A refusal a REST v2 client sees as a status code and a title. New Relic never published its
 * titles, so these are ours, written to tell a person what to change; the Go client shows
 * `title: messages…` verbatim, so a title reads as a complete sentence fragment without a
 * trailing period.
 */
export class RestError extends Error {
  readonly messages: readonly string[] | undefined;

  constructor(
    readonly status: number,
    readonly title: string,
    messages?: readonly string[],
    /** Extra response headers, e.g. `Allow` on 405 or the rate-limit headers on 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(title);
    this.name = 'RestError';
    this.messages = messages && messages.length > 0 ? [...messages] : undefined;
  }

  get body(): RestErrorBody {
    return { error: this.messages ? { title: this.title, messages: [...this.messages] } : { title: this.title } };
  }

  static unauthorized(reason: 'missing' | 'invalid'): RestError {
    return reason === 'missing'
      ? new RestError(401, 'No API key specified; send a user API key in the X-Api-Key or Api-Key header')
      : new RestError(401, 'Invalid API key');
  }

  static forbidden(title: string): RestError {
    return new RestError(403, title);
  }

  static notFound(title: string): RestError {
    return new RestError(404, title);
  }

  static routeNotFound(method: string, path: string): RestError {
    return new RestError(404, `No such API endpoint: ${method} ${path}`);
  }

  static methodNotAllowed(method: string, path: string, allowed: readonly string[]): RestError {
    return new RestError(405, `Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, undefined, {
      allow: allowed.join(', '),
    });
  }

  static badRequest(title: string): RestError {
    return new RestError(400, title);
  }

  static malformedJson(): RestError {
    return new RestError(400, 'Request body is not valid JSON');
  }

  static tooLarge(limitBytes: number): RestError {
    return new RestError(413, `Request body too large: the limit is ${limitBytes} bytes`);
  }

  static unsupportedMediaType(contentType: string): RestError {
    return new RestError(415, `Unsupported Content-Type '${contentType}'; send application/json`);
  }

  static unprocessable(title: string, messages?: readonly string[]): RestError {
    return new RestError(422, title, messages);
  }

  static rateLimited(limitPerMinute: number, headers: Readonly<Record<string, string>>): RestError {
    return new RestError(429, `Rate limit exceeded: ${limitPerMinute} requests per minute per API key`, undefined, headers);
  }

  /** Deliberately says nothing about the cause: the details go to the log, not to the caller. */
  static internal(): RestError {
    return new RestError(500, 'Internal server error');
  }
}
