import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCommand, spawnCommand } from '../../src/agent/invocation.js';
import { parseRole } from '../../src/board/role.js';
import { buildFence } from '../../src/sandbox/fence.js';
import { DEFAULT_HIDDEN } from '../../src/sandbox/hidden.js';
import { gitDirs } from '../../src/sandbox/place.js';
import { agentUser } from '../../src/sandbox/owner.js';
import { fenceProblem, findBubblewrap } from '../../src/sandbox/probe.js';
import { expandPath, sandboxSpec } from '../../src/board/role-sandbox.js';
import { fenceWrapper } from '../../src/sandbox/transform.js';
import { ROOT, tempDir } from '../helpers.js';
import { tablePlace } from './fence-place.js';

const place = tablePlace;

// The argv as [option, its operands…] groups, to look for one mount.
function mounts(args: string[]): string[] {
  return args.join(' ').split(/ (?=--)/);
}

describe('the fence (bubblewrap argv built from a role, the board and this machine)', () => {
  const spec = { write: [], read: [], hide: [], network: true };

  it('shows what the program needs under /tmp (an install or a checkout there) read-only over its fresh /tmp', () => {
    const needed = ['/tmp/ci-x/main/dist', '/tmp/ci-x/main/node_modules', '/usr/local/bin', '/tmp'];
    const files = {
      '/tmp/ci-x/main/dist': 'dir',
      '/tmp/ci-x/main/node_modules': 'dir',
      '/usr/local/bin': 'dir',
    } as const;
    const fence = buildFence(spec, tablePlace({ ...files, '/tmp': 'dir' }, {}, { needed }));
    const m = mounts(fence.args);
    for (const dir of ['/tmp/ci-x/main/dist', '/tmp/ci-x/main/node_modules'])
      expect(m.indexOf(`--ro-bind ${dir} ${dir}`)).toBeGreaterThan(m.indexOf('--tmpfs /tmp'));
    // Not the whole /tmp, and nothing the fence shows anyway (the file system is read-only, not covered).
    expect(m).not.toContain('--ro-bind /tmp /tmp');
    expect(m).not.toContain('--ro-bind /usr/local/bin /usr/local/bin');
    expect(fence.readable).toEqual(['/tmp/ci-x/main/dist', '/tmp/ci-x/main/node_modules']);
  });

  it(
    "makes the whole file system read-only, /tmp fresh, the board writable and the supervisor's state read-only, " +
      'in that order',
    () => {
      const fence = buildFence(spec, place({}));
      expect(fence.args.slice(0, 9)).toEqual([
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--tmpfs',
        '/tmp',
      ]);
      const m = mounts(fence.args);
      expect(m.indexOf('--bind /work/board /work/board')).toBeGreaterThan(m.indexOf('--tmpfs /tmp'));
      expect(m.indexOf('--ro-bind /work/board/.kanban-supervisor /work/board/.kanban-supervisor')).toBeGreaterThan(
        m.indexOf('--bind /work/board /work/board'),
      );
      expect(fence.args.slice(-17)).toEqual([
        ...['--unshare-user', '--uid', '65534', '--gid', '65534', '--cap-drop', 'ALL'],
        ...['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'],
        ...['--setenv', 'TMPDIR', '/tmp', '--chdir', '/work/board', '--'],
      ]);
      // It would take the agent out of the group the supervisor kills.
      expect(fence.args).not.toContain('--new-session');
      expect(fence.args).not.toContain('--die-with-parent'); // it would kill the agent without its kill_grace
      expect(fence.args).not.toContain('--unshare-net');
      expect(fence).toMatchObject({
        program: '/usr/bin/bwrap',
        writable: ['/work/board'],
        readOnly: ['/work/board/.kanban-supervisor'],
        readable: [],
        hidden: [],
        network: true,
      });
    },
  );

  it('cuts the network with network: false', () => {
    expect(buildFence({ ...spec, network: false }, place({})).args).toContain('--unshare-net');
  });

  it('hides the default secrets that exist: a folder under an empty read-only tmpfs, a file under /dev/null', () => {
    const fence = buildFence(spec, place({ '/home/ann/.ssh': 'dir', '/home/ann/.netrc': 'file' }));
    expect(fence.hidden).toEqual(['/home/ann/.ssh', '/home/ann/.netrc']);
    const m = mounts(fence.args);
    expect(m).toContain('--tmpfs /home/ann/.ssh');
    expect(m).toContain('--remount-ro /home/ann/.ssh');
    expect(m).toContain('--ro-bind /dev/null /home/ann/.netrc');
    expect(m.join(' ')).not.toContain('.aws'); // not there, so nothing is mounted over it
  });

  it("hides the real place of a secret reached through a symlink, and the ssh agent's socket", () => {
    const fence = buildFence(
      spec,
      place(
        { '/data/keys': 'dir', '/var/agent/ssh.sock': 'file' },
        { '/home/ann/.ssh': '/data/keys' },
        { stores: ['/var/agent/ssh.sock'] },
      ),
    );
    expect(fence.hidden).toEqual(['/data/keys', '/var/agent/ssh.sock']);
  });

  it(
    'binds declared writable paths (~/ in the home folder, relative in the board folder); ' +
      'a missing one is not bound and is listed',
    () => {
      const fence = buildFence(
        { ...spec, write: ['~/.claude', 'out/../build', '/opt/cache', '~/.codex'] },
        place({ '/home/ann/.claude': 'dir', '/work/board/build': 'dir', '/opt/cache': 'dir' }),
      );
      expect(fence.writable).toEqual(['/work/board', '/home/ann/.claude', '/work/board/build', '/opt/cache']);
      expect(fence.missing).toEqual(['~/.codex']);
      expect(mounts(fence.args)).toContain('--bind /home/ann/.claude /home/ann/.claude');
    },
  );

  it('lets a declared writable path that is also a default hidden one win: it is writable, not hidden', () => {
    const fence = buildFence(
      { ...spec, write: ['~/.config/gh'] },
      place({ '/home/ann/.config/gh': 'dir', '/home/ann/.ssh': 'dir' }),
    );
    expect(fence.hidden).toEqual(['/home/ann/.ssh']);
    expect(fence.writable).toContain('/home/ann/.config/gh');
  });

  it('keeps a secret hidden inside a writable folder: the deeper mount comes after the folder holding it', () => {
    const fence = buildFence(
      { ...spec, write: ['~'], hide: ['~/notes/private'] },
      place({ '/home/ann': 'dir', '/home/ann/.ssh': 'dir', '/home/ann/notes/private': 'file' }),
    );
    const m = mounts(fence.args);
    expect(m.indexOf('--tmpfs /home/ann/.ssh')).toBeGreaterThan(m.indexOf('--bind /home/ann /home/ann'));
    expect(m.indexOf('--ro-bind /dev/null /home/ann/notes/private')).toBeGreaterThan(
      m.indexOf('--bind /home/ann /home/ann'),
    );
  });

  it(
    "keeps the repository's git folders read-only when they " +
      'lie inside a writable path, last, whatever is declared',
    () => {
      const inside = buildFence(
        { ...spec, write: ['.git/hooks'] },
        place({ '/work/board/.git/hooks': 'dir' }, {}, { gitDirs: ['/work/board/.git', '/elsewhere/.git'] }),
      );
      expect(inside.readOnly).toEqual(['/work/board/.kanban-supervisor', '/work/board/.git']);
      const m = mounts(inside.args);
      expect(m.indexOf('--ro-bind /work/board/.git /work/board/.git')).toBeGreaterThan(
        m.indexOf('--bind /work/board/.git/hooks /work/board/.git/hooks'),
      );
      const above = buildFence(spec, place({}, {}, { gitDirs: ['/work/.git'] }));
      // Read-only already: nothing writable holds it.
      expect(above.readOnly).toEqual(['/work/board/.kanban-supervisor']);
    },
  );

  it('keeps the board file, the role files and the Log read-only, last, even if a role declares them writable', () => {
    const own = ['/work/board/kanban.yaml', '/work/board/roles', '/work/board/supervisor.log.md'];
    const fence = buildFence({ ...spec, write: ['roles'] }, place({ '/work/board/roles': 'dir' }, {}, { own }));
    expect(fence.readOnly).toEqual(['/work/board/.kanban-supervisor', ...own]);
    const m = mounts(fence.args);
    expect(m.indexOf('--ro-bind /work/board/roles /work/board/roles')).toBeGreaterThan(
      m.indexOf('--bind /work/board/roles /work/board/roles'),
    );
    expect(m.indexOf('--ro-bind /work/board/kanban.yaml /work/board/kanban.yaml')).toBeGreaterThan(
      m.indexOf('--bind /work/board /work/board'),
    );
    // Role files linked from outside any writable path are read-only already.
    const elsewhere = buildFence(spec, place({}, {}, { own: ['/shared/roles'] }));
    expect(elsewhere.readOnly).toEqual(['/work/board/.kanban-supervisor']);
  });

  it('hides every default only where it exists, and names ~/.ssh, ~/.aws, ~/.gnupg and ~/.config/gh among them', () => {
    expect(DEFAULT_HIDDEN).toEqual(
      expect.arrayContaining([
        '~/.ssh',
        '~/.aws',
        '~/.gnupg',
        '~/.config/gh',
        '~/.netrc',
        '~/.docker',
        '~/.kube',
        '~/.git-credentials',
      ]),
    );
  });

  it("is put before the agent's own argv only when spawned: messages still name the agent's command", () => {
    const fence = buildFence(spec, place({}));
    const invocation = { file: 'claude', args: ['-p', 'hi'], wrap: fenceWrapper(fence) };
    expect(spawnCommand(invocation)).toEqual({
      file: '/usr/bin/bwrap',
      args: ['--seccomp', '3', ...fence.args, 'claude', '-p', 'hi'],
      seccomp: fence.seccomp,
    });
    const asOwner = buildFence(spec, place({}, {}, { user: { uid: 1000, gid: 100 } }));
    expect(spawnCommand({ ...invocation, wrap: fenceWrapper(asOwner) })).toMatchObject({
      user: { uid: 1000, gid: 100 },
    });
    expect(spawnCommand({ file: 'claude', args: ['-p'] })).toEqual({ file: 'claude', args: ['-p'] });
    expect(describeCommand(invocation)).toBe('claude -p hi');
  });
});

