import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, pathWithoutUs, role, SEQUENTIAL_MANAGER } from '../helpers.js';
import { OWNER, reachableByAll } from './fenced-users.js';
import { fixture } from './procs.js';

// What a fenced agent leaves behind, with real bubblewrap, the supervisor run as root and as an ordinary user.
const ROOT_USER = process.getuid?.() === 0;
const BWRAP = existsSync('/usr/bin/bwrap');
const PYTHON = '/usr/bin/python3';
const NOBODY = 65534;
const STRANGER = 4343; // another local user, who finds what the agent left
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A folder outside /tmp (the fence's /tmp is a fresh one) that every user may read, removed after the tests. */
function outside(prefix: string): string {
  const dir = mkdtempSync(`/var/tmp/${prefix}`);
  made.push(dir);
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * A board whose Implementor runs `command` with `sandbox: true`, owned by `uid`, open to every user to read. The
 * Manager is fenced too: it writes the task files, which are not root's (root's own writes refuse another's folder).
 */
function board(uid: number, command: string[], settings = '', files: Record<string, string> = {}): string {
  const dir = boardWithTasks(
    1,
    {
      'roles/implementor.md': role(command, 'stdin: none\nsandbox: true\n'),
      'roles/manager.md': SEQUENTIAL_MANAGER.replace('stdin: json\n', 'stdin: json\nsandbox: true\n'),
      ...files,
    },
    `phase: execute\nsupervisor:\n  kill_grace: 1s\n${settings}`,
  );
  chmodSync(dir, 0o755);
  execFileSync('chown', ['-R', `${uid}:${uid}`, dir]);
  return dir;
}

/**
 * Run the built CLI in `dir` as `uid` (through setpriv for an ordinary user), started from a session
 * keyring of its own that holds a secret, as a person's login session may (Kerberos, aws-vault); never rejects.
 */
function run(uid: number, dir: string, args: string[] = ['kanban.yaml'], env: Record<string, string> = {}) {
  const cli = [process.execPath, CLI, ...args];
  const argv = uid === 0 ? cli : ['setpriv', '--reuid', String(uid), '--regid', String(uid), '--clear-groups', ...cli];
  const keyring =
    'import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); libc.syscall(250, 1, b"ks-fence-test"); ' +
    'libc.syscall(248, b"user", b"ks-fence-secret", b"s3cret-from-the-keyring", 23, ctypes.c_long(-3)); ' +
    'os.execvp(sys.argv[1], sys.argv[1:])';
  return execa(PYTHON, ['-c', keyring, ...argv], {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    env: { NO_COLOR: '1', PATH: pathWithoutUs(), HOME: outside('ks-home-'), ...env },
    extendEnv: false,
  });
}

/** Every file and folder under `dir`, its path relative to it. */
function walk(dir: string, under = ''): string[] {
  return readdirSync(path.join(dir, under)).flatMap((name) => {
    const file = path.join(under, name);
    return statSync(path.join(dir, file)).isDirectory() && name !== '.git' ? [file, ...walk(dir, file)] : [file];
  });
}

describe.skipIf(!ROOT_USER || !BWRAP).each([
  ['root', 0, OWNER],
  ['an ordinary user', NOBODY, NOBODY],
])('what a fenced agent makes, the supervisor run as %s', (_who, uid, owner) => {
  let restore = () => {};
  beforeAll(() => {
    restore = reachableByAll([process.execPath, CLI, fixture('fence-owns.py')]);
  });
  afterAll(() => restore());

  it(
    'carries no setuid or setgid bit and no file capability however the agent tries, is not root’s on the host, ' +
      'and a second local user who runs it gets only their own id; the agent cannot read the keyring it was started with',
    async () => {
      const dir = board(uid === 0 ? OWNER : uid, [PYTHON, fixture('fence-owns.py')]);
      const result = await run(uid, dir);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(readFileSync(path.join(dir, 'owns.log'), 'utf8').split('\n').filter(Boolean)).toEqual([
        'chmod 4755 refused',
        'chmod 2755 refused',
        'chmod u+s (the program) refused',
        'open O_CREAT 04755 refused',
        'fchmod 4755 refused',
        'mknod regular 04755 refused',
        'mkdir 2775 refused',
        'fchmodat2 4755 refused',
        'openat2 04755 refused',
        'io_uring refused',
        'setxattr security.capability refused',
        'setxattr security.capability in a user namespace refused',
        'keyring read refused',
        'keyctl refused',
      ]);
      const files = walk(dir);
      expect(files.filter((file) => statSync(path.join(dir, file)).mode & 0o6000)).toEqual([]);
      expect(() => execFileSync('getcap', [path.join(dir, 'rootsh')], { encoding: 'utf8' })).not.toThrow();
      expect(execFileSync('getcap', [path.join(dir, 'rootsh')], { encoding: 'utf8' })).toBe('');
      // On the host, what it made is the board folder's owner's: never root's.
      for (const file of ['made.txt', 'rootsh', 'owns.log']) expect(statSync(path.join(dir, file)).uid).toBe(owner);
      const stranger = execFileSync(
        'setpriv',
        [
          '--reuid',
          String(STRANGER),
          '--regid',
          String(STRANGER),
          '--clear-groups',
          './rootsh',
          '-p',
          '-c',
          'id -u; id -g',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      expect(stranger).toBe(`${STRANGER}\n${STRANGER}\n`);
      expect(events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor')).toMatchObject({
        valid: true,
      });
    },
  );
});

describe.skipIf(!ROOT_USER || !BWRAP).each([
  ['root', 0, OWNER],
  ['an ordinary user', NOBODY, NOBODY],
])('the git folder of a board, the supervisor run as %s', (_who, uid, owner) => {
  let restore = () => {};
  beforeAll(() => {
    restore = reachableByAll([process.execPath, CLI]);
  });
  afterAll(() => restore());

  it(
    'is the one git itself resolves, read-only in the fence, when .git is a symlink to a gitfile with a relative ' +
      'gitdir: (read by git from where the link is): a clean filter the agent would add never runs in the commit',
    async () => {
      // Writable by the supervisor's own user (an unfenced filter could touch it), read-only inside the fence.
      const marks = outside('ks-marks-');
      chownSync(marks, uid, uid);
      const mark = path.join(marks, 'filter-ran');
      const agent =
        `if printf '[filter "x"]\\n\\tclean = touch ${mark}; cat\\n' >> real.git/config 2>/dev/null; ` +
        `then echo wrote > wrote.txt; fi; echo '* filter=x' > .gitattributes; echo '{"status":"ok","message":"ok"}'`;
      const dir = board(0, ['sh', '-c', agent], '  git_commit: true\n');
      const global = path.join(outside('ks-git-'), 'gitconfig');
      // A board another user owns is a repository root's git refuses unless told it is safe.
      writeFileSync(global, '[safe]\n\tdirectory = *\n', { mode: 0o644 });
      const env = { GIT_CONFIG_GLOBAL: global, GIT_CONFIG_NOSYSTEM: '1' };
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('config', 'user.name', 'Night Run');
      git('config', 'user.email', 'night@example.com');
      git('add', '-A');
      git('commit', '-q', '-m', 'the board');
      // git reads `gitdir: real.git` from the board folder, where .git is; the link's target lies in decoy/.
      renameSync(path.join(dir, '.git'), path.join(dir, 'real.git'));
      mkdirSync(path.join(dir, 'decoy'));
      writeFileSync(path.join(dir, 'decoy/gitfile'), 'gitdir: real.git\n');
      symlinkSync('decoy/gitfile', path.join(dir, '.git'));
      expect(git('rev-parse', '--absolute-git-dir').trim()).toBe(path.join(dir, 'real.git'));
      execFileSync('chown', ['-R', '-h', `${owner}:${owner}`, dir]);
      const config = readFileSync(path.join(dir, 'real.git/config'), 'utf8');
      const result = await run(uid, dir, ['kanban.yaml'], env);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(existsSync(path.join(dir, 'wrote.txt'))).toBe(false);
      expect(readFileSync(path.join(dir, 'real.git/config'), 'utf8')).toBe(config);
      expect(existsSync(mark)).toBe(false);
      expect(git('log', '--format=%s').trim().split('\n')).toHaveLength(2); // the step was committed
    },
  );
});
