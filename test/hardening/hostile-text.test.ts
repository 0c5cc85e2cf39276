import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoBoard } from '../git-boards.js';
import { boardWithTasks, CLI, pathWithoutUs, read, role, runCli, tempDir } from '../helpers.js';
import { waitFor } from './procs.js';

// Issue 31: what an agent prints is masked in time linear in it, after cleaning and before any
// cut, and cleaned wherever it is written (the Log, a hook's environment, `logs`).
const SECRET = 'abcdefghijklmnop1234';
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u001b\u0007]/;
const ENV = { NO_COLOR: '1', KS_TEST_API_KEY: SECRET };

/** A role whose agent runs a node script (`code`), stdin none. */
function nodeRole(code: string, extra = ''): string {
  return role(['node', '-e', code], `stdin: none\n${extra}`);
}

function start(dir: string, args: string[] = []) {
  return execa('node', [CLI, 'kanban.yaml', ...args], {
    cwd: dir,
    reject: false,
    env: { ...ENV, PATH: pathWithoutUs() },
    stdin: 'ignore',
    timeout: 120_000,
  });
}

describe('an agent printing megabytes built to slow masking', () => {
  it('a 768 KB reply of `--token=` repeated, on a board whose steps are committed: SIGTERM during the commit ends the run within 5 s', async () => {
    const code =
      `require('fs').writeFileSync('out.txt', 'work'); ` +
      `console.log(JSON.stringify({status: 'ok', message: '--token='.repeat(96 * 1024)}))`;
    const { dir, env } = repoBoard(1, { files: { 'roles/implementor.md': nodeRole(code) } });
    const run = execa('node', [CLI, 'kanban.yaml'], {
      cwd: dir,
      reject: false,
      env: { ...env, ...ENV, PATH: pathWithoutUs() },
      stdin: 'ignore',
      timeout: 120_000,
    });
    // The board is written, then the step committed: its message holds the reply, masked.
    const written = () =>
      existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) &&
      read(dir, '.kanban-supervisor/events.jsonl').includes('"type":"board_written"');
    await waitFor(written, 'the board written', 60_000);
    const sent = Date.now();
    run.kill('SIGTERM');
    const result = await run;
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect([0, 143]).toContain(result.exitCode);
  }, 90_000);

  it.each([
    ['a 768 KB reply of `--token=` repeated', 'reply'],
    ['64 KB lines of `--token=` repeated, without end', 'lines'],
  ])(
    '%s: SIGTERM ends the run within 5 s',
    async (_, kind) => {
      const marker = path.join(tempDir('ks-marks-'), 'printed');
      const code =
        kind === 'reply'
          ? `const m = '--token='.repeat(96 * 1024); process.stdout.write(JSON.stringify({status: 'ok', message: m}) + '\\n', () => { require('fs').writeFileSync(${JSON.stringify(marker)}, ''); });`
          : `const line = '--token='.repeat(8 * 1024) + '\\n'; let n = 0; ` +
            `const go = () => { let more = true; while (more) { more = process.stdout.write(line); ` +
            `if (++n === 64) require('fs').writeFileSync(${JSON.stringify(marker)}, ''); } }; ` +
            `process.stdout.on('drain', go); go();`;
      const dir = boardWithTasks(1, { 'roles/implementor.md': nodeRole(code) });
      const run = start(dir);
      await waitFor(() => existsSync(marker), 'the agent printed', 60_000);
      const sent = Date.now();
      run.kill('SIGTERM');
      const result = await run;
      expect(Date.now() - sent).toBeLessThan(5_000);
      expect([0, 143]).toContain(result.exitCode);
    },
    90_000,
  );

  it('`logs` prints a 320 KB line of `--token=` in a few seconds', async () => {
    const code = `process.stdout.write('--token='.repeat(40 * 1024) + '\\n' + JSON.stringify({status: 'ok', message: 'done'}) + '\\n')`;
    const dir = boardWithTasks(1, { 'roles/implementor.md': nodeRole(code) });
    expect((await start(dir)).exitCode).toBe(0);
    const started = Date.now();
    const logs = await runCli(['logs', '--role', 'Implementor', '--stdout', '--raw'], { cwd: dir, env: ENV });
    expect(logs.exitCode).toBe(0);
    // It took 21 s unloaded; a loaded machine (other builds) may take a few seconds.
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(logs.stdout.length).toBeGreaterThan(320 * 1024);
  });
});

