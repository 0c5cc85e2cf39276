import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, pathWithoutUs, role, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { OWNER, reachableByAll } from './fenced-users.js';
import { fixture, isRunning, processesIn, survivors } from './procs.js';

// Real bubblewrap, run as root and as an ordinary user (nobody, with a home of its own).
const ROOT_USER = process.getuid?.() === 0;
const BWRAP = existsSync('/usr/bin/bwrap');
const NOBODY = 65534;
// Run by root, the boards and homes here belong to OWNER: the fenced agent runs as the board folder's owner.
const owner = (uid: number) => (uid === 0 ? OWNER : uid);
const homes: string[] = [];
afterAll(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

/**
 * A folder outside /tmp (the fence's /tmp is a fresh one, which would hide anything under the
 * real one) with `files` in it, owned by `uid`, removed after the tests.
 */
function outside(uid: number, prefix: string, files: Record<string, string>): string {
  const dir = mkdtempSync(`/var/tmp/${prefix}`);
  homes.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  }
  execFileSync('chown', ['-R', `${uid}:${uid}`, dir]);
  return dir;
}

/** A home folder with secrets in it, none of them on a list of known ones but ~/.ssh, and a ~/.gitconfig. */
const home = (uid: number): string =>
  outside(owner(uid), 'ks-home-', {
    '.ssh/id_rsa': "-----BEGIN OPENSSH PRIVATE KEY----- the owner's\n",
    '.config/git/credentials': 'https://ann:ghp_secret@github.com\n',
    '.npmrc': '//registry.npmjs.org/:_authToken=npm_secret\n',
    '.some-secret': 'nobody listed this one\n',
    '.gitconfig': '[user]\n  name = Ann\n',
  });

// The probe agents are copied into each board: a checkout under /tmp (a CI's mktemp -d) is hidden by
// the fence's own /tmp.
const PROBE = 'fence-probe.sh';
const ESCAPE = 'fence-escape.sh';

/**
 * A board whose Implementor runs `command` fenced, with the probe agent in it, owned by `uid` (by OWNER for
 * root). Its Manager is fenced too: it writes the task files, which are not root's to write.
 */
function board(uid: number, command: string[], extra = '', settings = ''): string {
  const dir = boardWithTasks(
    1,
    {
      'roles/implementor.md': role(command, `stdin: none\n${extra}`),
      'roles/manager.md': SEQUENTIAL_MANAGER.replace('stdin: json\n', 'stdin: json\nsandbox: true\n'),
      [PROBE]: readFileSync(fixture(PROBE), 'utf8'),
      [ESCAPE]: readFileSync(fixture(ESCAPE), 'utf8'),
    },
    `phase: execute\nsupervisor:\n  kill_grace: 1s\n${settings}`,
  );
  execFileSync('chown', ['-R', `${owner(uid)}:${owner(uid)}`, dir]);
  chownSync(dir, owner(uid), owner(uid));
  return dir;
}

/** Run the built CLI in `dir` as `uid` (through setpriv for an ordinary user); never rejects. */
function run(uid: number, dir: string, homeDir: string, args = ['kanban.yaml'], env: Record<string, string> = {}) {
  return asUser(uid, dir, homeDir, [process.execPath, CLI, ...args], env);
}

/**
 * Run the built CLI as `uid` in a real terminal (a pty of script(1), opened as that user), as a
 * person at a keyboard would: the board gets the terminal's name in tty.txt.
 */
function runInTerminal(uid: number, dir: string, homeDir: string, env: Record<string, string>) {
  const cli = [process.execPath, CLI, 'kanban.yaml'].map((word) => `'${word}'`).join(' ');
  return asUser(uid, dir, homeDir, ['script', '-qec', `tty > tty.txt; exec ${cli}`, '/dev/null'], env);
}

function asUser(uid: number, dir: string, homeDir: string, argv: string[], env: Record<string, string>) {
  const [file, ...rest] =
    uid === 0 ? argv : ['setpriv', '--reuid', String(uid), '--regid', String(uid), '--clear-groups', ...argv];
  return execa(file as string, rest, {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    env: { NO_COLOR: '1', PATH: pathWithoutUs(), HOME: homeDir, ...env },
    extendEnv: false,
  });
}

