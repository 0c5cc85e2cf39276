import { chownSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { AGENTS, boardWithTasks, role, ROOT, runCli, tempDir } from '../helpers.js';

const FENCED = role(['sh', path.join(AGENTS, 'writes-marker.sh'), 'ran.txt'], 'stdin: none\nsandbox: true\n');
const NOTIFY = '#!/bin/sh\ntouch notified\n';

/**
 * A one-task board whose Implementor is fenced (`extra` added to its front-matter), with notify.sh in the board folder.
 */
function fencedBoard(files: Record<string, string> = {}): string {
  const dir = boardWithTasks(1, { 'roles/implementor.md': FENCED, ...files });
  writeFileSync(path.join(dir, 'notify.sh'), NOTIFY, { mode: 0o755 });
  return dir;
}

/** Nothing ran: no agent, no hook, no run folder. */
function expectNothingRan(dir: string): void {
  for (const left of ['ran.txt', 'notified', '.kanban-supervisor'])
    expect(existsSync(path.join(dir, left)), left).toBe(false);
}

const REFUSED = 'where a fenced agent (roles/implementor.md) can write, and hooks run unfenced.';

describe('hooks when a role is fenced', () => {
  it('refuses a hook whose program lies in the board folder with exit 2 before any agent runs', async () => {
    const dir = fencedBoard();
    const result = await runCli(['kanban.yaml', '--on-complete', './notify.sh'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `kanban-supervisor: --on-complete: ./notify.sh lies in the board folder, ` +
        `${REFUSED} Move it to a folder no fenced agent can write and give its full path, e.g. ` +
        `--on-complete "$HOME/bin/notify.sh".`,
    );
    expectNothingRan(dir);
  });

  it('refuses the script an interpreter is given (sh ./notify.sh, even inline), ' + 'a link into it', async () => {
    const dir = fencedBoard();
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'notify'), NOTIFY, { mode: 0o755 });
    const outside = tempDir();
    symlinkSync(path.join(dir, 'notify.sh'), path.join(outside, 'notify'));
    const cases: Array<[string[], Record<string, string>, string]> = [
      [
        ['--on-complete', 'sh ./notify.sh'],
        {},
        `--on-complete: the script ./notify.sh (run by sh) lies in the board folder`,
      ],
      [
        ['--on-halt', 'sh -c ./notify.sh'],
        {},
        `--on-halt: the script ./notify.sh (run by sh) lies in the board folder`,
      ],
      [['--on-complete', path.join(outside, 'notify')], {}, `--on-complete: ${path.join(outside, 'notify')} lies in`],
    ];
    for (const [flags, env, said] of cases) {
      const result = await runCli(['kanban.yaml', ...flags], { cwd: dir, env });
      expect(result.exitCode, flags.join(' ')).toBe(2);
      expect(result.stderr).toContain(`kanban-supervisor: ${said}`);
      expect(result.stderr).toContain(REFUSED);
      expectNothingRan(dir);
    }
  });

  it('never finds a hook on a PATH folder in the board: PATH is searched without it, and says so', async () => {
    const dir = fencedBoard();
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'notify'), NOTIFY, { mode: 0o755 });
    const bin = path.join(dir, 'bin');
    const result = await runCli(['kanban.yaml', '--on-halt', 'notify'], {
      cwd: dir,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `kanban-supervisor: --on-halt: the command "notify" was not found on PATH (without ${bin}: a fenced agent ` +
        `can write there). Install it or fix the --on-halt command (it is run as argv, not through a shell).`,
    );
    expectNothingRan(dir);
  });

  it('refuses a hook in a folder a fenced role declares writable, naming it', async () => {
    const shared = tempDir();
    writeFileSync(path.join(shared, 'notify.sh'), NOTIFY, { mode: 0o755 });
    const dir = boardWithTasks(1, {
      'roles/implementor.md': FENCED.replace('sandbox: true', `sandbox:\n  write: [${JSON.stringify(shared)}]`),
    });
    const result = await runCli(['kanban.yaml', '--on-halt', path.join(shared, 'notify.sh')], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`lies in ${shared} (sandbox: write of roles/implementor.md), ${REFUSED}`);
    expectNothingRan(dir);
  });

  it('runs a hook from outside the board folder, and with no role fenced one inside it, as before', async () => {
    const outside = tempDir();
    writeFileSync(path.join(outside, 'notify.sh'), `#!/bin/sh\ntouch "${outside}/notified"\n`, { mode: 0o755 });
    const finished = fencedBoard({ 'kanban.yaml': 'current: null\ntasks: []\n' });
    const fenced = await runCli(['kanban.yaml', '--on-complete', `sh ${outside}/notify.sh`], { cwd: finished });
    expect(fenced.exitCode).toBe(0);
    expect(existsSync(path.join(outside, 'notified'))).toBe(true);

    const open = boardWithTasks(1, { 'roles/implementor.md': FENCED.replace('sandbox: true\n', '') });
    writeFileSync(path.join(open, 'notify.sh'), NOTIFY, { mode: 0o755 });
    const result = await runCli(['kanban.yaml', '--on-complete', './notify.sh'], { cwd: open });
    expect(result.exitCode).toBe(0);
    expect(existsSync(path.join(open, 'notified'))).toBe(true);
  });

  it("--help's example hook holds on a fenced board", async () => {
    const help = await runCli(['run', '--help']);
    const example = /--on-complete "([^"]+)"/.exec(help.stdout)?.[1] ?? '';
    expect(example).toMatch(/^\$HOME\//);
    const home = tempDir();
    mkdirSync(path.join(home, 'bin'));
    writeFileSync(path.join(home, 'bin', 'notify.sh'), `#!/bin/sh\ntouch "${home}/notified"\n`, { mode: 0o755 });
    const dir = fencedBoard({ 'kanban.yaml': 'current: null\ntasks: []\n' });
    const result = await runCli(['kanban.yaml', '--on-complete', example.replace('$HOME', home)], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(existsSync(path.join(home, 'notified'))).toBe(true);
  });
});

