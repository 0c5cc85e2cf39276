/* eslint-disable no-control-regex -- terminal output is made of escape codes; these tests look for them */
import path from 'node:path';
import { execa } from 'execa';
import stringWidth from 'string-width';
import { describe, expect, it, vi } from 'vitest';
import type { SupervisorEvent } from '../../src/event-types.js';
import { plainReporter } from '../../src/progress/plain.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { boardWithTasks, CLI, events, fixtureRole, role, runCli } from '../helpers.js';

const reply = (status: string, message: string) =>
  role(
    [
      'node',
      '-e',
      `console.log(JSON.stringify({ status: ${JSON.stringify(status)}, message: ${JSON.stringify(message)} }))`,
    ],
    'stdin: none\n',
  );
const HOSTILE = 'Owner must look \x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07now';

/** Under a real pseudo-terminal of `cols` columns; `keys` are typed into it once the screen shows `after`. */
async function underTerminal(dir: string, cols: number, keys?: { text: string; after: string }) {
  const run = execa('script', ['-qfec', `stty cols ${cols}; exec node ${CLI} kanban.yaml`, '/dev/null'], {
    cwd: dir,
    reject: false,
    env: { ...process.env, CI: '', TERM: 'xterm-256color', NO_COLOR: '' },
    extendEnv: false,
    stdin: keys ? 'pipe' : 'ignore',
    timeout: 60_000,
  });
  // Typed when the screen shows it is time, not after a fixed wait: under load, Node can take
  // longer to start than any wait, and a Ctrl-C before the run listens for it kills it bare.
  let screen = '';
  const onData = (chunk: Buffer) => {
    screen += String(chunk);
    if (!keys || !screen.includes(keys.after)) return;
    run.stdout?.off('data', onData);
    run.stdin?.write(keys.text);
  };
  if (keys) run.stdout?.on('data', onData);
  return String((await run).stdout);
}

describe('what agents replied, shown', () => {
  it(
    'marks each reply by its status — blocked never as a green ✓ — with the start of its message, ' +
      'in plain lines and events',
    async () => {
      const dir = boardWithTasks(1, {
        'roles/implementor.md': reply('blocked', 'Needs the API key for the staging server'),
      });
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(4); // the sequential Manager escalates a reply that is not ok
      expect(result.stdout).toMatch(
        /^\d\d:\d\d:\d\d {3}⊘ Implementor replied blocked: Needs the API key for the staging server \(\d/m,
      );
      expect(result.stdout).toMatch(
        /^\d\d:\d\d:\d\d {3}⚑ Manager replied escalate: tasks\/001\.md ended with status blocked/m,
      );
      expect(result.stdout).not.toMatch(/✓ Implementor/);
      const finished = events(dir).filter((e) => e.type === 'attempt_finished');
      expect(finished.map((e) => [e.role, e.status, e.message])).toEqual([
        ['Implementor', 'blocked', 'Needs the API key for the staging server'],
        ['Manager', 'escalate', expect.stringMatching(/^tasks\/001\.md ended with status blocked/)],
      ]);
      expect(finished[1]).toMatchObject({ board: 'kanban.yaml', done_task: 'tasks/001.md' });
    },
  );

  it(
    'never lets escape sequences of an agent reach the terminal: a Manager escalating with OSC and CSI in its ' +
      'message',
    async () => {
      const manager = fixtureRole('scripted.mjs', [
        '/dev/null',
        'json:' +
          JSON.stringify({ status: 'escalate', message: HOSTILE, next_task: 'tasks/001.md', tasks: ['tasks/001.md'] }),
      ]);
      const dir = boardWithTasks(1, {
        'roles/implementor.md': reply('ok', 'done \x1b[31mred\x1b[0m'),
        'roles/manager.md': manager,
      });
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(4);
      expect(result.stderr).toContain('Owner must look now');
      for (const text of [
        result.stdout,
        result.stderr,
        String((await underTerminal(dir, 120)).replace(/\r\x1b\[K|\x1b\[[0-9;]*m/g, '')),
      ]) {
        expect(text).not.toMatch(/\x1b\]|\x1b\[2J|\x07/);
      }
    },
  );

  it('fits every line to a terminal of 40 columns, wide characters and emoji counted as two', async () => {
    const task = 'tasks/第一個任務-🚀-设计评审.md';
    const dir = boardWithTasks(1, { 'roles/implementor.md': reply('ok', '完成了所有的工作 🎉 '.repeat(6)) });
    const { renameSync, writeFileSync, readFileSync } = await import('node:fs');
    renameSync(path.join(dir, 'tasks/001.md'), path.join(dir, task));
    writeFileSync(
      path.join(dir, 'kanban.yaml'),
      readFileSync(path.join(dir, 'kanban.yaml'), 'utf8').replaceAll('tasks/001.md', task),
    );
    const output = await underTerminal(dir, 40);
    const lines = output
      .split(/\r\n|\n|\r\x1b\[K/)
      .map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''))
      .filter(Boolean);
    expect(lines.some((l) => l.includes('完成'))).toBe(true);
    for (const line of lines.filter((l) => !l.startsWith('Done:') && !l.startsWith('✓ Done:')))
      expect(stringWidth(line), line).toBeLessThanOrEqual(39);
  });

  it('leaves a clean line on Ctrl-C: the status line is erased before the outcome', async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': role(['sleep', '30'], 'stdin: none\n') });
    const output = await underTerminal(dir, 100, { text: '\x03', after: 'attempt 1/' });
    // After the last erase: the interrupted step's ✗ line and the outcome, whole; no status line half drawn.
    const tail = output.slice(output.lastIndexOf('\r\x1b[K') + 4).replace(/\x1b\[[0-9;]*m/g, '');
    expect(tail).toMatch(
      new RegExp(
        String.raw`^✗ step 1 · Implementor · tasks\/001\.md \(\d+(\.\d)?m?s\)\r?\n` +
          String.raw`kanban-supervisor: Interrupted by SIGINT: [^\n]*$`,
      ),
    );
    expect(tail).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });
});

describe('the heartbeat of plain output', () => {
  it('says every few minutes that a long attempt still runs, with its latest output, and stops when it ends', () => {
    vi.useFakeTimers();
    try {
      let t = 0;
      const lines: string[] = [];
      const reporter = plainReporter({
        write: (s) => lines.push(s),
        now: () => t,
        heartbeatMs: 300_000,
        events: CAPABILITY_EVENTS,
      });
      const event = (type: SupervisorEvent['type'], fields: Record<string, unknown> = {}) =>
        reporter.event({ time: new Date(0).toISOString(), run: 'r', type, ...fields } as SupervisorEvent);
      event('attempt_started', { role: 'Implementor', attempt: 1, of: 4 });
      t = 120_000;
      reporter.line('compiling 3 of 9');
      t = 300_000;
      vi.advanceTimersByTime(300_000);
      expect(lines.at(-1)).toMatch(
        /^\d\d:\d\d:\d\d {3}… Implementor attempt 1\/4 running for 5m00s; last output 3m00s ago: compiling 3 of 9\n$/,
      );
      event('attempt_finished', {
        role: 'Implementor',
        attempt: 1,
        of: 4,
        valid: true,
        status: 'ok',
        message: 'm',
        durationMs: 300_000,
      });
      const count = lines.length;
      vi.advanceTimersByTime(900_000);
      expect(lines).toHaveLength(count);
      reporter.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
