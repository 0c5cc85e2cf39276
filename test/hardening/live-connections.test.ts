import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, pathWithoutUs, role, runCli } from '../helpers.js';

// Issue 31, item 7: `report --watch` listens on 127.0.0.1, where every local user can connect.
// Another user's idle connections must not starve the page's owner.
const ROOT_USER = process.getuid?.() === 0;
const NOBODY = 65534;
// A node another user can run (the suite's own lies under /work, which `nobody` may not enter).
const SYSTEM_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((file) => existsSync(file));

function servedAt(server: ResultPromise): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.stdout?.on('data', (chunk: Buffer) => {
      const found = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(chunk.toString())?.[0];
      if (found) resolve(found);
    });
    void server.then((ended) => reject(new Error(`report --watch ended before serving: ${String(ended.stderr)}`)));
  });
}

function status(url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode ?? 0));
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('no answer in 10 s')));
  });
}

// Opens `count` connections that never send a byte; prints how many are still open every 200 ms.
const IDLE_CLIENT = `
const net = require('net');
const [port, count] = process.argv.slice(1).map(Number);
let open = 0, made = 0;
for (let i = 0; i < count; i++) {
  const s = net.connect(port, '127.0.0.1');
  s.on('connect', () => { open++; made++; });
  s.on('error', () => {});
  s.on('close', () => { if (s.connecting === false) open = Math.max(0, open - 1); });
}
setInterval(() => console.log(JSON.stringify({ open, made })), 200);
`;

describe.skipIf(!ROOT_USER || !SYSTEM_NODE)('report --watch with another local user’s idle connections', () => {
  it('answers its owner at once, holding at most 8 of the other user’s connections', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': role(['node', '-e', "console.log(JSON.stringify({status:'ok',message:'done'}))"]),
    });
    expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
    // A small descriptor limit, as a busy machine's: 400 idle connections would take them all.
    const server = execa('prlimit', ['--nofile=128', '--', 'node', CLI, 'report', '--watch'], {
      cwd: dir,
      reject: false,
      env: { NO_COLOR: '1', PATH: pathWithoutUs() },
    });
    try {
      const url = new URL(await servedAt(server));
      // Once first, so the time measured below is the answer's, not the first page's making.
      expect(await status(url)).toBe(200);
      const flood = spawn(SYSTEM_NODE as string, ['-e', IDLE_CLIENT, url.port, '400'], {
        uid: NOBODY,
        gid: NOBODY,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let last = { open: 0, made: 0 };
      flood.stdout.on('data', (chunk: Buffer) => {
        const line = chunk.toString().trim().split('\n').at(-1);
        if (line) last = JSON.parse(line) as typeof last;
      });
      try {
        // Wait until the other user has made its connections (the server closes most at once).
        const until = Date.now() + 20_000;
        while (last.made < 400 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(last.made).toBe(400);
        const started = Date.now();
        expect(await status(url)).toBe(200);
        // Unanswered before the limits (the request timed out); a loaded machine may take seconds.
        expect(Date.now() - started).toBeLessThan(6_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(last.open).toBeLessThanOrEqual(8);
      } finally {
        flood.kill();
      }
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  }, 60_000);
});