describe('a secret value an agent prints', () => {
  it('split by an escape sequence or a BEL, is masked in events, the console, status and the report', async () => {
    // Built from the environment: the secret is nowhere in the role file or the command.
    const split = `k.slice(0, 8) + '\\u001b[0m' + k.slice(8, 14) + '\\u0007' + k.slice(14)`;
    const dir = boardWithTasks(1, {
      'roles/implementor.md': nodeRole(
        `const k = process.env.KS_TEST_API_KEY; console.log(JSON.stringify({status: 'ok', message: 'key: ' + ${split}}))`,
      ),
    });
    const run = await start(dir);
    expect(run.exitCode).toBe(0);
    const status = await runCli(['status'], { cwd: dir, env: ENV });
    const report = await runCli(['report', '--out', path.join(dir, 'page.html')], { cwd: dir, env: ENV });
    expect(report.exitCode).toBe(0);
    const events = read(dir, '.kanban-supervisor/events.jsonl');
    for (const [where, text] of [
      ['the console', run.stdout + run.stderr],
      ['status', status.stdout],
      ['events.jsonl', events],
      ['the report', read(dir, 'page.html')],
    ] as const) {
      expect(text, where).not.toContain(SECRET.slice(0, 8));
      expect(text, where).not.toContain(SECRET.slice(14));
    }
    expect(events).toContain('key: …(set, 20 chars)');
  });

  it('past the 500 characters an event keeps of a message, leaves no part of it in events.jsonl', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': nodeRole(
        `console.log(JSON.stringify({status: 'ok', message: 'x'.repeat(490) + process.env.KS_TEST_API_KEY + ' end'}))`,
      ),
    });
    expect((await start(dir)).exitCode).toBe(0);
    const events = read(dir, '.kanban-supervisor/events.jsonl');
    expect(events).not.toContain(SECRET.slice(0, 6));
    expect(events).toMatch(/"message":"x{490}…"/);
  });
});

describe('terminal controls in an agent’s text', () => {
  const OSC52 = '\u001b]52;c;SGVsbG8=\u0007';

  it('never reach supervisor.log.md nor a hook’s KANBAN_MESSAGE', async () => {
    const hookDir = tempDir('ks-hook-');
    const dump = path.join(hookDir, 'dump.mjs');
    const got = path.join(hookDir, 'message');
    writeFileSync(
      dump,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], process.env.KANBAN_MESSAGE);\n`,
    );
    const manager = nodeRole(
      `const input = JSON.parse(process.env.KANBAN_INPUT); console.log(JSON.stringify({status: 'escalate', ` +
        `message: 'look ' + ${JSON.stringify(OSC52)} + ' here', next_task: input.done_task, tasks: input.tasks}))`,
    );
    const dir = boardWithTasks(1, {
      'roles/implementor.md': nodeRole(`console.log(JSON.stringify({status: 'ok', message: 'done'}))`),
      'roles/manager.md': manager,
    });
    const run = await start(dir, ['--on-halt', `node ${dump} ${got}`]);
    expect(run.exitCode).toBe(4);
    const log = read(dir, 'supervisor.log.md');
    expect(log).toContain('look');
    expect(log).not.toContain('\u001b');
    expect(log).not.toContain('\u0007');
    const message = readFileSync(got, 'utf8');
    expect(message).toContain('look');
    expect(message).not.toMatch(CONTROLS);
  });

  it('in a file name a hostile events.jsonl gives never reach the terminal through `logs`', async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': nodeRole(`console.log(JSON.stringify({status: 'ok', message: 'done'}))`),
    });
    expect((await start(dir)).exitCode).toBe(0);
    const file = path.join(dir, '.kanban-supervisor/events.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const forged = lines.map((line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      if (event.type === 'attempt_finished' && event.role === 'Implementor')
        event.stdoutFile = `.kanban-supervisor/runs/${OSC52}x.out`;
      return JSON.stringify(event);
    });
    writeFileSync(file, `${forged.join('\n')}\n`);
    const logs = await runCli(['logs', '--role', 'Implementor'], { cwd: dir, env: ENV });
    expect(logs.stdout + logs.stderr).toContain('==> stdout: .kanban-supervisor/runs/x.out is not there');
    expect(logs.stdout + logs.stderr).not.toMatch(CONTROLS);
  });
});

describe('a folder named like the board’s temp file', () => {
  it('is left alone and never stops a run', async () => {
    const dir = boardWithTasks(2, {
      'roles/implementor.md': nodeRole(`console.log(JSON.stringify({status: 'ok', message: 'done'}))`),
    });
    mkdirSync(path.join(dir, '.kanban.yaml.999999-abcdef.tmp'));
    const run = await start(dir);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(existsSync(path.join(dir, '.kanban.yaml.999999-abcdef.tmp'))).toBe(true);
    expect(read(dir, 'kanban.yaml')).toMatch(/current: null/);
  });
});
