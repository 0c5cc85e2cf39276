import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, role, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { mountable } from './places.js';

const CAN_MOUNT = mountable();

/** A one-task board on a fresh tmpfs of `size`; returns its folder and how to change or undo the mount. */
function boardOnTmpfs(size: string, worker: string) {
  const dir = tempDir('ks-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  const files: Record<string, string> = {
    'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n',
    'tasks/001.md': '---\ntitle: one\n---\nDo it.\n',
    'roles/implementor.md': worker,
    'roles/manager.md': SEQUENTIAL_MANAGER,
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return {
    dir,
    remount: (options: string) => execFileSync('mount', ['-o', `remount,${options}`, dir]),
    unmount: () => execFileSync('umount', ['-l', dir]),
  };
}

const everyLineParses = (dir: string) =>
  readFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .every((line) => JSON.parse(line) !== undefined);

describe.skipIf(!CAN_MOUNT)("a full disk, a read-only board (a tmpfs of the test's own; needs root to mount)", () => {
  it(
    'judges a reply from memory when its log cannot be written, stops with exit 73 naming the file and the cause, ' +
      'keeps the board whole and no torn event line, and resumes once space is freed',
    async () => {
      const { dir, unmount } = boardOnTmpfs(
        '3m',
        role(['node', path.join(AGENTS, 'prints-1gb.mjs'), String(6 * 1024 * 1024)], 'stdin: none\n'),
      );
      try {
        const full = await runCli(['kanban.yaml'], { cwd: dir });
        expect(full.stderr).not.toMatch(/internal error|\n\s+at /);
        expect(full.exitCode).toBe(73);
        expect(full.stderr.trim()).toMatch(
          /^kanban-supervisor: Cannot .* the disk is full \(ENOSPC\)\. Free some space and run again\.$/,
        );
        expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/^current: tasks\/001\.md$/m);
        const finished = readFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((e) => e.type === 'attempt_finished');
        expect(finished).toMatchObject({ valid: true, logError: expect.stringMatching(/disk is full/) });
        expect(everyLineParses(dir)).toBe(true);

        // Space freed (and the agent made quieter): the next run resumes at the same task.
        rmSync(path.join(dir, '.kanban-supervisor/runs'), { recursive: true });
        writeFileSync(
          path.join(dir, 'roles/implementor.md'),
          role(['node', path.join(AGENTS, 'prints-1gb.mjs'), '1000'], 'stdin: none\n'),
        );
        const again = await runCli(['kanban.yaml'], { cwd: dir });
        expect(again.exitCode, again.stderr).toBe(0);
        expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/^current: null$/m);
        expect(everyLineParses(dir)).toBe(true);
      } finally {
        unmount();
      }
    },
  );

  it('finds a read-only board folder with no state folder yet before any agent runs: exit 73, naming it', async () => {
    const { dir, remount, unmount } = boardOnTmpfs('1m', role(['sh', '-c', 'touch ran; echo {}'], 'stdin: none\n'));
    try {
      remount('ro');
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(73);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          String.raw`^kanban-supervisor: Cannot create the folder .*\.kanban-supervisor: ` +
            String.raw`the file system is read-only \(EROFS\)\. Make it writable and run again\.$`,
        ),
      );
      expect(readdirSync(dir)).not.toContain('ran');
    } finally {
      unmount();
    }
  });
});

describe('an immutable kanban.yaml (chattr +i)', () => {
  it('is found before any agent runs: exit 73, naming the file and the cause', async (context) => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'tasks'));
    mkdirSync(path.join(dir, 'roles'));
    writeFileSync(path.join(dir, 'kanban.yaml'), 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n');
    writeFileSync(path.join(dir, 'tasks/001.md'), 'Do it.\n');
    writeFileSync(path.join(dir, 'roles/implementor.md'), role(['sh', '-c', 'touch ran; echo {}'], 'stdin: none\n'));
    writeFileSync(path.join(dir, 'roles/manager.md'), SEQUENTIAL_MANAGER);
    try {
      execFileSync('chattr', ['+i', path.join(dir, 'kanban.yaml')], { stdio: 'ignore' });
    } catch {
      context.skip('chattr +i needs root and a file system that has the attribute');
    }
    try {
      const result = await runCli(['kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(73);
      expect(result.stderr.trim()).toMatch(/kanban\.yaml: not permitted \(EPERM; an immutable or append-only file\?\)/);
      expect(readdirSync(dir)).not.toContain('ran');
    } finally {
      execFileSync('chattr', ['-i', path.join(dir, 'kanban.yaml')]);
    }
  });
});