describe('unfenced programs on a board with a fenced role', () => {
  it(
    "an unfenced role's program or interpreter script in the board folder: " +
      'validate and run exit 2 naming the role file, the line and the fix',
    async () => {
      // The Implementor never runs here: a program any user reaches (the checkout may lie in a closed mktemp -d).
      const dir = fencedBoard({
        'roles/implementor.md': role(['true'], 'stdin: none\nsandbox: true\n'),
        'roles/manager.md': role(['sh', './manager.sh'], 'stdin: json\n'),
      });
      writeFileSync(path.join(dir, 'manager.sh'), '#!/bin/sh\ntouch managed\n', { mode: 0o755 });
      // Run by root, a board folder root owns is a problem of its own (the fenced agent runs as the folder's owner).
      if (process.getuid?.() === 0) chownSync(dir, 4242, 4242);
      const problem =
        'roles/manager.md:2: the script ./manager.sh given to sh lies in the board folder, ' +
        'where a fenced agent (roles/implementor.md) can write, and Manager runs unfenced. ' +
        'Move it to a folder no fenced agent can write and give its full path in `command:`, ' +
        'or fence Manager too (sandbox: true).';
      const validate = await runCli(['validate'], { cwd: dir });
      expect(validate.exitCode).toBe(2);
      expect(validate.stdout).toContain(problem);
      const run = await runCli(['kanban.yaml'], { cwd: dir });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain(problem);
      expectNothingRan(dir);
      // `try` runs the role on its own, as unfenced as a run would: refused the same way.
      const tried = await runCli(['try', 'Manager', '--task', 'tasks/001.md'], { cwd: dir });
      expect(tried.exitCode).toBe(2);
      expect(tried.stderr).toContain(problem);
      expect(existsSync(path.join(dir, 'managed'))).toBe(false);

      writeFileSync(path.join(dir, 'roles/manager.md'), role(['./manager.sh'], 'stdin: json\n'));
      const program = await runCli(['validate'], { cwd: dir });
      expect(program.exitCode).toBe(2);
      expect(program.stdout).toContain('roles/manager.md:2: the program ./manager.sh lies in the board folder');
    },
  );

  it("a PATH entry in the board folder: the run's is taken out with a warning, an unfenced role's is a problem", async () => {
    const dir = fencedBoard({
      'roles/manager.md': role(
        ['node', '{{agents}}/sequential-manager.js'],
        `stdin: json\nenv:\n  PATH: ${JSON.stringify(`bin:${process.env.PATH}`)}\n`,
      ),
    });
    mkdirSync(path.join(dir, 'bin'));
    const validate = await runCli(['validate'], {
      cwd: dir,
      env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` },
    });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout).toContain(
      `kanban.yaml: the PATH of this run lists ${path.join(dir, 'bin')}, in the board folder, ` +
        `where a fenced agent (roles/implementor.md) can write: taken out of the PATH of every program the ` +
        `supervisor starts (agents, hooks, git, bwrap), so that none started by name is one an agent put there. (warning)`,
    );
    expect(validate.stdout).toContain(
      'roles/manager.md:5: env: PATH lists "bin", a folder relative to the working folder (the board folder, ' +
        'for agents and hooks), where a fenced agent (roles/implementor.md) can write, and Manager runs unfenced: ' +
        'a program it starts by name could be one an agent put there. Take it out of PATH, ' +
        'or fence Manager too (sandbox: true).',
    );
  });

  it(
    'kanban-supervisor installed inside the board folder is a problem: ' +
      'a fenced agent could change what the next run runs',
    async () => {
      const dir = fencedBoard();
      const installed = path.join(dir, 'node_modules', 'kanban-supervisor');
      mkdirSync(installed, { recursive: true });
      for (const part of ['dist', 'schemas', 'presets', 'package.json'])
        cpSync(path.join(ROOT, part), path.join(installed, part), { recursive: true });
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(installed, 'node_modules'));
      const validate = await execa('node', [path.join(installed, 'dist', 'cli.js'), 'validate'], {
        cwd: dir,
        reject: false,
      });
      expect(validate.exitCode).toBe(2);
      expect(validate.stdout).toContain(
        `kanban.yaml: kanban-supervisor itself (${installed}) lies in the board folder, ` +
          `where a fenced agent (roles/implementor.md) can write: the next run would run what an agent changed ` +
          `there. Install it outside the board folder`,
      );
    },
  );
});
