import { GraphQLError } from 'graphql';

/**
 * `extensions.errorClass` values. Clients act on them: newrelic-client-go retries `TIMEOUT`,
 * `INTERNAL_SERVER_ERROR`, `SERVER_ERROR` and `TOO_MANY_REQUESTS`, so a failure that would fail
 * again the same way (bad NRQL, an unknown GUID, a refused mutation) never carries one of those.
 */
export type GraphErrorClass =
  | 'INVALID_INPUT'
  /** NerdGraph's alerting validation and not-found class (client-go maps it to NotFound when the message says so). */
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'UNAUTHORIZED'
  | 'TIMEOUT'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR';

/** An error a resolver raises on purpose: its message is written for the API user. */
export class GraphError extends GraphQLError {
  constructor(readonly errorClass: GraphErrorClass, message: string, extra: Readonly<Record<string, unknown>> = {}) {
    super(message, { extensions: { errorClass, ...extra } });
  }

  static invalidInput(message: string, extra?: Readonly<Record<string, unknown>>): GraphError {
    return new GraphError('INVALID_INPUT', message, extra);
  }

  static notFound(message: string): GraphError {
    return new GraphError('NOT_FOUND', message);
  }

  /** A GUID naming nothing the key can reach: the same words whether it never existed or is another account's. */
  static entityNotFound(guid: string): GraphError {
    return new GraphError('NOT_FOUND', `No entity with GUID '${guid}' in the accounts this API key can reach`);
  }

  /** An account the key may not reach: the same answer whether or not it exists. */
  static forbidden(accountId: number): GraphError {
    return new GraphError('FORBIDDEN', `Access denied: this API key cannot reach account ${accountId}`);
  }
}
