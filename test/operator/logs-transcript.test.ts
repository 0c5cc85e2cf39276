import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, read, role, ROOT, runCli, tempDir } from '../helpers.js';
import { finished, printed, underTerminal, until } from './logs-helpers.js';

const started: Array<{ kill: (signal?: NodeJS.Signals) => boolean }> = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

// A script named claude.js: `node claude.js` is recognised as Claude Code (agents/index.ts).
describe('logs of a known CLI', () => {
  it(
    "shows a Claude attempt's stdout as the model's text, and as the JSON lines it printed with --raw, " +
      'on a pipe and a terminal alike',
    async () => {
      const recorded = path.join(ROOT, 'test/fixtures/recorded/claude-tool.stream.jsonl');
      // Named claude.js, so `node claude.js` is recognised as Claude Code (agents/index.ts).
      const claude = path.join(tempDir(), 'claude.js');
      writeFileSync(claude, `process.stdout.write(require('fs').readFileSync(${JSON.stringify(recorded)}));\n`);
      const dir = boardWithTasks(1, {
        'roles/implementor.md': role(['node', claude, '-p', '--output-format', 'stream-json'], 'stdin: none\n'),
      });
      expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(0);
      expect(events(dir).find((e) => e.type === 'attempt_started' && e.role === 'Implementor')).toMatchObject({
        cli: 'claude',
      });
      const file = (finished(dir).find((e) => e.role === 'Implementor') as { stdoutFile: string }).stdoutFile;
      const text = 'Write: hello.txt\nWrote hello.txt.\n\n```json\n{"status":"ok","message":"wrote hello.txt"}\n```';
      const shown = await runCli(['logs', '--task', 'tasks/001.md'], { cwd: dir });
      expect(shown.stdout.split('\n').slice(1).join('\n')).toBe(
        `==> stdout: ${file} (${Buffer.byteLength(read(dir, file))} bytes) · claude's text (--raw: as written) ` +
          `<==\n${text}\n==> stderr: empty (the agent printed nothing there, so there is no file) <==`,
      );
      expect((await runCli(['logs', '--task', 'tasks/001.md', '--stdout'], { cwd: dir })).stdout).toBe(text);
      expect(await underTerminal(['logs', '--task', 'tasks/001.md', '--stdout'], dir)).toBe(text);
      const raw = await runCli(['logs', '--task', 'tasks/001.md', '--raw'], { cwd: dir });
      expect(raw.stdout).toContain(
        `(${Buffer.byteLength(read(dir, file))} bytes) · as written (without --raw: claude's text) <==\n` +
          `${read(dir, file)}==> stderr`,
      );
      expect((await runCli(['logs', '--task', 'tasks/001.md', '--raw', '--stdout'], { cwd: dir })).stdout).toBe(
        read(dir, file).trimEnd(),
      );
    },
  );

  it("--follow shows a running Claude attempt's text as it comes", async () => {
    const go = path.join(tempDir(), 'go');
    const lines = read(ROOT, 'test/fixtures/recorded/claude-tool.stream.jsonl').split(/(?<=\n)/);
    // The tool call first; the rest once the test has seen it followed.
    const claude = path.join(tempDir(), 'claude.js');
    writeFileSync(
      claude,
      `const [first, rest] = ${JSON.stringify([lines.slice(0, 2).join(''), lines.slice(2).join('')])}; ` +
        `process.stdout.write(first); const t = setInterval(() => { if ` +
        `(!require('fs').existsSync(${JSON.stringify(go)})) return; clearInterval(t); process.stdout.write(rest); ` +
        `}, 100);\n`,
    );
    const dir = boardWithTasks(1, { 'roles/implementor.md': role(['node', claude, '-p'], 'stdin: none\n') });
    const run = execa('node', [CLI, '--quiet'], { cwd: dir, reject: false, stdin: 'ignore' });
    started.push(run);
    await until(
      () =>
        existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) &&
        events(dir).some((e) => e.type === 'attempt_started'),
    );
    const following = runCli(['logs', '--follow'], { cwd: dir });
    // At most 20 s: a follow that never shows the text fails below, with the agent let go.
    await Promise.race([printed(following, (seen) => seen.includes('Write: hello.txt')), following, sleep(20_000)]);
    writeFileSync(go, '');
    const follow = await following;
    expect(follow.stderr.split('\n')[0]).toMatch(
      new RegExp(
        String.raw`^Following Implementor on tasks\/001\.md · .* · running now · claude's text \(--raw: ` +
          String.raw`as written\)\. Ctrl-C stops following, not the run\.$`,
      ),
    );
    expect(follow.stdout).toBe(
      'Write: hello.txt\nWrote hello.txt.\n\n```json\n{"status":"ok","message":"wrote hello.txt"}\n```',
    );
    expect((await run).exitCode).toBe(0);
  });
});
