/**
 * A refusal the agent must see as a status code: agents act on the code alone (protocol 17),
 * so each code is chosen for what it makes the agent do with the data and the connection.
 *  400 discard (malformed)       401 restart (bad license key)   405 discard (wrong HTTP method)
 *  409 reconnect (unknown run)   410 stop (unsupported protocol)  413 discard (too large)
 *  415 discard (unknown encoding) 503 keep and resend (store unavailable)
 */
export class CollectorError extends Error {
  constructor(
    readonly statusCode: 400 | 401 | 405 | 409 | 410 | 413 | 415 | 503,
    message: string,
    /** The exception class the collector names in its reply body. */
    readonly errorType: string,
  ) {
    super(message);
  }

  get body(): { exception: { message: string; error_type: string } } {
    return { exception: { message: this.message, error_type: this.errorType } };
  }
}

export const malformed = (message: string) => new CollectorError(400, message, 'NewRelic::Agent::SerializationError');