describe('sandbox: in a role file', () => {
  it.each([
    ['sandbox: true', { write: [], read: [], hide: [], network: true }],
    ['sandbox: false', undefined],
    [
      'sandbox: {write: [~/.cache/x, out], network: false}',
      { write: ['~/.cache/x', 'out'], read: [], hide: [], network: false },
    ],
    ['sandbox: {hide: [secrets]}', { write: [], read: [], hide: ['secrets'], network: true }],
    ['sandbox: {read: [~/.gitconfig]}', { write: [], read: ['~/.gitconfig'], hide: [], network: true }],
  ])('%s', (line, expected) => {
    const check = parseRole('roles/a.md', 'A', `---\ncommand: [agent]\n${line}\n---\nDo it.\n`);
    expect(check.problems).toEqual([]);
    expect(check.role?.sandbox).toEqual(expected);
  });

  it.each([
    [
      'sandbox: {writable: [x]}',
      'front-matter sandbox has an unknown key "writable". sandbox: knows write, read, copy, hide, network.',
    ],
    ['sandbox: {netwrk: false}', 'front-matter sandbox has an unknown key "netwrk". Did you mean network?'],
    [
      'sandbox: yes',
      'front-matter sandbox must be a boolean or an object (got "yes"). Use `sandbox: true`, ' +
        'or a map such as `sandbox: {write: [~/.cache/tool], read: [~/.gitconfig], network: false}`.',
    ],
  ])('refuses %s with one problem, its line and the fix', (line, message) => {
    const check = parseRole('roles/a.md', 'A', `---\ncommand: [agent]\n${line}\n---\nDo it.\n`);
    expect(check.problems).toEqual([{ file: 'roles/a.md', line: 3, message }]);
  });

  it('expands paths: ~ to the home folder, relative to the board folder, none for ~/ without a home', () => {
    expect(expandPath('~', '/b', '/home/ann')).toBe('/home/ann');
    expect(expandPath('~/x/../y', '/b', '/home/ann')).toBe('/home/ann/y');
    expect(expandPath('cache', '/b', '/h')).toBe('/b/cache');
    expect(expandPath('/opt//c/', '/b', '/h')).toBe('/opt/c');
    expect(expandPath('~/x', '/b', undefined)).toBeUndefined();
    expect(sandboxSpec(undefined)).toBeUndefined();
  });
});

