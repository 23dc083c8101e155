import { LogController, type FastifyBaseLogger } from 'fastify';

/**
 * Options both listeners share: no per-request log lines (agents call every few seconds),
 * errors still logged through the given logger.
 */
export function fastifyBaseOptions(logger: FastifyBaseLogger | undefined) {
  return {
    logController: new LogController({ disableRequestLogging: true }),
    ...(logger ? { loggerInstance: logger } : { logger: false as const }),
  };
}
