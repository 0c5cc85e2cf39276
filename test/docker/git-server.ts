import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** A git server on 127.0.0.1 that serves the bare repositories of a folder to one login. */
export interface GitServer {
  /** `http://127.0.0.1:PORT/`: a repository `board.git` of the folder is `${url}board.git`. */
  url: string;
  /** Every request's login, or '' for none, in order: what the clients sent. */
  logins: string[];
  close(): Promise<void>;
}

/**
 * Git's smart HTTP (clone, fetch and push) through `git http-backend`, as a private repository
 * is served: a request without the login (basic auth) gets 401 and nothing else.
 */
export async function gitServer(root: string, login: { username: string; password: string }): Promise<GitServer> {
  const expected = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
  const logins: string[] = [];
  const server = createServer((req, res) => {
    const sent = req.headers.authorization ?? '';
    logins.push(sent ? Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString() : '');
    if (sent !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="board"' }).end();
      return;
    }
    backend(root, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// git http-backend as a CGI program: the request in its environment and on its stdin, the
// response's headers and body on its stdout.
function backend(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const cgi = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REMOTE_USER: 'night', // an authenticated user may push (http.receivepack's default)
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (started) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    started = true;
    const headers = head.subarray(0, end).toString().split('\r\n');
    const status = headers.find((line) => /^status:/i.test(line));
    res.statusCode = status ? Number(status.split(/\s+/)[1]) : 200;
    for (const line of headers.filter((l) => !/^status:/i.test(l))) {
      const colon = line.indexOf(':');
      res.setHeader(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    res.write(head.subarray(end + 4));
  });
  cgi.stdout.on('end', () => res.end());
}

/** Every file under `dir` whose bytes hold `text`: where a login may have been left. */
export function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => {
    try {
      return readFileSync(path.join(dir, name)).includes(text);
    } catch {
      return false; // a folder
    }
  });
}
