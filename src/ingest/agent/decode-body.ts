import { inflateBody, InflateError } from '../../http/inflate-body.js';
import { CollectorError, malformed } from './collector-error.js';

/** Inflated bodies above this are refused: the agents' 1 MB wire limit at a generous 64× ratio. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/**
 * The JSON an agent sent: identity, gzip or deflate (zlib-wrapped, or raw as a fallback),
 * whatever the case of the header. A gzip body announced as identity (or not announced) is
 * recognised by its magic bytes. Inflation is bounded, so a decompression bomb is a 413.
 */
export async function decodeAgentBody(raw: Buffer, contentEncoding: string | undefined): Promise<unknown> {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  let text: Buffer;
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip' || (isGzip(raw) && (encoding === '' || encoding === 'identity'))) {
      text = await inflateBody(raw, 'gzip', MAX_INFLATED_BYTES);
    } else if (encoding === 'deflate') {
      text = await inflateBody(raw, 'deflate', MAX_INFLATED_BYTES);
    } else if (encoding === '' || encoding === 'identity' || encoding === 'none') {
      text = raw;
    } else {
      throw new CollectorError(415, `unsupported Content-Encoding '${contentEncoding}': use identity, gzip or deflate`, 'NewRelic::Agent::UnsupportedMediaType');
    }
  } catch (error) {
    if (!(error instanceof InflateError)) throw error;
    if (error.reason === 'tooLarge') throw new CollectorError(413, error.message, 'NewRelic::Agent::PayloadTooLarge');
    throw malformed(`body does not decompress as ${encoding || 'gzip'}: ${error.message}`);
  }
  if (text.length === 0) throw malformed('empty body: every method takes a JSON array');
  try {
    return JSON.parse(text.toString('utf8'));
  } catch (error) {
    throw malformed(`body is not valid JSON: ${(error as Error).message}`);
  }
}

function isGzip(raw: Buffer): boolean {
  return raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
}
