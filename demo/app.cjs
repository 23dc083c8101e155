'use strict';
// The instrumented app behind `timeslice demo`: a tiny node:http service reporting through the
// real `newrelic` agent. The agent must load before anything it instruments, so it comes first.
// All agent settings arrive as NEW_RELIC_* environment variables from `timeslice demo`.
const newrelic = require('newrelic');
const http = require('node:http');

class InventoryUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'InventoryUnavailableError';
  }
}

class PaymentRetryError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PaymentRetryError';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (low, high) => low + Math.floor(Math.random() * (high - low + 1));

let port = 0;
let orders = 0;

/** Calls this app's own /fast route, so the agent records an external call. */
function callSelf(path) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', reject);
    request.setTimeout(5000, () => request.destroy(new Error(`GET ${path} timed out`)));
  });
}

/** Each route resolves to [status, body]; a failure becomes a 500, which the agent records as an error. */
const routes = {
  async fast() {
    await sleep(between(1, 8));
    orders += 1;
    if (orders % 5 === 0) {
      newrelic.recordCustomEvent('DemoOrder', { orderId: orders, items: between(1, 6), amount: between(5, 250) });
    }
    return [200, { ok: true }];
  },
  async slow() {
    await newrelic.startSegment('buildReport', true, () => sleep(between(300, 800)));
    return [200, { ok: true, report: 'ready' }];
  },
  async error() {
    await sleep(between(5, 40));
    throw new InventoryUnavailableError('inventory service did not answer');
  },
  async noticed() {
    await sleep(between(2, 20));
    // A failure the app handles itself, but still wants to see in APM.
    newrelic.noticeError(new PaymentRetryError('card declined once, retried'), { attempt: 2 });
    return [200, { ok: true, retried: true }];
  },
  async external() {
    const status = await callSelf('/fast');
    return [200, { ok: true, upstream: status }];
  },
};

const server = http.createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://demo').pathname.replace(/^\/+/, '');
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  if (!route) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  // Plain node:http transactions would all be named NormalizedUri/*; give them readable names.
  newrelic.setTransactionName(path);
  route().then(
    ([status, body]) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    },
    (error) => {
      // The agent records a 500 as an error of its own ("HttpError 500"); calling noticeError
      // here as well would count the request twice.
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message }));
    },
  );
});

let stopping = false;
/** Stops accepting, then lets the agent send what it holds (the final metric harvest) and exit. */
function shutdown() {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeIdleConnections();
  newrelic.shutdown({ collectPendingData: true, timeout: 10000 }, (error) => {
    if (error) process.stderr.write(`agent shutdown: ${error.message}\n`);
    process.exit(0);
  });
}

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('message', (message) => {
  if (message && message.type === 'shutdown') shutdown();
});
// The parent went away without asking: shut down rather than linger.
process.on('disconnect', shutdown);

server.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  if (process.send) process.send({ type: 'listening', port });
  else process.stdout.write(`demo app listening on http://127.0.0.1:${port}\n`);
});