describe('where the fence cannot be built', () => {
  it('says so with the fix: not Linux, bwrap missing, user namespaces off', () => {
    expect(findBubblewrap({ PATH: '/usr/bin' }, '/', 'darwin')).toEqual({
      problem: expect.stringMatching(/needs Linux.*darwin.*never unfenced.*remove `sandbox:`/) as string,
    });
    const empty = tempDir();
    expect(findBubblewrap({ PATH: empty }, '/', 'linux')).toEqual({
      problem: expect.stringMatching(/bwrap\) was not found on PATH.*apt install bubblewrap/) as string,
    });
    const bin = tempDir();
    writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const refused = fenceProblem(true, { PATH: bin }, '/', undefined, () => ({
      ok: false,
      stderr: 'bwrap: No permissions to creating new namespace',
    }));
    expect(refused).toMatch(/said: No permissions to creating new namespace.*kernel\.unprivileged_userns_clone=1/);
    expect(fenceProblem(true, { PATH: bin }, '/', undefined, () => ({ ok: true, stderr: '' }))).toBeUndefined();
    expect(findBubblewrap({ PATH: bin }, '/', 'linux', 'ppc64')).toEqual({
      problem: expect.stringMatching(/seccomp filter knows the system calls of x86_64 and aarch64 only; this is ppc64/),
    });
    // Run as the board folder's owner when the supervisor is root: the probe runs as that user, and says so.
    const seen: unknown[] = [];
    const asOwner = fenceProblem(true, { PATH: bin }, '/', { uid: 1000, gid: 1000 }, (program, args, options) => {
      seen.push(options);
      return { ok: false, stderr: 'bwrap: setting up uid map: Permission denied' };
    });
    expect(asOwner).toMatch(/cannot build a fence on this machine as uid 1000, the board folder's owner/);
    expect(seen).toEqual([{ input: expect.any(Uint8Array) as Uint8Array, user: { uid: 1000, gid: 1000 } }]);
  });
});

