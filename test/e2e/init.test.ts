import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { read, runCli, tempDir } from '../helpers.js';

describe('kanban-supervisor init', () => {
  it('scaffolds a shell board that runs to completion, and says what to run next', async () => {
    const dir = path.join(tempDir(), 'board');
    const init = await runCli(['init', dir, '--agent', 'shell']);
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain(`Run it:    npx kanban-supervisor ${path.join(dir, 'kanban.yaml')}`);
    for (const file of ['kanban.yaml', 'tasks/001-example.md', 'roles/implementor.md', 'roles/architect.md', 'roles/manager.md']) {
      expect(existsSync(path.join(dir, file))).toBe(true);
    }
    const run = await runCli([path.join(dir, 'kanban.yaml')]);
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
    expect(refused.stderr).toMatch(/kanban\.yaml already exists; nothing was written\. Use another folder, or pass --force to overwrite\./);
    expect(read(dir, 'kanban.yaml')).toBe('mine: true\n');
    expect(existsSync(path.join(dir, 'roles'))).toBe(false);
    const forced = await runCli(['init', dir, '--force']);
    expect(forced.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/001-example\.md$/m);
  });

  it('refuses an unknown agent with the list of presets', async () => {
    const result = await runCli(['init', tempDir(), '--agent', 'copilot']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--agent must be one of shell, claude, codex, gemini \(got "copilot"\)/);
  });
});
