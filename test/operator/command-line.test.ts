import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, fixtureRole, pathWithoutUs, read, runCli, tempDir } from '../helpers.js';

const worker = fixtureRole('scripted.mjs', ['/dev/null']);

/**
 * `dir/kanban-supervisor` as a global install or `npm link` makes it: a link to this very program,
 * made executable as npm does.
 */
function linkProgram(dir: string): string {
  mkdirSync(dir, { recursive: true });
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, path.join(dir, 'kanban-supervisor'));
  return dir;
}

/** A folder for PATH holding the program. */
function installedOnPath(): string {
  return linkProgram(path.join(tempDir(), 'bin'));
}

describe('the board argument', () => {
  it('is ./kanban.yaml when left out, for run, status, validate, report and logs', async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const run = await runCli(['--quiet'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
    expect((await runCli(['status'], { cwd: dir })).stdout).toMatch(/kanban\.yaml/);
    expect((await runCli(['validate'], { cwd: dir })).stdout).toMatch(/^kanban\.yaml: OK/);
    expect((await runCli(['report'], { cwd: dir })).stdout).toMatch(
      /^Wrote \.kanban-supervisor\/report\.html: 1 run\(s\)/,
    );
    expect((await runCli(['logs'], { cwd: dir })).stdout).toMatch(/^Manager after tasks\/002\.md · run /);
  });

  it('is the kanban.yaml inside a folder given instead', async () => {
    const dir = boardWithTasks(2, { 'roles/implementor.md': worker });
    const parent = path.dirname(dir);
    const name = path.basename(dir);
    expect((await runCli(['validate', name], { cwd: parent })).stdout).toBe(
      `${name}/kanban.yaml: OK — 2 task file(s) and 2 role file(s) (Implementor, Manager) checked.`,
    );
    const run = await runCli([name, '--once', '--quiet'], { cwd: parent });
    expect(run.exitCode).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/002\.md$/m);
    expect(run.stdout).toMatch(/Run again to continue: .*kanban-supervisor/);
    expect((await runCli(['logs', '.', '--stdout'], { cwd: dir })).stdout).toContain('"next_task":"tasks/002.md"');
  });
});

describe('hints and help', () => {
  it(
    'name npx kanban-supervisor when the program is not on PATH, and kanban-supervisor when PATH finds this very ' +
      'program',
    async () => {
      const off = await runCli(['help']);
      expect(off.exitCode).toBe(0);
      expect(off.stdout).toMatch(/^ {2}npx kanban-supervisor init my-board {14}scaffold/m);
      const bin = installedOnPath();
      const on = await runCli(['help'], { env: { PATH: `${bin}${path.delimiter}${pathWithoutUs()}` } });
      expect(on.stdout).toMatch(/^ {2}kanban-supervisor init my-board {14}scaffold/m);
      expect(on.stdout).not.toContain('npx ');
      const init = await runCli(['init', path.join(tempDir(), 'b')], {
        env: { PATH: `${bin}${path.delimiter}${pathWithoutUs()}` },
      });
      expect(init.stdout).toMatch(/^ {2}3\. Run it: {4}kanban-supervisor \//m);
    },
  );

  it('do not count the node_modules/.bin folders npm adds to PATH for npx and npm run', async () => {
    const project = tempDir();
    const bin = linkProgram(path.join(project, 'node_modules', '.bin'));
    const PATH = `${bin}${path.delimiter}${pathWithoutUs()}`;
    const underNpx = await runCli(['help'], { env: { PATH, npm_command: 'exec' } });
    expect(underNpx.stdout).toMatch(/^ {2}npx kanban-supervisor init my-board/m);
    // Outside npm, such a folder on PATH was put there by the person: the name alone works.
    const byHand = await runCli(['help'], { env: { PATH, npm_command: '' } });
    expect(byHand.stdout).toMatch(/^ {2}kanban-supervisor init my-board/m);
  });

  it('keeps the help columns aligned whichever name the program has', async () => {
    for (const env of [
      {} as Record<string, string>,
      { PATH: `${installedOnPath()}${path.delimiter}${pathWithoutUs()}` },
    ]) {
      const { stdout } = await runCli(['--help'], { env });
      const lines = stdout.split('\n');
      const init = lines.find((l) => l.includes(' init my-board '));
      const cd = lines.find((l) => l.startsWith('  cd my-board'));
      expect(cd?.indexOf('then describe')).toBe(init?.indexOf('scaffold'));
      const usage = lines.find((l) => l.includes(' [run] [board] [options]'));
      const more = lines.find((l) => l.trim().startsWith("an attempt's stdout"));
      expect(more?.indexOf('an attempt')).toBe(usage?.indexOf('run the board'));
      expect(init?.indexOf('scaffold')).toBeGreaterThan(30);
    }
  });

  it('gives the general help for help alone, --help and -h, with exit 0', async () => {
    const help = await runCli(['help']);
    for (const args of [['--help'], ['-h']]) {
      const other = await runCli(args);
      expect(other.exitCode).toBe(0);
      expect(other.stdout).toBe(help.stdout);
    }
    expect(help.stdout).toMatch(/^kanban-supervisor — run CLI agents/);
  });
});

// The system's own Node where it is older than the supported lines (Node 20 on this project's CI machines).
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((file) => {
  try {
    return Number(execFileSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0]) < 22;
  } catch {
    return false;
  }
});

describe('an unsupported Node.js', () => {
  it.skipIf(OLD_NODE === undefined)('is refused with exit 2, the version and the fix, not an internal error', () => {
    const result = spawnSync(OLD_NODE as string, [CLI, '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        String.raw`^kanban-supervisor: needs Node\.js 22 or later \(this is 2?\d\.\d+\.\d+\)\. ` +
          String.raw`Install Node\.js 22 or 24 and run it again\.\n$`,
      ),
    );
    expect(result.stdout).toBe('');
  });
});

describe('the built command', () => {
  it('is executable, as `npx kanban-supervisor` in a clone of the repository runs dist/cli.js itself', () => {
    // tsc writes new files 0644: in a fresh clone the build must set the mode (package.json "build").
    expect(statSync(CLI).mode & 0o111).toBe(0o111);
    expect(execFileSync(CLI, ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
