import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { programOf } from '../../src/agents/index.js';
import { parseRole, type Role } from '../../src/board/role.js';
import { CLI, read, ROOT, runCli, tempDir } from '../helpers.js';

const AGENT_CLIS = ['claude', 'codex', 'gemini'] as const;

/** `validate` with a PATH holding only an empty folder, so no agent CLI installed here is found. */
// PATH holds node alone (the Manager's sequential-manager.js runs with it), no agent CLI.
function validateWithoutAgents(board: string) {
  const bin = tempDir();
  symlinkSync(process.execPath, path.join(bin, 'node'));
  return execa(process.execPath, [CLI, 'validate', board], {
    env: { PATH: bin, NO_COLOR: '1' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

describe('kanban-supervisor init', () => {
  it('scaffolds a shell board that runs to completion, and says what to run next', async () => {
    const dir = path.join(tempDir(), 'board');
    const init = await runCli(['init', dir, '--agent', 'shell']);
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain(`Check it:  npx kanban-supervisor validate ${dir}\n`);
    expect(init.stdout).toContain(`Run it:    npx kanban-supervisor ${dir}\n`);
    expect(init.stdout).toContain(`Read it:   npx kanban-supervisor status ${dir}   (then: logs, report)\n`);
    for (const file of [
      'kanban.yaml',
      'tasks/001-example.md',
      'roles/implementor.md',
      'roles/architect.md',
      'roles/manager.md',
    ]) {
      expect(existsSync(path.join(dir, file))).toBe(true);
    }
    // Run as the output says: the folder stands for its kanban.yaml.
    const run = await runCli([dir]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(read(dir, 'tasks/001-example.md')).toMatch(/hello from /);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
  });

  it('never overwrites an existing file without --force, and writes nothing at all then', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'kanban.yaml'), 'mine: true\n');
    const refused = await runCli(['init', dir]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /kanban\.yaml already exists; nothing was written\. Use another folder, or pass --force to overwrite\./,
    );
    expect(read(dir, 'kanban.yaml')).toBe('mine: true\n');
    expect(existsSync(path.join(dir, 'roles'))).toBe(false);
    const forced = await runCli(['init', dir, '--force']);
    expect(forced.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/001-example\.md$/m);
  });

  it('writes a .gitignore for the run output, and what it ignores is all a run leaves untracked', async () => {
    const dir = path.join(tempDir(), 'board');
    const init = await runCli(['init', dir]);
    expect(init.exitCode).toBe(0);
    expect(read(dir, '.gitignore')).toBe(
      '# kanban-supervisor run output (attempt logs, events, lock, Supervisor Log)\n.kanban-supervisor/\n' +
        'supervisor.log.md\n',
    );
    expect(init.stdout).toContain(
      'Run output goes to .kanban-supervisor/ and supervisor.log.md beside kanban.yaml; ' +
        'a new .gitignore keeps it out of git.',
    );
    const git = (...args: string[]) =>
      execa('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args]);
    await execa('git', ['init', '-q', dir]);
    await git('add', '-A');
    await git('commit', '-qm', 'board');
    expect((await runCli([dir, '--quiet'])).exitCode).toBe(0);
    writeFileSync(path.join(dir, 'supervisor.log.md'), '### a retry would write this\n');
    const changed = await git('status', '--porcelain', '--untracked-files=all');
    // Only the board files the run moved on show; nothing of the supervisor's own.
    expect(changed.stdout.split('\n').sort()).toEqual([' M kanban.yaml', ' M tasks/001-example.md']);
  });

  it('never replaces an existing .gitignore: it appends only the lines it lacks, or leaves it as it is', async () => {
    const dir = tempDir();
    // No final newline; the folder already ignored.
    writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n/.kanban-supervisor');
    const first = await runCli(['init', dir]);
    expect(first.exitCode).toBe(0);
    expect(read(dir, '.gitignore')).toBe(
      'node_modules/\n/.kanban-supervisor\n# kanban-supervisor run output (attempt logs, events, lock, ' +
        'Supervisor Log)\nsupervisor.log.md\n',
    );
    expect(first.stdout).toContain('; the lines .gitignore lacked for it were appended to it.');
    const again = await runCli(['init', dir, '--force']);
    expect(again.exitCode).toBe(0);
    expect(read(dir, '.gitignore')).toBe(
      'node_modules/\n/.kanban-supervisor\n# kanban-supervisor run output (attempt logs, events, lock, ' +
        'Supervisor Log)\nsupervisor.log.md\n',
    );
    expect(again.stdout).toContain('; .gitignore already keeps it out of git.');
    // A refused init writes nothing, .gitignore included.
    const other = tempDir();
    writeFileSync(path.join(other, 'kanban.yaml'), 'mine: true\n');
    writeFileSync(path.join(other, '.gitignore'), 'dist/\n');
    expect((await runCli(['init', other])).exitCode).toBe(2);
    expect(read(other, '.gitignore')).toBe('dist/\n');
  });

  it('refuses an unknown agent with the list of presets', async () => {
    const result = await runCli(['init', tempDir(), '--agent', 'aider']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /--agent must be one of shell, claude, codex, gemini, opencode, copilot, kilo, opencode-acp, kilo-acp, copilot-acp \(got "aider"\)/,
    );
  });

  it.each(AGENT_CLIS)(
    'scaffolds a %s board whose roles all run that CLI headless, says how to set it up, ' +
      'and which validate finds complete but for the program',
    async (agent) => {
      const dir = path.join(tempDir(), 'board');
      const init = await runCli(['init', dir, '--agent', agent]);
      expect(init.exitCode).toBe(0);
      expect(init.stdout).toMatch(new RegExp(`^  2\\. Install .*\\(npm install -g @[\\w-]+/[\\w-]+\\)`, 'm'));
      expect(init.stdout).toContain(`Check it:  npx kanban-supervisor validate ${dir}\n`);
      for (const name of ['Architect', 'Implementor', 'Manager']) {
        const role = parseRole(`roles/${name.toLowerCase()}.md`, name, read(dir, `roles/${name.toLowerCase()}.md`))
          .role as Role;
        // The Manager is the shipped sequential Manager, asking that CLI only when a reply is not ok;
        // Claude Code and Codex get its prompt on stdin (no argument's size limit).
        expect(programOf(role.command)).toBe(agent);
        const onStdin = name === 'Manager' && agent !== 'gemini';
        expect(role.command.filter((arg) => arg.includes('{{prompt}}'))).toHaveLength(onStdin ? 0 : 1);
        expect(role).toMatchObject({ stdin: onStdin ? 'prompt' : 'none', output: 'auto' });
      }
      expect(init.stdout).toContain(
        `The Manager (roles/manager.md) asks ${agent} only when a worker's reply is not ok`,
      );
      // A review task, so validate checks the Architect's role file too.
      writeFileSync(path.join(dir, 'tasks/002-review.md'), '---\nrole: Architect\n---\nReview it.\n');
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        read(dir, 'kanban.yaml').replace(
          '  - tasks/001-example.md\n',
          '  - tasks/001-example.md\n  - tasks/002-review.md\n',
        ),
      );
      const validate = await validateWithoutAgents(path.join(dir, 'kanban.yaml'));
      expect(validate.exitCode).toBe(2);
      // The only problems: the program is not installed. test/clis runs the same boards with it installed.
      expect(validate.stdout.trim().split('\n')).toEqual([
        ...['implementor', 'architect', 'manager'].map((role) =>
          expect.stringMatching(
            new RegExp(`roles/${role}\\.md:\\d+: the \\w+ command "${agent}" was not found on PATH\\.`),
          ),
        ),
        '3 problem(s) found; nothing was run or changed.',
      ]);
    },
  );

  it.each(['opencode', 'copilot', 'kilo'])(
    'scaffolds a %s board from its preset: every role runs that CLI with the prompt on stdin, ' +
      'and says how to set it up',
    async (agent) => {
      const dir = path.join(tempDir(), 'board');
      const init = await runCli(['init', dir, '--agent', agent]);
      expect(init.exitCode).toBe(0);
      expect(init.stdout).toMatch(/^ {2}2\. Install .*\(npm install -g [@\w/-]+\)/m);
      for (const name of ['architect', 'implementor', 'manager']) {
        const role = parseRole(`roles/${name}.md`, name, read(dir, `roles/${name}.md`)).role as Role;
        // The Manager is the shipped sequential Manager, asking that CLI only when a reply is not ok.
        expect(programOf(role.command)).toBe(agent);
        expect(role).toMatchObject({ stdin: 'prompt', output: 'auto' });
      }
    },
  );

  it.each(['opencode', 'copilot', 'kilo'])(
    'scaffolds a %s-acp board: its workers speak ACP with the default permission policy, its Manager is the native preset',
    async (agent) => {
      const dir = path.join(tempDir(), 'board');
      const init = await runCli(['init', dir, '--agent', `${agent}-acp`]);
      expect(init.exitCode, init.stderr).toBe(0);
      expect(init.stdout).toMatch(/^ {2}2\. Install .*\(npm install -g [@\w/-]+\)/m);
      for (const name of ['architect', 'implementor']) {
        const role = parseRole(`roles/${name}.md`, name, read(dir, `roles/${name}.md`)).role as Role;
        expect(role.command[0]).toBe(agent);
        expect(role).toMatchObject({ protocol: 'acp', permissions: { allow: ['read', 'edit', 'search', 'think'] } });
      }
      const manager = parseRole('roles/manager.md', 'manager', read(dir, 'roles/manager.md')).role as Role;
      expect(manager.protocol).toBeUndefined();
      expect(read(dir, 'roles/manager.md')).toBe(readFileSync(path.join(ROOT, 'presets', agent, 'manager.md'), 'utf8'));
    },
  );

  it('gives Claude Code, Codex and Gemini CLI the same role prompts', async () => {
    const bodies = await Promise.all(
      AGENT_CLIS.map(async (agent) => {
        const dir = path.join(tempDir(), agent);
        expect((await runCli(['init', dir, '--agent', agent])).exitCode).toBe(0);
        return ['architect', 'implementor', 'manager'].map(
          (role) => parseRole(role, role, read(dir, `roles/${role}.md`)).role?.prompt,
        );
      }),
    );
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });
});
