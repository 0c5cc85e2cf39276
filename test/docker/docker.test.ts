import { chownSync, copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, boardWithTasks, copyExampleBoard, events, read, role } from '../helpers.js';
import { survivors, waitFor } from '../hardening/procs.js';

// The image test/docker/ci.sh built from the repository's Dockerfile (on a stand-in Node image).
const IMAGE = process.env.KS_DOCKER_IMAGE ?? 'kanban-supervisor-test/app';
const names: string[] = [];

afterEach(async () => {
  if (names.length) await execa('docker', ['rm', '-f', ...names.splice(0)], { reject: false });
});

/** `docker run` of the image on a board folder, attached, as a person types it (plus a name to find it by). */
function run(dir: string, args: string[] = [], flags: string[] = []) {
  const name = `ks-test-${process.pid}-${names.length}-${Date.now()}`;
  names.push(name);
  const child = execa(
    'docker',
    ['run', '--rm', '--name', name, '--network', 'none', ...flags, '-v', `${dir}:/board`, IMAGE, ...args],
    { reject: false, stdin: 'ignore', timeout: 90_000 },
  );
  return { name, child };
}

/** The host pids of the processes in a container, with their state letters (Z: a zombie). */
async function top(name: string): Promise<Array<{ pid: number; stat: string; command: string }>> {
  const { stdout } = await execa('docker', ['top', name, '-o', 'pid,stat,args']);
  return stdout
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, stat, ...command]) => ({ pid: Number(pid), stat: stat ?? '', command: command.join(' ') }));
}

/** The processes in a container that are zombies, from its own /proc (docker top lists no zombie). */
async function zombiesIn(name: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['exec', name, 'sh', '-c', 'cat /proc/[0-9]*/stat 2>/dev/null']);
  return stdout.split('\n').filter((line) => line.slice(line.lastIndexOf(')') + 2).startsWith('Z'));
}

/** A one-task board whose worker sleeps for five minutes (in the board folder: the container sees only /board). */
function sleepingBoard(): string {
  const dir = boardWithTasks(1, {
    'roles/implementor.md': role(['sh', 'writes-marker.sh', 'markers.txt', '300'], 'stdin: none\n'),
  });
  copyFileSync(path.join(ROOT, 'test/fixtures/agents/writes-marker.sh'), path.join(dir, 'writes-marker.sh'));
  return dir;
}

/** The shipped example board, as `git archive` gives it. */
function exampleBoard(): string {
  const dir = copyExampleBoard();
  expect(read(dir, 'kanban.yaml')).toMatch(/^current: tasks\/001-greet\.md/m);
  return dir;
}

