import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, role, runCli, tempDir } from '../helpers.js';

// Prints its secret (masked in what travels) and a line on each stream, then replies ok.
const WORKER = [
  "process.stdout.write('out line ' + process.env.API_TOKEN + '\\n');",
  "process.stderr.write('err line\\n');",
  "process.stdout.write(JSON.stringify({ status: 'ok', message: 'm' }) + '\\n');",
].join(' ');

describe('a report that travels', () => {
  it(
    'report --out DIR outside the board carries the attempt outputs and work logs it links, so every link ' +
      'works wherever the folder is opened, secrets masked',
    async () => {
      const dir = boardWithTasks(2, {
        'roles/implementor.md': role(['node', '-e', WORKER], 'stdin: none\nenv:\n  API_TOKEN: s3cr3t-value-4242\n'),
      });
      expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(0);
      const night = path.join(tempDir(), 'night');
      mkdirSync(night);
      const result = await runCli(['report', '--out', night], { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/with the files it links in .*night\/report-files \(keep them together\)/);
      // Opened elsewhere: the folder moved away from the board, as an artifact is.
      const elsewhere = path.join(tempDir(), 'downloaded');
      renameSync(night, elsewhere);
      const page = readFileSync(path.join(elsewhere, 'report.html'), 'utf8');
      const hrefs = [...page.matchAll(/href="([^"#:]+)"/g)].map((m) => decodeURIComponent(m[1] as string));
      expect(hrefs.filter((h) => h.includes('/runs/')).length).toBeGreaterThanOrEqual(4);
      expect(hrefs.some((h) => h.endsWith('tasks/001.md'))).toBe(true);
      for (const href of hrefs) {
        expect(href, href).not.toMatch(/^\.\.\//);
        expect(existsSync(path.join(elsewhere, href)), href).toBe(true);
      }
      const outputs = hrefs.filter((h) => h.endsWith('.out')).map((h) => readFileSync(path.join(elsewhere, h), 'utf8'));
      expect(outputs.join('')).toContain('out line ');
      expect(outputs.join('')).not.toContain('s3cr3t-value-4242');
    },
  );

  it('a page written inside the board folder links the files where they are and carries nothing', async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': role(['node', '-e', WORKER], 'stdin: none\n') });
    expect((await runCli(['--quiet'], { cwd: dir })).exitCode).toBe(0);
    const result = await runCli(['report', '--out', 'night.html'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('keep them together');
    expect(existsSync(path.join(dir, 'night-files'))).toBe(false);
    expect(readFileSync(path.join(dir, 'night.html'), 'utf8')).toContain('href="tasks/001.md"');
  });
});