describe.skipIf(process.getuid?.() !== 0)('who a fenced agent is on the host, the supervisor run by root', () => {
  it("is the board folder's owner; a folder root owns, or one its owner cannot reach, is refused with the fix", () => {
    const parent = tempDir();
    const board = path.join(parent, 'board');
    mkdirSync(board);
    expect(agentUser(board).problem).toMatch(/belongs to root, .*chown -R USER: .*or run the supervisor as an/);
    chownSync(board, 4242, 0);
    chmodSync(parent, 0o700);
    expect(agentUser(board).problem).toMatch(/owner \(uid 4242\), and a folder above .* is closed to that user/);
    chmodSync(parent, 0o755);
    expect(agentUser(board)).toEqual({ user: { uid: 4242, gid: 4242 } }); // never root's group
    chownSync(board, 4242, 100);
    expect(agentUser(board)).toEqual({ user: { uid: 4242, gid: 100 } });
    expect(agentUser(board, 1000)).toEqual({}); // not root: the agent is the supervisor's own user
  });
});

describe("the repository's git folders", () => {
  it('are the nearest .git folder up the tree, or for a worktree its .git file, git folder and the common one', () => {
    const root = tempDir();
    mkdirSync(path.join(root, 'repo/.git/worktrees/wt'), { recursive: true });
    mkdirSync(path.join(root, 'repo/board'), { recursive: true });
    expect(gitDirs(path.join(root, 'repo/board'))).toEqual([path.join(root, 'repo/.git')]);
    mkdirSync(path.join(root, 'wt/board'), { recursive: true });
    writeFileSync(path.join(root, 'wt/.git'), `gitdir: ${path.join(root, 'repo/.git/worktrees/wt')}\n`);
    writeFileSync(path.join(root, 'repo/.git/worktrees/wt/commondir'), '../..\n');
    expect(gitDirs(path.join(root, 'wt/board'))).toEqual([
      path.join(root, 'wt/.git'),
      path.join(root, 'repo/.git/worktrees/wt'),
      path.join(root, 'repo/.git'),
    ]);
  });
});

