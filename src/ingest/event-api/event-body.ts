import { inflateBody, InflateError } from '../../http/inflate-body.js';
import { EventApiError } from './event-api-error.js';

/** New Relic's limit: 1 MB (10^6 bytes) per POST, as sent (compressed when it is). */
export const MAX_PAYLOAD_BYTES = 1_000_000;
/**
 * What a payload may inflate to. New Relic publishes no number; ten times the wire limit keeps the
 * point of compressing (JSON of events compresses 5–20×) and bounds the memory a request can take.
 */
export const MAX_INFLATED_BYTES = 10_000_000;

/**
 * The body's text: identity, gzip or deflate (zlib-wrapped, or raw as a fallback), as New Relic's
 * docs send it (`Content-Encoding: gzip` or `deflate`). Inflation past MAX_INFLATED_BYTES is a 413;
 * an encoding the API does not know is a 415; a body that does not inflate is a 400.
 */
export async function decodeEventBody(raw: Buffer, contentEncoding: string | undefined): Promise<string> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return utf8(await inflateBody(raw, 'gzip', MAX_INFLATED_BYTES));
    if (encoding === 'deflate') return utf8(await inflateBody(raw, 'deflate', MAX_INFLATED_BYTES));
  } catch (error) {
    if (!(error instanceof InflateError)) throw error;
    if (error.reason === 'tooLarge') throw new EventApiError(413, `Content too large: the payload inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    throw new EventApiError(400, `The body does not decompress as ${encoding}: ${error.message}`);
  }
  if (encoding === '' || encoding === 'identity' || encoding === 'json') return utf8(raw);
  throw new EventApiError(415, `Unsupported Content-Encoding '${contentEncoding}': send gzip, deflate or an uncompressed body`);
}

function utf8(bytes: Buffer): string {
  return bytes.toString('utf8');
}
