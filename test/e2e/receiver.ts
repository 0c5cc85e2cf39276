import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One request as the receiver got it. */
export interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers: 200, 500, never, or 200 with a body that never ends (`open`). */
export type Answer = 'ok' | 'fail' | 'never' | 'open';

/** A real HTTP server on the loopback address (never another), on a port of its own, closed after the test. */
export interface Receiver {
  port: number;
  base: string;
  got: Received[];
  /** The bodies received, parsed as JSON. */
  json: () => Array<Record<string, unknown>>;
}

const open: http.Server[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Start a receiver on 127.0.0.1, port 0 (the system picks a free one); `answer` may depend on the request's path. */
export async function receiver(answer: Answer | ((url: string) => Answer) = 'ok'): Promise<Receiver> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      got.push({ url: req.url ?? '', headers: req.headers, body });
      const how = typeof answer === 'function' ? answer(req.url ?? '') : answer;
      if (how === 'never') return; // the connection stays open until the test closes it
      res.statusCode = how === 'fail' ? 500 : 200;
      if (how === 'open')
        res.write('accepted, still talking'); // the status is sent; the body never ends
      else res.end(how === 'ok' ? 'ok' : 'broken');
    });
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    got,
    json: () => got.map((r) => JSON.parse(r.body) as Record<string, unknown>),
  };
}
