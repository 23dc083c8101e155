/**
 * A refusal of an Event API request, before any event is read. New Relic answers a key it does not
 * accept with 403 and the body `{}` (observed; its docs list only the status); for the other
 * refusals it publishes statuses but no bodies, so Timeslice says what went wrong in
 * `{"success": false, "error": "…"}`, the shape of its success reply.
 */
export class EventApiError extends Error {
  constructor(
    readonly status: 400 | 403 | 405 | 413 | 415 | 429 | 503,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'EventApiError';
  }

  get body(): Record<string, unknown> {
    return this.status === 403 ? {} : { success: false, error: this.message };
  }
}
