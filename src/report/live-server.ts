import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { InputError } from '../errors.js';
import { esc, type Linker } from './attempt-row.js';
import { limitConnections } from './live-limits.js';
import { LIVE_SCRIPT, livePolicy } from './live-page.js';

/** What the live page is made from, asked afresh at each request. */
export interface LiveSource {
  /** A short token that changes whenever what the page shows may have (cheap: no page is made). */
  version(): string;
  /** The page for that version, in pieces, its board files linked through `link`. */
  page(version: string, link: Linker): Iterable<string>;
  /** A board file the page may link to, open for reading, or undefined when it is none of those. */
  open(relative: string): number | undefined;
}

/** A live page being served. */
export interface LiveServer {
  /** Its address, with the secret path that alone opens it. */
  url: string;
  /** Stop serving: every connection is closed. */
  close(): Promise<void>;
}

// Pieces are sent in writes of about this size.
const WRITE_BYTES = 1 << 20;

/**
 * Serve the live page on 127.0.0.1 only, at `port` (0: one the system picks). Everything sits
 * under a random path printed once, so another user of this machine cannot read the board's
 * logs through it, and requests naming another host (DNS rebinding) are refused. Only the page
 * and the files `source.open` allows are served, the files as plain text that runs nothing.
 * Connections are limited per local user and in all, and in time; its owner's are always taken.
 */
export async function serveLive(source: LiveSource, port: number): Promise<LiveServer> {
  const base = `/${randomBytes(18).toString('base64url')}/`;
  const policy = livePolicy();
  const link: Linker = (relative) => `files/${relative.split('/').map(encodeURIComponent).join('/')}`;
  // Expired header and request times are looked for every second, not every 30 (Node's default).
  const server = createServer({ connectionsCheckingInterval: 1_000 }, (request, response) => {
    void answer(request, response).catch(() => response.destroy());
  });
  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!LOOPBACK_NAMES.test(request.headers.host ?? ''))
      return plain(response, 403, 'Open the address the command printed.');
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'Only GET and HEAD.');
    const where = (request.url ?? '').split('?')[0] ?? '';
    if (where === base) return page(request, response);
    if (!where.startsWith(`${base}files/`)) return plain(response, 404, 'Not found.');
    let relative: string;
    try {
      relative = where
        .slice(base.length + 'files/'.length)
        .split('/')
        .map(decodeURIComponent)
        .join('/');
    } catch {
      return plain(response, 400, 'Not a file name.');
    }
    const fd = source.open(relative);
    if (fd === undefined) return plain(response, 404, 'Not a file this page links to.');
    response.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-security-policy': "default-src 'none'; sandbox",
      ...COMMON_HEADERS,
    });
    if (request.method === 'HEAD') {
      closeSync(fd);
      response.end();
      return;
    }
    createReadStream('', { fd })
      .on('error', () => response.destroy())
      .pipe(response);
  }
  async function page(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const version = source.version();
    const headers = { etag: `"${version}"`, 'content-security-policy': policy, ...COMMON_HEADERS };
    let pieces: Iterable<string>;
    try {
      pieces = request.method === 'HEAD' ? [] : source.page(version, link);
    } catch (error) {
      // A board caught mid-edit: said on the page, which reloads once it reads again.
      response.writeHead(503, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(errorPage(version, (error as Error).message));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    let batch = '';
    for (const piece of pieces) {
      batch += piece;
      if (batch.length < WRITE_BYTES) continue;
      // A reader gone mid-page closes the response instead of draining it.
      if (!response.write(batch)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
      if (response.destroyed) return;
      batch = '';
    }
    response.end(batch);
  }
  limitConnections(server, process.getuid?.());
  server.listen({ host: '127.0.0.1', port });
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      `port ${port} cannot be used on 127.0.0.1 (${code ?? (error as Error).message}). Pick another with ` +
        '--port, or leave --port out to have a free one chosen.',
    );
  }
  const bound = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${bound}${base}`, close: () => closeServer(server) };
}

// The names a browser on this machine uses for it, with any port (a tunnel or `kubectl port-forward`
// may bring it to another one). A page of another site that gets its own name to point here (DNS
// rebinding) sends that name instead, and is refused.
const LOOPBACK_NAMES = /^(127\.0\.0\.1|localhost)(:\d+)?$/i;

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...COMMON_HEADERS });
  response.end(`${text}\n`);
}

// The page while it cannot be made: why, and the script that reloads it when the board reads again.
function errorPage(version: string, message: string): string {
  const head = '<meta charset="utf-8"><link rel="icon" href="data:,"><title>The board cannot be read</title>';
  const body = `<h1>The board cannot be read</h1><p>${esc(message)}</p><p>This page reloads once it can.</p>`;
  const html = `<html lang="en" data-version="${esc(version)}">`;
  return `<!doctype html>${html}<head>${head}</head><body>${body}<script>${LIVE_SCRIPT}</script></body></html>`;
}

async function closeServer(server: Server): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
}
