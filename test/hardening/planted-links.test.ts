import { lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, runCli, tempDir } from '../helpers.js';
import { outside } from './places.js';

describe('symlinks an agent plants where the supervisor writes', () => {
  it.each([
    [
      'the Supervisor Log',
      'log',
      /supervisor\.log\.md is a symlink \(planted in the board folder\?\); refusing to write through it/,
    ],
    [
      "the next attempt's log files",
      'next-out',
      new RegExp(
        String.raw`000000001-implementor-2-tasks_001\.out is a symlink \(planted in the board folder\?\); ` +
          String.raw`refusing to write through it`,
      ),
    ],
    [
      'the folder of the run',
      'run-folder',
      new RegExp(
        String.raw`000000001-implementor-\d-tasks_001\.out ended up at .*\.moved\/.* while it was opened \(a ` +
          String.raw`folder on its way was moved or swapped for a symlink\); refusing to write there`,
      ),
    ],
    [
      'the state folder',
      'state-folder',
      new RegExp(
        String.raw`ended up at .*state\.moved\/.* while it was opened \(a folder on its way was moved or ` +
          String.raw`swapped for a symlink\); refusing to write there`,
      ),
    ],
    ["the name a failed attempt's log is renamed to", 'failed-out', null],
  ])('are never written through: %s', async (_, what, refusal) => {
    const target = outside();
    const before = target.untouched();
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('plants-links.mjs', [what, target.file, target.dir], 'stdin: none\n') },
      'phase: execute\nsupervisor:\n  max_retries: 1\n',
    );
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(target.untouched()).toEqual(before);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    if (refusal) {
      expect(result.exitCode).toBe(73);
      expect(result.stderr.trim()).toMatch(refusal);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    } else {
      expect(result.exitCode).toBe(3); // the agent never replied: retried, then halted
    }
  });

  it('are never written through: kanban.yaml itself, replaced by a link to a file outside', async () => {
    const target = outside();
    const dir = boardWithTasks(1, {
      'roles/implementor.md': fixtureRole('board-then-reply.mjs', [target.file], 'stdin: none\n'),
    });
    const board = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(73);
    expect(result.stderr.trim()).toMatch(
      /kanban\.yaml is a symlink \(planted in the board folder\?\); refusing to write through it/,
    );
    // What the agent copied there, not the Manager's answer: the supervisor wrote nothing through the link.
    expect(readFileSync(target.file, 'utf8')).toBe(board);
  });

  it('refuses an events file that is a planted symlink before any agent runs', async () => {
    const target = outside();
    const before = target.untouched();
    const dir = boardWithTasks(1, {
      'roles/implementor.md': fixtureRole('scripted.mjs', [path.join(tempDir(), 'calls.jsonl')]),
    });
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    symlinkSync(target.file, path.join(dir, '.kanban-supervisor', 'events.jsonl'));
    const result = await runCli(['kanban.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(73);
    expect(result.stderr.trim()).toMatch(
      /events\.jsonl is a symlink \(planted in the board folder\?\); refusing to write through it/,
    );
    expect(target.untouched()).toEqual(before);
    expect(lstatSync(path.join(dir, '.kanban-supervisor', 'events.jsonl')).isSymbolicLink()).toBe(true);
  });
});
