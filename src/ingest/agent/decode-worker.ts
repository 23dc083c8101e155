import { parentPort } from 'node:worker_threads';
import { decodeCall, errorToWire, toWire, type DecodeRequest } from './decode-call.js';

/** A decoding thread: inflates, parses and converts agent bodies off the service's event loop. */
if (!parentPort) throw new Error('decode-worker runs only as a worker thread');
const port = parentPort;
port.on('message', async (message: { id: number; request: DecodeRequest }) => {
  try {
    const { call, transfer } = toWire(await decodeCall(message.request));
    port.postMessage({ id: message.id, call }, transfer);
  } catch (error) {
    try {
      port.postMessage({ id: message.id, error: errorToWire(error) });
    } catch {
      port.postMessage({ id: message.id, error: { message: 'the decoded payload could not be returned' } });
    }
  }
});
