import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, CLI, events, fixtureRole, read, role, runCli } from '../helpers.js';
import { finished, printed, underTerminal, until } from './logs-helpers.js';
import { snapshot } from './snapshot.js';

// Prints colour, a window title and a bare carriage return on both streams, then its reply.
const NOISY = [
  "process.stdout.write('\\x1b[31mred\\x1b[0m out\\rline\\n');",
  "process.stderr.write('warn \\x1b]0;pwned\\x07 end\\n');",
  "process.stdout.write(JSON.stringify({ status: 'ok', message: 'm' }) + '\\n');",
].join(' ');

const started: Array<{ kill: (signal?: NodeJS.Signals) => boolean }> = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A two-task board whose worker is NOISY, run to the end. */
async function ranBoard(): Promise<string> {
  const dir = boardWithTasks(2, { 'roles/implementor.md': role(['node', '-e', NOISY], 'stdin: none\n') });
  expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(0);
  return dir;
}

describe('logs', () => {
  it(
    'prints the last attempt (the Manager of the last step) with a heading and each stream under its file name; ' +
      'reads only',
    async () => {
      const dir = await ranBoard();
      const before = snapshot(dir);
      const result = await runCli(['logs'], { cwd: dir });
      expect(result.exitCode).toBe(0);
      const manager = finished(dir).at(-1) as { stdoutFile: string; run: string };
      expect(result.stdout.split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^Manager after tasks/002\\.md · run ${manager.run}, step 2, attempt 1 of 4 · started ` +
              `\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d · replied ok \\(exit 0, [^)]+\\)$`,
          ),
        ),
        `==> stdout: ${manager.stdoutFile} (${read(dir, manager.stdoutFile).length} bytes) <==`,
        read(dir, manager.stdoutFile).trimEnd(),
        '==> stderr: empty (the agent printed nothing there, so there is no file) <==',
      ]);
      expect(snapshot(dir)).toEqual(before);
    },
  );

  it(
    "picks a task's worker with --task, the Manager's turn after it with --role Manager, " +
      'a step of the last run with --step, and a run with --run',
    async () => {
      const dir = await ranBoard();
      const attempts = finished(dir) as Array<{
        run: string;
        step: number;
        role: string;
        task: string;
        stdoutFile: string;
      }>;
      const heading = async (...args: string[]) =>
        (await runCli(['logs', ...args], { cwd: dir })).stdout.split('\n')[0];
      expect(await heading('--task', 'tasks/001.md')).toMatch(
        /^Implementor on tasks\/001\.md · run \S+, step 1, attempt 1 of 4 /,
      );
      expect(await heading('--task', './tasks/001.md', '--role', 'manager')).toMatch(
        /^Manager after tasks\/001\.md · run \S+, step 1, /,
      );
      expect(await heading('--step', '2', '--role', 'Implementor')).toMatch(
        /^Implementor on tasks\/002\.md · run \S+, step 2, /,
      );
      expect(await heading('--step', '1')).toMatch(/^Manager after tasks\/001\.md · run \S+, step 1, /);
      // A second run of one step is the last run now: --step means its steps; --run reaches the first.
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        read(dir, 'kanban.yaml')
          .replace('current: null', 'current: tasks/001.md')
          .replace('phase: complete', 'phase: execute'),
      );
      expect((await runCli(['--once', '--quiet'], { cwd: dir })).exitCode).toBe(0);
      const first = attempts[0]?.run as string;
      const second = events(dir).at(-1)?.run as string;
      expect(second).not.toBe(first);
      expect(await heading('--step', '1', '--role', 'Implementor')).toMatch(
        new RegExp(`^Implementor on tasks/001\\.md · run ${second}, step 1, `),
      );
      expect(await heading('--run', first, '--step', '2', '--role', 'Implementor')).toMatch(
        new RegExp(`^Implementor on tasks/002\\.md · run ${first}, step 2, `),
      );
      expect((await runCli(['logs', '--step', '2'], { cwd: dir })).stderr).toBe(
        `kanban-supervisor: run ${second} has no attempt in step 2; it has steps 1 to 1. Pick one of those, ` +
          `or another run with --run ID.`,
      );
    },
  );

  it('prints a stream alone and byte for byte with --stdout or --stderr to a pipe', async () => {
    const dir = await ranBoard();
    const worker = finished(dir).find((e) => e.role === 'Implementor' && e.task === 'tasks/002.md') as {
      stdoutFile: string;
      stderrFile: string;
    };
    const out = await execa('node', [CLI, 'logs', '--task', 'tasks/002.md', '--stdout'], {
      cwd: dir,
      encoding: 'buffer',
      stdin: 'ignore',
      stripFinalNewline: false,
    });
    expect(Buffer.compare(out.stdout as unknown as Buffer, readFileSync(path.join(dir, worker.stdoutFile)))).toBe(0);
    const err = await execa('node', [CLI, 'logs', '--task', 'tasks/002.md', '--stderr'], {
      cwd: dir,
      encoding: 'buffer',
      stdin: 'ignore',
      stripFinalNewline: false,
    });
    expect(Buffer.compare(err.stdout as unknown as Buffer, readFileSync(path.join(dir, worker.stderrFile)))).toBe(0);
    expect(read(dir, worker.stderrFile)).toContain('\x1b]0;pwned\x07');
  });

  it('cleans control sequences from agent output on a terminal', async () => {
    const dir = await ranBoard();
    const shown = await underTerminal(['logs', '--task', 'tasks/001.md'], dir);
    // A bare carriage return would draw over the line: it is shown as a line break.
    expect(shown).toContain('red out\nline\n');
    expect(shown).toMatch(/^warn {2}end$/m);
    // eslint-disable-next-line no-control-regex -- no escape or control character may come through
    expect(shown).not.toMatch(/[\x1b\x07]|pwned/);
  });

  it(
    'after a halt, opens with the output of the worker whose reply the Manager halted on, not the ' +
      "Manager's JSON, and says how to see the Manager's",
    async () => {
      const escalate = `process.stdout.write(JSON.stringify({ status: 'escalate', message: 'which database?', next_task: 'tasks/001.md', tasks: ['tasks/001.md', 'tasks/002.md'] }) + '\\n');`;
      const dir = boardWithTasks(2, {
        'roles/implementor.md': role(['node', '-e', NOISY], 'stdin: none\n'),
        'roles/manager.md': role(['node', '-e', escalate], 'stdin: none\n'),
      });
      expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(4);
      const [worker, manager] = finished(dir) as Array<{ stdoutFile: string; run: string; role: string }>;
      expect(manager?.role).toBe('Manager');
      const result = await runCli(['logs'], { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(result.stdout.split('\n')[0]).toMatch(/^Implementor on tasks\/001\.md · run .*, step 1, attempt 1 of 4/);
      expect(result.stdout).toContain(
        read(dir, worker?.stdoutFile as string)
          .trimEnd()
          .split('\n')[0],
      );
      expect(result.stderr).toBe(
        `The Manager halted the run (status escalate) on this reply of Implementor; the Manager's own output: ` +
          `npx kanban-supervisor logs --run ${manager?.run} --step 1 --role Manager`,
      );
      // Asked for, the Manager's turn is there as before.
      const asked = await runCli(['logs', '--role', 'Manager'], { cwd: dir });
      expect(asked.stdout).toContain('which database?');
    },
  );

  it("shows a failed attempt's files and why it failed, and says so when a file is gone", async () => {
    const dir = boardWithTasks(1, {
      'roles/implementor.md': fixtureRole('scripted.mjs', ['rec.jsonl', 'crash', 'valid']),
    });
    expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(0);
    // The last attempt of the task is the valid second one; --attempt 1 is the failed one before it.
    const last = await runCli(['logs', '--task', 'tasks/001.md'], { cwd: dir });
    expect(last.stdout.split('\n')[0]).toMatch(/attempt 2 of 4 .* replied ok/);
    const failed = await runCli(['logs', '--task', 'tasks/001.md', '--attempt', '1'], { cwd: dir });
    const first = finished(dir)[0] as { stderrFile: string };
    expect(first.stderrFile).toMatch(/\.failed\.err$/);
    expect(failed.stdout.split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          String.raw`^Implementor on tasks\/001\.md · run \S+, step 1, attempt 1 of 4 · started .* · no valid ` +
            String.raw`reply: printed nothing on stdout \(exit code 70\)[^(]*\(exit 70, [^)]+\)$`,
        ),
      ),
      '==> stdout: empty (the agent printed nothing there, so there is no file) <==',
      `==> stderr: ${first.stderrFile} (5 bytes) <==`,
      'boom',
    ]);
    rmSync(path.join(dir, (finished(dir)[1] as { stdoutFile: string }).stdoutFile));
    const gone = await runCli(['logs', '--task', 'tasks/001.md'], { cwd: dir });
    expect(gone.stdout).toMatch(
      new RegExp(
        String.raw`^==> stdout: \S+\.out is not there \(removed by the retention limits: supervisor\.keep_runs, ` +
          String.raw`keep_bytes, keep_attempts\) <==$`,
        'm',
      ),
    );
  });

  it('says plainly when nothing matches, and what to run instead', async () => {
    const fresh = boardWithTasks(1, { 'roles/implementor.md': fixtureRole('scripted.mjs', ['rec.jsonl']) });
    const none = await runCli(['logs'], { cwd: fresh });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe(
      'kanban-supervisor: .kanban-supervisor/events.jsonl: no attempts recorded yet, ' +
        'so there is no output to show. Run the board first: npx kanban-supervisor',
    );
    const dir = await ranBoard();
    const task = await runCli(['logs', '--task', 'tasks/009.md'], { cwd: dir });
    expect(task.exitCode).toBe(2);
    expect(task.stderr).toBe(
      'kanban-supervisor: no attempt on tasks/009.md in .kanban-supervisor/events.jsonl. ' +
        'See which tasks ran and how: npx kanban-supervisor status',
    );
    const step = await runCli(['logs', '--step', '7'], { cwd: dir });
    expect(step.stderr).toMatch(
      new RegExp(
        String.raw`^kanban-supervisor: run \S+ has no attempt in step 7; it has steps 1 to 2\. ` +
          String.raw`Pick one of those, or another run with --run ID\.$`,
      ),
    );
  });

  it("--follow prints a running attempt's output as it comes and ends when the attempt does", async () => {
    // A worker that prints a line every 200 ms and replies once `go` exists: it ends after
    // --follow has started, however long starting takes under load.
    const go = path.join(boardWithTasks(1, {}), 'go');
    const worker =
      `const t = setInterval(() => { if (!require('fs').existsSync(${JSON.stringify(go)})) ` +
      `return void process.stdout.write('still working ' + Date.now() + '\\n'); clearInterval(t); ` +
      `console.log('{"status":"ok","message":"slow but never silent"}'); }, 200);`;
    const dir = boardWithTasks(1, { 'roles/implementor.md': role(['node', '-e', worker], 'stdin: none\n') });
    const run = execa('node', [CLI, '--quiet'], { cwd: dir, reject: false, stdin: 'ignore' });
    started.push(run);
    await until(
      () =>
        existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) &&
        events(dir).some((e) => e.type === 'attempt_started'),
    );
    await sleep(500); // some output before following starts, some after
    const following = runCli(['logs', '--follow'], { cwd: dir });
    await Promise.race([printed(following, (seen) => seen.split('\n').length > 10), following]);
    writeFileSync(go, '');
    const follow = await following;
    expect(follow.exitCode).toBe(0);
    expect(follow.stderr.split('\n')[0]).toMatch(
      new RegExp(
        String.raw`^Following Implementor on tasks\/001\.md · run \S+, step 1, ` +
          String.raw`attempt 1 of 4 · started .* · running now\. Ctrl-C stops following, not the run\.$`,
      ),
    );
    expect(follow.stderr).toMatch(/\nThe attempt ended: replied ok \(exit 0, [^)]+\)\.$/);
    const file = finished(dir).find((e) => e.role === 'Implementor') as { stdoutFile: string };
    expect(follow.stdout).toBe(read(dir, file.stdoutFile).trimEnd());
    expect(follow.stdout.split('\n').length).toBeGreaterThan(8);
    expect((await run).exitCode).toBe(0);
  });

  it("--follow follows the shipped shell agent: its sh block's output shows while it runs, not at the reply", async () => {
    const go = path.join(boardWithTasks(1, {}), 'go');
    const dir = boardWithTasks(1, {
      'roles/implementor.md': role(['node', '{{agents}}/shell.js'], 'stdin: none\n'),
      'tasks/001.md': `---\ntitle: slow\n---\n\`\`\`sh\necho first-line\nwhile [ ! -f ${go} ]; do sleep 0.1; done\necho last-line\n\`\`\`\n`,
    });
    const run = execa('node', [CLI, '--quiet', '--once'], { cwd: dir, reject: false, stdin: 'ignore' });
    started.push(run);
    await until(
      () =>
        existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) &&
        events(dir).some((e) => e.type === 'attempt_started'),
    );
    const following = execa('node', [CLI, 'logs', '--follow'], { cwd: dir, reject: false, stdin: 'ignore' });
    started.push(following);
    let seen = '';
    const shown = new Promise<void>((resolve) =>
      following.stderr?.on('data', (chunk: Buffer) => {
        seen += String(chunk);
        if (seen.includes('first-line')) resolve();
      }),
    );
    // The script waits for `go`, made only once its first line has been followed.
    await Promise.race([shown, following]);
    expect(seen).toContain('first-line');
    writeFileSync(go, '');
    expect((await following).exitCode).toBe(0);
    expect(seen).toContain('last-line');
    expect((await run).exitCode).toBe(0);
  });

  it('--follow stops when the supervisor dies mid-attempt, and logs then says the attempt is unfinished', async () => {
    const pids = path.join(boardWithTasks(1, {}), 'pids.jsonl');
    const dir = boardWithTasks(1, {
      'roles/implementor.md': role(['node', path.join(AGENTS, 'silent-after-hello.mjs'), pids], 'stdin: none\n'),
    });
    const run = execa('node', [CLI, '--quiet'], { cwd: dir, reject: false, stdin: 'ignore' });
    started.push(run);
    await until(() => existsSync(pids));
    const follow = runCli(['logs', '--follow'], { cwd: dir });
    // Killed once --follow shows the agent's line, so it has found the attempt running: after a
    // fixed wait, a --follow slow to start under load finds the supervisor already dead.
    await Promise.race([printed(follow, (seen) => seen.includes('hello')), follow]);
    run.kill('SIGKILL');
    const followed = await follow;
    const agent = (JSON.parse(read(path.dirname(pids), 'pids.jsonl').trim()) as { leader: number }).leader;
    process.kill(agent, 'SIGKILL');
    expect(followed.exitCode).toBe(0);
    expect(followed.stdout).toBe('hello');
    expect(followed.stderr).toMatch(
      /\nThe attempt ended: unfinished: its supervisor stopped during it \(no end was recorded\)\.$/,
    );
    const after = await runCli(['logs'], { cwd: dir });
    expect(after.stdout.split('\n')[0]).toMatch(
      / · unfinished: its supervisor stopped during it \(no end was recorded\)$/,
    );
    const again = await runCli(['logs', '--follow'], { cwd: dir });
    expect(again.stderr).toBe(
      'No attempt is running now (its supervisor stopped during the last one); here is the last one.',
    );
  });
});
