import { gunzip, inflate, inflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { CollectorError, malformed } from './collector-error.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);

/** Inflated bodies above this are refused: the agents' 1 MB wire limit at a generous 64× ratio. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** Large output chunks: zlib's default 16 KiB steps made refusing a 64 MiB bomb take about a second. */
const INFLATE_OPTIONS = { maxOutputLength: MAX_INFLATED_BYTES, chunkSize: 1024 * 1024 };

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
      text = await gunzipAsync(raw, INFLATE_OPTIONS);
    } else if (encoding === 'deflate') {
      text = await inflateAsync(raw, INFLATE_OPTIONS).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ERR_BUFFER_TOO_LARGE') throw error;
        return inflateRawAsync(raw, INFLATE_OPTIONS);
      });
    } else if (encoding === '' || encoding === 'identity' || encoding === 'none') {
      text = raw;
    } else {
      throw new CollectorError(415, `unsupported Content-Encoding '${contentEncoding}': use identity, gzip or deflate`, 'NewRelic::Agent::UnsupportedMediaType');
    }
  } catch (error) {
    if (error instanceof CollectorError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new CollectorError(413, `body inflates to more than ${MAX_INFLATED_BYTES} bytes`, 'NewRelic::Agent::PayloadTooLarge');
    }
    throw malformed(`body does not decompress as ${encoding || 'gzip'}: ${(error as Error).message}`);
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