describe('the container image', () => {
  it('runs ./kanban.yaml of the mounted board to the end, and `status` shows it', async () => {
    const dir = exampleBoard();
    const done = await run(dir).child;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/Done: the board has no next task \(3 step\(s\)/);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null/m);
    const status = await run(dir, ['status']).child;
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/tasks\/003-review\.md +Architect +✓ replied ok/);
  });

  it(
    'takes docker stop mid-step as an interrupt: exit 143 well inside the stop timeout, board unchanged, ' +
      'nothing left',
    async () => {
      const dir = sleepingBoard();
      const before = read(dir, 'kanban.yaml');
      const { name, child } = run(dir);
      await waitFor(() => existsSync(path.join(dir, 'markers.txt')), 'the agent to start', 60_000);
      const inside = await top(name);
      expect(inside.map((p) => p.command)).toEqual([
        expect.stringMatching(/^\/usr\/bin\/tini -- kanban-supervisor$/),
        expect.stringMatching(/kanban-supervisor$/),
        'sh writes-marker.sh markers.txt 300',
        'sleep 300',
      ]);
      const stopped = Date.now();
      await execa('docker', ['stop', '-t', '30', name]);
      const result = await child;
      expect(result.exitCode).toBe(143);
      expect(Date.now() - stopped).toBeLessThan(15_000); // not the SIGKILL at the end of the 30 s
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(events(dir).at(-1)).toMatchObject({ type: 'interrupted', exitCode: 143 });
      // The agent was stopped, not left.
      expect(existsSync(path.join(dir, '.kanban-supervisor/agent.json'))).toBe(false);
      expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock'))).toBe(false);
      expect(await survivors(inside.map((p) => p.pid))).toEqual([]);
    },
  );

  it('lets a new container finish the board right after docker kill, without being locked out', async () => {
    const dir = sleepingBoard();
    const { name, child } = run(dir);
    await waitFor(() => existsSync(path.join(dir, 'markers.txt')), 'the agent to start', 60_000);
    await execa('docker', ['kill', name]);
    expect((await child).exitCode).toBe(137);
    expect(existsSync(path.join(dir, '.kanban-supervisor/run.lock/owner.json'))).toBe(true); // left by the killed run
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      role(['sh', 'writes-marker.sh', 'markers.txt'], 'stdin: none\n'),
    );
    const started = Date.now();
    const again = await run(dir).child;
    expect(again.stderr).not.toMatch(/locked/);
    expect(again.exitCode).toBe(0);
    // The dead owner was pid 7 or so in another container: its lock is taken once not refreshed for 10 s.
    expect(Date.now() - started).toBeLessThan(18_000);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null/m);
    expect(read(dir, 'markers.txt')).toBe('tasks/001.md\ntasks/001.md\n');
  });

  it('refuses a second container on a board another container is running, and leaves its agent alone', async () => {
    const dir = sleepingBoard();
    const first = run(dir);
    await waitFor(() => existsSync(path.join(dir, 'markers.txt')), 'the agent to start', 60_000);
    const agents = (await top(first.name)).filter((p) => p.command.startsWith('s'));
    const started = Date.now();
    const second = await run(dir).child;
    expect(second.exitCode).toBe(75);
    expect(second.stderr).toMatch(/kanban\.yaml is locked by another kanban-supervisor \(pid \d+ on /);
    // Its owner's pids cannot be looked up from another container: the lock's next refresh (every 2 s) says it lives.
    expect(Date.now() - started).toBeLessThan(9_000);
    expect((await top(first.name)).filter((p) => p.command.startsWith('s'))).toEqual(agents);
    expect(read(dir, 'markers.txt')).toBe('tasks/001.md\n');
    await execa('docker', ['stop', first.name]);
    expect((await first.child).exitCode).toBe(143);
  });

  it('leaves no zombie under pid 1 while its agents leave orphans (and the check sees them without tini)', async () => {
    const zombies = async (flags: string[]) => {
      const dir = boardWithTasks(4, {
        'roles/implementor.md': role(['sh', 'leaves-orphans.sh', 'tasks/004.md', '4'], 'stdin: none\n'),
      });
      copyFileSync(path.join(ROOT, 'test/docker/agents/leaves-orphans.sh'), path.join(dir, 'leaves-orphans.sh'));
      const { name, child } = run(dir, [], flags);
      await waitFor(() => existsSync(path.join(dir, 'last-step.started')), 'the fourth step', 60_000);
      const inside = await top(name);
      expect(inside.length).toBeGreaterThan(2); // still running: pid 1, the supervisor, the agent
      const found = await zombiesIn(name);
      expect((await child).exitCode).toBe(0);
      return found.length;
    };
    // Twelve short jobs were orphaned by then (three a step); each ended and had to be reaped by pid 1.
    expect(await zombies([])).toBe(0);
    // The supervisor as pid 1 reaps none.
    expect(await zombies(['--entrypoint', 'kanban-supervisor'])).toBeGreaterThanOrEqual(9);
  });

  it('says how to mount the board when run without -v', async () => {
    const name = `ks-test-${process.pid}-${names.length}-${Date.now()}`;
    names.push(name);
    const bare = await execa('docker', ['run', '--rm', '--name', name, '--network', 'none', IMAGE], { reject: false });
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toBe(
      "kanban-supervisor: there is no kanban.yaml in /board: mount your board's folder there. " +
        'In that folder: docker run --rm -v "$PWD:/board" kanban-supervisor',
    );
  });

  it('makes one commit per step of a git_commit board, with the git in the image', async () => {
    const dir = boardWithTasks(3, {
      'roles/implementor.md': role(['sh', 'writes-marker.sh', 'markers.txt'], 'stdin: none\n'),
      '.gitignore': '.kanban-supervisor/\n',
    });
    copyFileSync(path.join(ROOT, 'test/fixtures/agents/writes-marker.sh'), path.join(dir, 'writes-marker.sh'));
    writeFileSync(path.join(dir, 'kanban.yaml'), `${read(dir, 'kanban.yaml')}supervisor:\n  git_commit: true\n`);
    const git = (...args: string[]) => execa('git', ['-C', dir, ...args]);
    await git('init', '-q');
    await git('config', 'user.name', 'Person');
    await git('config', 'user.email', 'person@example.com');
    await git('add', '-A');
    await git('commit', '-qm', 'The board');
    const done = await run(dir).child;
    expect(done.exitCode, done.stderr).toBe(0);
    const log = (await git('log', '--format=%s')).stdout.split('\n');
    expect(log).toEqual([
      expect.stringMatching(/^tasks\/003\.md: Implementor ok/),
      expect.stringMatching(/^tasks\/002\.md: Implementor ok/),
      expect.stringMatching(/^tasks\/001\.md: Implementor ok/),
      'The board',
    ]);
    expect((await git('status', '--porcelain')).stdout).toBe('');
  });

  it('runs a person\'s --user "$(id -u):$(id -g)" on a board that person owns, with a home it can write', async () => {
    const dir = exampleBoard();
    const uid = 1000;
    for (const file of [dir, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f))])
      chownSync(file, uid, uid);
    const done = await run(dir, [], ['--user', `${uid}:${uid}`]).child;
    expect(done.exitCode, done.stderr).toBe(0);
    expect(read(dir, 'kanban.yaml')).toMatch(/^current: null/m);
    expect(statSync(path.join(dir, '.kanban-supervisor')).uid).toBe(uid);
    expect(statSync(path.join(dir, 'kanban.yaml')).uid).toBe(uid);
    const home = await run(
      dir,
      ['-c', 'mkdir -p "$HOME/.config/agent" && echo "$HOME"'],
      ['--user', `${uid}:${uid}`, '--entrypoint', 'sh'],
    ).child;
    expect(home.exitCode, home.stderr).toBe(0);
    expect(home.stdout.trim()).toBe('/home/kanban');
  });
});
