import { promisify } from 'node:util';
import { gunzip, inflate, inflateRaw } from 'node:zlib';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);

/** Why a body did not inflate: past the caller's limit (a 413), or not in the announced format. */
export class InflateError extends Error {
  constructor(readonly reason: 'tooLarge' | 'corrupt', message: string) {
    super(message);
  }
}

/**
 * A gzip or deflate body (deflate: zlib-wrapped, or raw as some senders mean it), inflated to at
 * most `maxBytes`. Output comes in large chunks: zlib's default 16 KiB steps made refusing a 64 MiB
 * bomb take about a second. Shared by the agent collector and the Event API, which differ only in
 * their limits and error shapes.
 */
export async function inflateBody(raw: Buffer, encoding: 'gzip' | 'deflate', maxBytes: number): Promise<Buffer> {
  const options = { maxOutputLength: maxBytes, chunkSize: 1024 * 1024 };
  try {
    if (encoding === 'gzip') return await gunzipAsync(raw, options);
    return await inflateAsync(raw, options).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ERR_BUFFER_TOO_LARGE') throw error;
      return inflateRawAsync(raw, options);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new InflateError('tooLarge', `body inflates to more than ${maxBytes} bytes`);
    }
    throw new InflateError('corrupt', (error as Error).message);
  }
}
