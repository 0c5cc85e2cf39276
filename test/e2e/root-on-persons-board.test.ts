import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/board/front-matter.js';
import { read, runCli, tempDir } from '../helpers.js';

const PERSON = 4242;

// `docker run --rm -v "$PWD:/board" kanban-supervisor` runs as root on a board a person owns; so do
// a CronJob's pods and `sudo`. The shipped Manager marks each task done in its file, in the person's
// tasks/ folder, and every file written keeps its owner, so the person edits the board as before.
describe.skipIf(process.getuid?.() !== 0)("run by root on a person's board", () => {
  it('runs the shell board to the end, the shipped Manager writing the task files; every file stays theirs', async () => {
    const dir = tempDir();
    expect((await runCli(['init', dir, '--agent', 'shell'])).exitCode).toBe(0);
    execFileSync('chown', ['-R', `${PERSON}:${PERSON}`, dir]);
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.stderr).not.toContain('UnsafePathError');
    expect(result.exitCode).toBe(0);
    const tasks = readdirSync(path.join(dir, 'tasks'));
    expect(tasks.length).toBeGreaterThan(0);
    for (const task of tasks) {
      const parsed = parseFrontMatter(read(dir, `tasks/${task}`));
      expect(parsed.ok && parsed.data.status).toBe('done');
    }
    for (const file of ['kanban.yaml', 'tasks', ...tasks.map((task) => `tasks/${task}`)])
      expect(statSync(path.join(dir, file)).uid, file).toBe(PERSON);
  });
});
