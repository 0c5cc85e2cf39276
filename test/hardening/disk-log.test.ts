import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { role, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { mountable } from './places.js';

// An agent that fills the disk, prints 200 KB (its log cannot be written), frees the space and
// replies: everything the supervisor writes after the attempt succeeds, only the log is cut.
const FILLS_THEN_FREES = `
const fs = require('node:fs');
const fd = fs.openSync('filler', 'w');
const block = Buffer.alloc(64 * 1024, 1);
try { for (;;) fs.writeSync(fd, block); } catch {}
fs.closeSync(fd);
process.stdout.write('x'.repeat(200 * 1024) + '\\n', () => setTimeout(() => {
  fs.rmSync('filler');
  process.stdout.write(JSON.stringify({ status: 'ok', message: 'done' }) + '\\n');
}, 300));
`;

describe.skipIf(!mountable())(
  "an attempt log the disk could not hold (a tmpfs of the test's own; needs root to mount)",
  () => {
    it('stops the run with exit 73 naming the incomplete log and the full disk, not going on to "Done"', async () => {
      const dir = tempDir('ks-tmpfs-');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
      try {
        const files: Record<string, string> = {
          'kanban.yaml': 'phase: execute\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n',
          'tasks/001.md': '---\ntitle: one\n---\nDo it.\n',
          'roles/implementor.md': role(['node', '-e', FILLS_THEN_FREES], 'stdin: none\n'),
          'roles/manager.md': SEQUENTIAL_MANAGER,
        };
        for (const [name, text] of Object.entries(files)) {
          mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
          writeFileSync(path.join(dir, name), text);
        }
        const result = await runCli(['kanban.yaml'], { cwd: dir });
        expect(existsSync(path.join(dir, 'filler'))).toBe(false); // the space was freed before the run went on
        expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
        expect(result.exitCode).toBe(73);
        expect(result.stderr.trim()).toMatch(
          new RegExp(
            String.raw`^kanban-supervisor: Cannot write \S+\.out in full: this attempt's output log is ` +
              String.raw`incomplete \(\d+ bytes kept, the rest lost\), so the run stopped after it; ` +
              String.raw`the disk is full \(ENOSPC\)\. Free some space and run again\.$`,
          ),
        );
        // The task was not passed on as done: the next run does it again, with its output kept.
        expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/^current: tasks\/001\.md$/m);
      } finally {
        execFileSync('umount', ['-l', dir]);
      }
    }, 60_000);
  },
);