/** Processes whose argv is `sleep <seconds>`: the sleepers an agent started under a token of its own. */
function sleepers(seconds: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0` && isRunning(Number(entry))
          ? [Number(entry)]
          : [];
      } catch {
        return [];
      }
    });
}

let count = 0;
const token = () => `${process.pid}${++count}`;
const fenceLog = (dir: string) => readFileSync(path.join(dir, 'fence.log'), 'utf8').split('\n').filter(Boolean);

describe.skipIf(!ROOT_USER || !BWRAP).each([
  ['root', 0],
  ['an ordinary user', NOBODY],
])('a fenced agent (sandbox: true), the supervisor run as %s', (_who, uid) => {
  // Node and the CLI may lie under /root: the supervisor run as nobody, and the fenced agent as OWNER, must reach them.
  beforeAll(() => reachableByAll([process.execPath, CLI]));
  it(
    "cannot write the home folder or the real /tmp, read ~/.ssh or the supervisor's state, " +
      'change a role file or kanban.yaml, nor leave a setsid sleeper; its board write and reply go through',
    async () => {
      const t = token();
      const h = home(uid);
      const dir = board(uid, ['sh', PROBE, t], 'sandbox: true\n');
      const manager = readFileSync(path.join(dir, 'roles/manager.md'), 'utf8');
      const result = await run(uid, dir, h);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(fenceLog(dir)).toEqual([
        'home refused',
        'tmp ok',
        'ssh refused',
        'state refused',
        'config refused',
        'log refused',
        'TMPDIR=/tmp',
      ]);
      expect(readFileSync(path.join(dir, 'supervisor.log.md'), 'utf8')).toBe('## Supervisor Log\n\n');
      expect(readFileSync(path.join(dir, 'roles/manager.md'), 'utf8')).toBe(manager);
      expect(existsSync(path.join(dir, 'roles/planted.md'))).toBe(false);
      expect(existsSync(path.join(h, `${t}.home`))).toBe(false);
      expect(existsSync(`/tmp/${t}.tmp`)).toBe(false); // it wrote into its own /tmp, gone with it
      expect(readFileSync(path.join(dir, 'board-write.txt'), 'utf8')).toBe('board write\n');
      expect(existsSync(path.join(dir, '.kanban-supervisor/planted'))).toBe(false);
      expect(events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor')).toMatchObject({
        end: 'exited',
        valid: true,
      });
      expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/current: null/);
      expect(await survivors(sleepers(`86${t}`))).toEqual([]);
      expect(sleepers(`86${t}`)).toEqual([]);
      expect(processesIn(dir)).toEqual([]);
    },
  );

  it(
    "holds no capability, cannot undo a mount, reach a device, another process's memory or the terminal, " +
      'nor read the home folder but what sandbox.read declares, nor a KUBECONFIG elsewhere',
    async () => {
      const h = home(uid);
      const kube = path.join(
        outside(owner(uid), 'ks-kube-', { config: 'users: [{name: admin, token: kube_secret}]\n' }),
        'config',
      );
      const other = execa('sleep', [`85${token()}`], { reject: false });
      const dir = board(uid, ['sh', ESCAPE, String(other.pid)], 'sandbox: {read: [~/.gitconfig]}\n');
      execFileSync('mknod', [path.join(dir, 'planted-null'), 'c', '1', '3']);
      chownSync(path.join(dir, 'planted-null'), uid, uid);
      try {
        const result = await runInTerminal(uid, dir, h, { KUBECONFIG: kube });
        expect(result.exitCode, result.stdout).toBe(0);
        expect(readFileSync(path.join(dir, 'tty.txt'), 'utf8')).toMatch(/^\/dev\/pts\/\d+\n$/);
        expect(readFileSync(path.join(dir, 'escape.log'), 'utf8').split('\n').filter(Boolean)).toEqual([
          'caps 0000000000000000',
          'bounding 0000000000000000',
          'read credentials refused',
          'read .npmrc refused',
          'read .some-secret refused',
          'read config refused',
          'read .gitconfig ok',
          'tty refused',
          'node refused',
          'remount refused',
          'mount refused',
          'devices refused',
          'unhide refused',
          'nested refused',
          'ptrace refused',
          'inject refused',
        ]);
      } finally {
        other.kill('SIGKILL');
        await other;
      }
    },
  );

  it('that outlives its timeout, ignoring SIGTERM, is killed with what it started inside (setsid too)', async () => {
    const t = token();
    const hang = `trap '' TERM; setsid sleep 86${t} </dev/null >/dev/null 2>&1 & sleep 87${t}; echo never`;
    const dir = board(uid, ['sh', '-c', hang], 'sandbox: true\n', '  timeout: 2s\n  max_retries: 0\n');
    const started = Date.now();
    const result = await run(uid, dir, home(uid));
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/the last one timed out after 2\.0s/);
    // Events and messages name the agent's own command, not bubblewrap's.
    expect(events(dir).find((e) => e.type === 'attempt_started' && e.role === 'Implementor')).toMatchObject({
      command: expect.stringMatching(/^sh -c /) as string,
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await survivors([...sleepers(`86${t}`), ...sleepers(`87${t}`)])).toEqual([]);
    expect(processesIn(dir)).toEqual([]);
  });

  it(
    'runs its program from the home folder (a PATH folder there and its lib, linked into its package) ' +
      'on a board kept in the home folder, and sees nothing else there',
    async () => {
      const h = home(uid);
      const tool = '.local/share/tool';
      const lib = `${tool}/lib/reply.sh`;
      const files = {
        [`${tool}/package.json`]: '{}\n',
        [lib]:
          'cat "$HOME/.some-secret" > seen.txt 2>&1; ls -A "$HOME" >> seen.txt\n' +
          'echo \'{"status":"ok","message":"from home"}\'\n',
        [`${tool}/bin/agent`]: `#!/bin/sh\n. "$HOME/.local/lib/sh/setup.sh"\n. "$HOME/${lib}"\n`,
        '.local/lib/sh/setup.sh': 'echo set up > set-up.txt\n',
      };
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(h, name)), { recursive: true });
        writeFileSync(path.join(h, name), text, { mode: 0o755 });
      }
      mkdirSync(path.join(h, '.local/bin'));
      symlinkSync(`../share/tool/bin/agent`, path.join(h, '.local/bin/agent'));
      const dir = path.join(h, 'work/board');
      cpSync(board(uid, ['agent'], 'sandbox: true\n'), dir, { recursive: true });
      execFileSync('chown', ['-R', `${owner(uid)}:${owner(uid)}`, h]);
      const result = await run(uid, dir, h, ['kanban.yaml'], { PATH: `${h}/.local/bin:${pathWithoutUs()}` });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readFileSync(path.join(dir, 'set-up.txt'), 'utf8')).toBe('set up\n');
      expect(readFileSync(path.join(dir, 'seen.txt'), 'utf8').split('\n')).toEqual([
        expect.stringMatching(/\.some-secret: No such file or directory$/),
        '.local',
        'work',
        '',
      ]);
      expect(events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor')).toMatchObject({
        valid: true,
      });
    },
  );

  it('cannot connect to a server on 127.0.0.1 with network: false, and can with the network on', async () => {
    const server: Server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as { port: number }).port);
    try {
      for (const [network, expected] of [
        ['false', 'net refused'],
        ['true', 'net ok'],
      ] as const) {
        const t = token();
        const dir = board(uid, ['sh', PROBE, t, port], `sandbox: {network: ${network}}\n`);
        const result = await run(uid, dir, home(uid));
        expect(result.exitCode).toBe(0);
        expect(fenceLog(dir)).toContain(expected);
      }
    } finally {
      server.close();
    }
  });
});