describe('copy: a copy of its own, thrown away when the agent ends', () => {
  it(
    'mounts a fresh folder of its own holding a copy of each file of a folder, a file as a copy bound where it was; ' +
      'the originals are read from file descriptors, never mounted',
    () => {
      const files = {
        '/home/ann': 'dir',
        '/home/ann/.claude': 'dir',
        '/home/ann/.claude/settings.json': 'file',
        '/home/ann/.claude/.credentials.json': 'file',
        '/home/ann/.claude.json': 'file',
        '/home/ann/.ssh': 'dir',
      } as const;
      const fence = buildFence(
        { write: [], read: [], copy: ['~/.claude', '~/.claude.json'], hide: [], network: true },
        place(
          files,
          {},
          {
            homes: ['/home/ann'],
            filesIn: (dir) =>
              Object.keys(files)
                .filter((file) => path.dirname(file) === dir && files[file as keyof typeof files] === 'file')
                .map((real) => ({ name: path.basename(real), real })),
          },
        ),
      );
      const m = mounts(fence.args);
      expect(m).toContain('--tmpfs /home/ann/.claude');
      expect(m).toContain('--perms 0600');
      expect(m).toContain('--file 4 /home/ann/.claude/settings.json');
      expect(m).toContain('--file 5 /home/ann/.claude/.credentials.json');
      expect(m).toContain('--bind-data 6 /home/ann/.claude.json');
      expect(fence.copies).toEqual([
        '/home/ann/.claude/settings.json',
        '/home/ann/.claude/.credentials.json',
        '/home/ann/.claude.json',
      ]);
      expect(fence.copied).toEqual(['/home/ann/.claude', '/home/ann/.claude.json']);
      // Never the original mounted, never writable.
      expect(fence.args.join(' ')).not.toMatch(/--(ro-)?bind \/home\/ann/);
      expect(fence.writable).toEqual(['/work/board']);
    },
  );
});

describe('the presets of Claude Code, Codex and Gemini CLI', () => {
  const own = { claude: ['~/.claude', '~/.claude.json'], codex: ['~/.codex'], gemini: ['~/.gemini'] };
  it.each(Object.entries(own))(
    "%s: each role file declares, ready to uncomment, a copy of the CLI's own files (never the user's own)",
    (cli, copy) => {
      const dir = path.join(ROOT, 'presets', cli);
      for (const name of readdirSync(dir)) {
        const text = readFileSync(path.join(dir, name), 'utf8');
        expect(text).toMatch(/^# sandbox: \{copy: /m);
        const check = parseRole(`roles/${name}`, 'A', text.replace(/^# (sandbox: \{copy: .*)$/m, '$1'));
        expect(check.problems).toEqual([]);
        expect(check.role?.sandbox).toEqual({ write: [], read: [], copy, hide: [], network: true });
      }
    },
  );
});
