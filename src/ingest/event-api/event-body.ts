import { promisify } from 'node:util';
import { gunzip, inflate, inflateRaw } from 'node:zlib';
import { EventApiError } from './event-api-error.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);

/** New Relic's limit: 1 MB (10^6 bytes) per POST, as sent (compressed when it is). */
export const MAX_PAYLOAD_BYTES = 1_000_000;
/**
 * What a payload may inflate to. New Relic publishes no number; ten times the wire limit keeps the
 * point of compressing (JSON of events compresses 5–20×) and bounds the memory a request can take.
 */
export const MAX_INFLATED_BYTES = 10_000_000;

const INFLATE_OPTIONS = { maxOutputLength: MAX_INFLATED_BYTES };

/**
 * The body's text: identity, gzip or deflate (zlib-wrapped, or raw as a fallback), as New Relic's
 * docs send it (`Content-Encoding: gzip` or `deflate`). Inflation past MAX_INFLATED_BYTES is a 413;
 * an encoding the API does not know is a 415; a body that does not inflate is a 400.
 */
export async function decodeEventBody(raw: Buffer, contentEncoding: string | undefined): Promise<string> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return utf8(await gunzipAsync(raw, INFLATE_OPTIONS));
    if (encoding === 'deflate') {
      const inflated = await inflateAsync(raw, INFLATE_OPTIONS).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ERR_BUFFER_TOO_LARGE') throw error;
        return inflateRawAsync(raw, INFLATE_OPTIONS);
      });
      return utf8(inflated);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new EventApiError(413, `Content too large: the payload inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    }
    throw new EventApiError(400, `The body does not decompress as ${encoding}: ${(error as Error).message}`);
  }
  if (encoding === '' || encoding === 'identity' || encoding === 'json') return utf8(raw);
  throw new EventApiError(415, `Unsupported Content-Encoding '${contentEncoding}': send gzip, deflate or an uncompressed body`);
}

function utf8(bytes: Buffer): string {
  return bytes.toString('utf8');
}