describe.skipIf(!ROOT_USER || !BWRAP)('a fenced agent, more ends of an attempt', () => {
  beforeAll(() => reachableByAll([process.execPath, CLI]));
  it('runs a program kept under /tmp, outside the board, with the package it loads: shown read-only there', async () => {
    // A package in a temp folder (a CI's mktemp -d checkout, an npm prefix there): the fence's /tmp is fresh.
    const pkg = tempDir('ks-pkg-');
    chmodSync(pkg, 0o755);
    mkdirSync(path.join(pkg, 'node_modules', 'greeting'), { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), '{"name": "agent", "type": "module"}\n');
    writeFileSync(
      path.join(pkg, 'node_modules', 'greeting', 'package.json'),
      '{"name": "greeting", "main": "index.js"}\n',
    );
    writeFileSync(path.join(pkg, 'node_modules', 'greeting', 'index.js'), "module.exports = 'from the package';\n");
    writeFileSync(
      path.join(pkg, 'agent.mjs'),
      "import greeting from 'greeting';\nimport { writeFileSync } from 'node:fs';\n" +
        "try { writeFileSync(new URL('planted.txt', import.meta.url), 'x'); } catch {}\n" +
        'console.log(JSON.stringify({ status: "ok", message: greeting }));\n',
    );
    const dir = board(0, ['node', path.join(pkg, 'agent.mjs')], 'sandbox: true\n');
    const result = await run(0, dir, home(0));
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    // The import of the package succeeded, or node would have ended before its reply.
    expect(events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor')).toMatchObject({
      end: 'exited',
      valid: true,
    });
    expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toMatch(/current: null/);
    expect(existsSync(path.join(pkg, 'planted.txt'))).toBe(false); // read-only
  });

  it('that goes quiet past its idle timeout is stopped with everything it started', async () => {
    const t = token();
    const dir = board(
      0,
      ['sh', '-c', `echo working; setsid sleep 86${t} </dev/null >/dev/null 2>&1 & sleep 87${t}`],
      'sandbox: true\nidle_timeout: 1s\n',
      '  max_retries: 0\n',
    );
    const result = await run(0, dir, home(0));
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/no output for 1\.0s|idle/);
    expect(await survivors([...sleepers(`86${t}`), ...sleepers(`87${t}`)])).toEqual([]);
  });

  it('gets its kill_grace to clean up when stopped at its timeout, as an unfenced agent does', async () => {
    const t = token();
    const cleanUp = `trap 'sleep 0.3; echo cleaned > cleaned.txt; exit 0' TERM; sleep 87${t} & wait`;
    const dir = board(0, ['sh', '-c', cleanUp], 'sandbox: true\ntimeout: 1s\n', '  max_retries: 0\n');
    const result = await run(0, dir, home(0));
    expect(result.exitCode).toBe(3);
    expect(readFileSync(path.join(dir, 'cleaned.txt'), 'utf8')).toBe('cleaned\n');
    expect(await survivors(sleepers(`87${t}`))).toEqual([]);
  });

  it('left running by a supervisor killed with SIGKILL, is stopped by the next run before it starts', async () => {
    const t = token();
    const dir = board(
      0,
      ['sh', '-c', `setsid sleep 86${t} </dev/null >/dev/null 2>&1 & sleep 87${t}`],
      'sandbox: true\n',
    );
    const h = home(0);
    const cli = run(0, dir, h);
    const end = Date.now() + 20_000;
    while (sleepers(`87${t}`).length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sleepers(`87${t}`)).toHaveLength(1);
    cli.kill('SIGKILL');
    await cli;
    writeFileSync(
      path.join(dir, 'roles/implementor.md'),
      role(['sh', '-c', 'echo \'{"status": "ok", "message": "done"}\''], 'stdin: none\nsandbox: true\n'),
    );
    const again = await run(0, dir, h);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(
      events(dir)
        .filter((e) => e.type === 'run_started')
        .at(-1),
    ).toMatchObject({ stoppedLeftoverAgent: { role: 'Implementor' } });
    expect(await survivors([...sleepers(`86${t}`), ...sleepers(`87${t}`)])).toEqual([]);
  });

  it('writes its declared paths, but not the git hooks of the repository holding the board folder', async () => {
    const h = home(0);
    mkdirSync(path.join(h, '.cache/tool'), { recursive: true });
    const agent =
      'echo cached > "$HOME/.cache/tool/done"; if echo evil > .git/hooks/pre-commit 2>/dev/null; ' +
      'then echo planted > hook.txt; fi; echo \'{"status":"ok","message":"ok"}\'';
    const dir = board(0, ['sh', '-c', agent], 'sandbox: {write: [~/.cache/tool]}\n');
    execFileSync('git', ['init', '-q', dir]);
    // All the agent's own on the host, so that only the fence keeps it out of .git.
    for (const mine of [h, dir]) execFileSync('chown', ['-R', `${OWNER}:${OWNER}`, mine]);
    const result = await run(0, dir, h);
    expect(result.exitCode).toBe(0);
    expect(readFileSync(path.join(h, '.cache/tool/done'), 'utf8')).toBe('cached\n');
    expect(existsSync(path.join(dir, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(path.join(dir, 'hook.txt'))).toBe(false);
  });

  it(
    'cannot plant a hook in a hooks folder the repository keeps in the board folder (core.hooksPath, ' +
      'as husky does)',
    async () => {
      const agent =
        'if echo evil > .husky/pre-commit 2>/dev/null; then echo planted > hook.txt; fi; ' +
        'echo \'{"status":"ok","message":"ok"}\'';
      const dir = board(0, ['sh', '-c', agent], 'sandbox: true\n');
      execFileSync('git', ['init', '-q', dir]);
      execFileSync('git', ['-c', 'safe.directory=*', '-C', dir, 'config', 'core.hooksPath', '.husky']);
      mkdirSync(path.join(dir, '.husky'));
      execFileSync('chown', ['-R', `${OWNER}:${OWNER}`, dir]);
      const result = await run(0, dir, home(0));
      expect(result.exitCode, result.stderr).toBe(0);
      expect(existsSync(path.join(dir, '.husky/pre-commit'))).toBe(false);
      expect(existsSync(path.join(dir, 'hook.txt'))).toBe(false);
    },
  );

  it('is shown by --dry-run: its user, writable, read-only, readable, hidden, the network', async () => {
    const h = home(0);
    const kube = path.join(outside(OWNER, 'ks-kube-', { config: 'token: kube_secret\n' }), 'config');
    const dir = board(
      0,
      ['sh', PROBE, token()],
      'sandbox: {write: [~/.cache/tool, out], read: [~/.gitconfig, ~/.nothing], network: false}\n',
    );
    mkdirSync(path.join(h, '.cache/tool'), { recursive: true });
    const result = await run(0, dir, h, ['kanban.yaml', '--dry-run'], { KUBECONFIG: kube });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      'bubblewrap (roles/implementor.md sandbox:): the whole file system read-only, a fresh /tmp (TMPDIR=/tmp), ' +
        'network off',
    );
    expect(result.stdout).toContain(
      'run as nobody with no capabilities and no terminal, even when the supervisor is root',
    );
    expect(result.stdout).toContain(`writable: ${dir}, ${h}/.cache/tool\n`);
    expect(result.stdout).toContain(
      `read-only inside them: ${dir}/.kanban-supervisor, ${dir}/kanban.yaml, ${dir}/roles\n`,
    );
    const list = (label: string) => new RegExp(`${label}: (.*)\n`).exec(result.stdout)?.[1]?.split(', ');
    expect(list('readable in hidden folders')).toContain(`${h}/.gitconfig`);
    const hidden = list('hidden');
    expect(hidden).toEqual(expect.arrayContaining(['/run', h, '/etc/shadow', kube]));
    expect(hidden).not.toContain(`${h}/.ssh`); // inside the home folder, hidden with it
    expect(result.stdout).toContain('not bound (they do not exist, or are out of its reach): out, ~/.nothing\n');
    const validate = await run(0, dir, h, ['validate', 'kanban.yaml']);
    expect(validate.exitCode).toBe(0);
    expect(validate.stdout + validate.stderr).toMatch(
      /roles\/implementor\.md:4: sandbox: the writable path out does not exist/,
    );
    expect(validate.stdout + validate.stderr).toMatch(
      /roles\/implementor\.md:4: sandbox: the readable path ~\/\.nothing does not exist/,
    );
  });

  it(
    'run by root, runs as the board folder’s owner; on a board folder root owns it is refused (exit 2) with ' +
      'the fix, before any agent, and validate says the same',
    async () => {
      const closed = outside(0, 'ks-closed-', { 'notes.txt': 'root only\n' }); // 0700, root's
      const dir = board(0, ['sh', PROBE, token()], `sandbox: {read: [${closed}/notes.txt]}\n`);
      const validate = await run(0, dir, home(0), ['validate', 'kanban.yaml']);
      expect(validate.exitCode).toBe(0);
      expect(validate.stdout + validate.stderr).not.toMatch(/belongs to/);
      expect(validate.stdout + validate.stderr).toContain(
        `roles/implementor.md:4: sandbox: the readable path ${closed}/notes.txt is out of reach of uid ${OWNER}, ` +
          "the board folder's owner",
      );
      const dry = await run(0, dir, home(0), ['kanban.yaml', '--dry-run']);
      expect(dry.stdout).toContain(`on the host, uid ${OWNER} (the board folder's owner), never root`);
      expect(dry.stdout).toContain(`not bound (they do not exist, or are out of its reach): ${closed}/notes.txt\n`);
      execFileSync('chown', ['-R', '0:0', dir]);
      const before = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
      const result = await run(0, dir, home(0));
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(
        /roles\/implementor\.md:4: sandbox: the board folder .* belongs to root, .*chown -R USER: .*or run the supervisor as an ordinary user/,
      );
      expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toBe(before);
      expect(existsSync(path.join(dir, 'fence.log'))).toBe(false);
      const refused = await run(0, dir, home(0), ['validate', 'kanban.yaml']);
      expect(refused.exitCode).toBe(2);
      expect(refused.stdout + refused.stderr).toMatch(
        /roles\/implementor\.md:4: sandbox: the board folder .* belongs to root/,
      );
    },
  );

  it(
    'is never run unfenced when bubblewrap cannot build a fence here (user namespaces off): ' +
      'exit 2 with the sysctl fix, before any agent',
    async () => {
      const bin = tempDir('ks-bin-');
      chmodSync(bin, 0o755); // bubblewrap runs as the board folder's owner
      // A bwrap that fails as Debian's does when unprivileged user namespaces are turned off.
      writeFileSync(
        path.join(bin, 'bwrap'),
        '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, ' +
          'likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
        { mode: 0o755 },
      );
      const dir = board(0, ['sh', PROBE, token()], 'sandbox: true\n');
      const before = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
      const result = await run(0, dir, home(0), ['kanban.yaml'], { PATH: `${bin}:${pathWithoutUs()}` });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          String.raw`roles\/implementor\.md:4: sandbox: bubblewrap cannot build a fence on this machine as uid 4242, the board folder.s owner \(.*said: ` +
            String.raw`No permissions to creating new namespace.*kernel\.unprivileged_userns_clone=1`,
        ),
      );
      expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toBe(before);
      expect(existsSync(path.join(dir, 'fence.log'))).toBe(false);
      // `try` has no pre-flight: its agent run is probed all the same, and not retried as invalid output.
      const tried = await run(0, dir, home(0), ['try', 'Implementor', '--instruction', 'probe'], {
        PATH: `${bin}:${pathWithoutUs()}`,
      });
      expect(tried.exitCode).toBe(2);
      expect(tried.stderr).toMatch(/roles\/implementor\.md: sandbox: bubblewrap cannot build a fence on this machine/);
      expect(existsSync(path.join(dir, 'fence.log'))).toBe(false);
    },
  );

  it(
    'is never run unfenced when bubblewrap is missing: exit 2 with the fix, the board unchanged, no agent ran; ' +
      'validate says the same',
    async () => {
      const bin = tempDir('ks-bin-');
      chmodSync(bin, 0o755); // bubblewrap runs as the board folder's owner
      for (const program of ['sh', 'node'])
        execFileSync('ln', [
          '-s',
          execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim(),
          path.join(bin, program),
        ]);
      const dir = board(0, ['sh', PROBE, token()], 'sandbox: true\n');
      const before = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
      const result = await run(0, dir, home(0), ['kanban.yaml'], { PATH: bin });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          String.raw`roles\/implementor\.md:4: sandbox: bubblewrap \(bwrap\) ` +
            String.raw`was not found on PATH.*not run unfenced.*apt install bubblewrap`,
        ),
      );
      expect(readFileSync(path.join(dir, 'kanban.yaml'), 'utf8')).toBe(before);
      expect(existsSync(path.join(dir, 'fence.log'))).toBe(false);
      const validate = await run(0, dir, home(0), ['validate', 'kanban.yaml'], { PATH: bin });
      expect(validate.exitCode).toBe(2);
      expect(validate.stdout + validate.stderr).toMatch(
        /roles\/implementor\.md:4: sandbox: bubblewrap \(bwrap\) was not found on PATH/,
      );
    },
  );
});
