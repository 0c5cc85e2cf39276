import { lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { boardWithTasks, CLI, fixtureRole, pathWithoutUs, runCli, tempDir } from '../helpers.js';

/** A board that ran once (one quick sh agent), so report has a history to show. */
async function ranBoard(): Promise<string> {
  const marker = path.join(tempDir(), 'ran');
  const dir = boardWithTasks(1, {
    'roles/implementor.md': fixtureRole('writes-marker.sh', [marker], 'stdin: none\n').replace('"node",', '"sh",'),
  });
  const run = await runCli([], { cwd: dir });
  expect(run.exitCode).toBe(0);
  return dir;
}

/** A file outside the board that nothing may write to. */
function outsideFile(): { file: string; text: string } {
  const file = path.join(tempDir('ks-outside-'), 'authorized_keys');
  writeFileSync(file, 'ssh-ed25519 AAAA... the owner\n');
  return { file, text: readFileSync(file, 'utf8') };
}

describe('report writes its page', () => {
  it(
    'in the state folder through the safe path: a symlink planted as report.html is refused, ' +
      'not written through or replaced',
    async () => {
      const dir = await ranBoard();
      const target = outsideFile();
      const page = path.join(dir, '.kanban-supervisor/report.html');
      symlinkSync(target.file, page);
      const result = await runCli(['report'], { cwd: dir });
      expect(result.exitCode).toBe(73);
      expect(result.stderr.trim()).toMatch(
        new RegExp(
          String.raw`^kanban-supervisor: .*report\.html is a symlink \(planted in the board folder\?\); ` +
            String.raw`refusing to write through it\. Remove it and run again\.$`,
        ),
      );
      expect(readFileSync(target.file, 'utf8')).toBe(target.text);
      expect(lstatSync(page).isSymbolicLink()).toBe(true);
      rmSync(page);
      const again = await runCli(['report'], { cwd: dir });
      expect(again.exitCode).toBe(0);
      expect(lstatSync(page).isFile()).toBe(true);
      expect(readFileSync(page, 'utf8')).toMatch(/<\/html>\s*$/);
      expect(readdirSync(path.join(dir, '.kanban-supervisor')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    },
  );

  it('with --out through the symlink a person named: its target gets the page, the link stays a link', async () => {
    const dir = await ranBoard();
    const elsewhere = path.join(tempDir(), 'latest.html');
    const link = path.join(tempDir(), 'report-link.html');
    symlinkSync(elsewhere, link);
    const result = await runCli(['report', '--out', link], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(elsewhere, 'utf8')).toMatch(/^<!doctype html>/i);
  });

  it('with --out to a pipe (/dev/fd/1 | cat): the page arrives through it, nothing is created beside it', async () => {
    const dir = await ranBoard();
    // A real pipe (execa's own stdout is a socket, which Linux cannot reopen by /proc path).
    const result = await execa('sh', ['-c', `node "$0" report --out /dev/fd/1 | cat`, CLI], {
      cwd: dir,
      reject: false,
      env: { NO_COLOR: '1', PATH: pathWithoutUs() },
      stdin: 'ignore',
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^<!doctype html>/i);
    expect(result.stdout).toMatch(/<\/html>/);
  });
});
