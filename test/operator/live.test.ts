/* eslint-disable no-control-regex -- terminal output is made of escape codes; these tests match them */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { liveReporter } from '../../src/progress/live.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { createStyle } from '../../src/util/style.js';
import type { SupervisorEvent } from '../../src/event-types.js';
import { boardWithTasks, CLI, role, runCli } from '../helpers.js';

/** A worker that prints a coloured progress line every 150 ms for about 2.5 s, then its reply. */
const CHATTY = [
  'let i = 0;',
  'const t = setInterval(() => {',
  '  console.log(`\\x1b[31mprogress\\x1b[0m line ${++i}`);',
  '  if (i === 16) { clearInterval(t); console.log(JSON.stringify({ status: "ok", message: "m" })); }',
  '}, 150);',
].join(' ');

// SGR sequences: colours and dim/bold. The live line's own redraw (\r and \x1b[K) is not colour.
const COLOUR = /\x1b\[[0-9;]*m/;

/** Run the CLI under a real pseudo-terminal (util-linux `script`), 160 columns wide. */
async function underTerminal(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ exitCode: number | undefined; output: string }> {
  const command = `stty cols 160; exec node ${CLI} ${args.join(' ')}`;
  const result = await execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    // Not CI, a capable terminal, and colour unless a test asks otherwise.
    env: { ...process.env, CI: '', TERM: 'xterm-256color', NO_COLOR: '', ...env },
    extendEnv: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
  return { exitCode: result.exitCode, output: String(result.stdout) };
}

function chattyBoard(): string {
  return boardWithTasks(1, { 'roles/implementor.md': role(['node', '-e', CHATTY], 'stdin: none\n') });
}

describe('progress on a terminal and on a pipe', () => {
  it(
    'redraws one status line in place on a terminal, with step, role, task, attempt, ' +
      'elapsed times and the latest output line, then a permanent ✓ line',
    async () => {
      const dir = chattyBoard();
      const { exitCode, output } = await underTerminal([path.join(dir, 'kanban.yaml')]);
      expect(exitCode).toBe(0);
      const redraws = output.split('\r\x1b[K');
      expect(redraws.length).toBeGreaterThan(5);
      // The attempt's clock ticked past one second while the agent kept printing.
      expect(output).toMatch(
        /step 1 · Implementor · tasks\/001\.md · attempt 1\/4 0:0[1-9] · run 0:0[1-9] · \x1b\[2mprogress line \d+/,
      );
      expect(output).toMatch(/step 1 · Manager · tasks\/001\.md · attempt 1\/4 /);
      // The agent's own colour codes never reach the status line.
      expect(output).not.toContain('\x1b[31m');
      expect(output).toMatch(
        new RegExp(
          String.raw`\r\x1b\[K\x1b\[32m✓\x1b\[39m step 1 · Implementor · tasks\/001\.md → no next task ` +
            String.raw`\x1b\[2m\(\d+(\.\d)?s\)\x1b\[22m\r?\n`,
        ),
      );
      expect(output).toMatch(/\x1b\[32m✓\x1b\[39m Done: the board has no next task \(1 step\(s\)/);
    },
  );

  it.each([
    ['NO_COLOR=1', [], { NO_COLOR: '1' }],
    ['--no-color', ['--no-color'], {}],
  ])('keeps the live line but prints no colour with %s', async (_, flags, env) => {
    const dir = chattyBoard();
    const { exitCode, output } = await underTerminal([path.join(dir, 'kanban.yaml'), ...flags], env);
    expect(exitCode).toBe(0);
    expect(output).toContain('\r\x1b[K');
    expect(output).toMatch(/attempt 1\/4 0:0\d · run 0:0\d · progress line/);
    expect(output).not.toMatch(COLOUR);
  });

  it(
    'prints plain timestamped lines without any escape code or carriage return on a pipe, ' +
      'and only the outcome with --quiet',
    async () => {
      const dir = chattyBoard();
      const piped = await runCli([path.join(dir, 'kanban.yaml')], { env: { NO_COLOR: '' } });
      expect(piped.exitCode).toBe(0);
      expect(piped.stdout).not.toMatch(/[\x1b\r]/);
      const lines = piped.stdout.split('\n');
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/^\d\d:\d\d:\d\d /);
      expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d step 1 · Implementor · tasks\/001\.md$/));
      expect(lines.at(-1)).toMatch(/^Done: the board has no next task/);

      writeFileSync(path.join(dir, 'kanban.yaml'), 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n');
      const quiet = await runCli([path.join(dir, 'kanban.yaml'), '--quiet']);
      expect(quiet.exitCode).toBe(0);
      expect(quiet.stdout).toMatch(
        new RegExp(
          String.raw`^Done: the board has no next task \(1 step\(s\), [^)]+\)\. See what happened: ` +
            String.raw`npx kanban-supervisor report \S+$`,
        ),
      );
    },
  );

  it('prints plain lines on a terminal when CI is set, since CI logs cannot redraw', async () => {
    const dir = chattyBoard();
    const { exitCode, output } = await underTerminal([path.join(dir, 'kanban.yaml')], { CI: 'true' });
    expect(exitCode).toBe(0);
    expect(output).not.toContain('\x1b');
    expect(output).toMatch(/^\d\d:\d\d:\d\d run \S+ on kanban\.yaml/);
  });
});

describe('the live status line', () => {
  it('shortens a long task path to show the latest output, and never grows past the terminal width', () => {
    const written: string[] = [];
    const terminal = { t: 0, columns: 100 };
    const live = liveReporter({
      write: (s) => written.push(s),
      columns: () => terminal.columns,
      style: createStyle(false),
      now: () => terminal.t,
      tickMs: 60_000,
      events: CAPABILITY_EVENTS,
    });
    const event = (type: SupervisorEvent['type'], fields: Record<string, unknown>) =>
      live.event({ time: new Date(0).toISOString(), run: 'r', type, ...fields } as SupervisorEvent);
    const drawn = () =>
      written
        .join('')
        .split(/\r\x1b\[K|\n/)
        .filter(Boolean);
    event('step_started', {
      step: 12,
      role: 'Implementor',
      task: 'tasks/a-very-long-folder-name/and-a-longer-task-file-name.md',
    });
    event('attempt_started', { step: 12, role: 'Implementor', attempt: 2, of: 4 });
    terminal.t = 75_000;
    live.line(`\x1b[1m${'x'.repeat(500)}\x1b[0m`);
    expect(drawn().at(-1)).toMatch(
      /^. step 12 · Implementor · …[\w-]*-name\.md · attempt 2\/4 1:15 · run 1:15 · x{10,}…$/,
    );
    for (const line of drawn()) expect([...line].length).toBeLessThanOrEqual(99);

    written.length = 0;
    terminal.columns = 40;
    terminal.t = 200_000;
    live.line('y'.repeat(500));
    expect(drawn().at(-1)).toMatch(/^. step 12 · Implementor · …/);
    for (const line of drawn()) expect([...line].length).toBeLessThanOrEqual(39);
    live.close();
    expect(written.at(-1)).toBe('\r\x1b[K'); // closed: the line is cleared for the outcome
  });
});
