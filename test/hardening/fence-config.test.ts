import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, events, pathWithoutUs, role, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { OWNER, reachableByAll } from './fenced-users.js';

// No unfenced program reads what a fenced agent wrote (issue 31): the CLI configuration in the board
// folder and in the home, npx's node_modules/.bin, a script named like a CLI. Real bubblewrap, the
// supervisor as root and as an ordinary user (nobody).
const ROOT_USER = process.getuid?.() === 0;
const BWRAP = existsSync('/usr/bin/bwrap');
const NOBODY = 65534;
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A folder outside /tmp (the fence's own /tmp would hide it) with `files`, owned by `uid`. */
function outside(uid: number, prefix: string, files: Record<string, string>): string {
  const dir = mkdtempSync(`/var/tmp/${prefix}`);
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(dir, name), text, { mode: name.endsWith('.sh') || name.includes('bin/') ? 0o755 : 0o600 });
  }
  execFileSync('chown', ['-R', `${uid}:${uid}`, dir]);
  return dir;
}

/** Run the built CLI in `dir` as `uid` (through setpriv for an ordinary user); never rejects. */
function asUser(uid: number, dir: string, home: string, args: string[], pathValue: string) {
  const argv = [process.execPath, CLI, ...args];
  const [file, ...rest] =
    uid === 0 ? argv : ['setpriv', '--reuid', String(uid), '--regid', String(uid), '--clear-groups', ...argv];
  return execa(file as string, rest, {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
    env: { NO_COLOR: '1', PATH: pathValue, HOME: home },
    extendEnv: false,
  });
}

// The fenced agent of a hostile model: it reads its login from the copy, then plants a hook in
// Claude Code's settings (home and board), an MCP server in ~/.claude.json, and a `node` where npx
// puts node_modules/.bin on PATH — each a program some unfenced program would run as the user.
const HOSTILE = `#!/bin/sh
cat >/dev/null
cat "$HOME/.claude/.credentials.json" "$HOME/.claude.json" > seen.txt
hook='{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch '"$PWD"'/hook-ran"}]}]}}'
echo "$hook" > "$HOME/.claude/settings.json" && echo wrote-home-settings >> seen.txt
mkdir -p "$HOME/.claude/hooks" && echo planted > "$HOME/.claude/hooks/run.sh" && echo wrote-home-hooks >> seen.txt
echo '{"mcpServers":{"x":{"command":"/bin/evil"}}}' > "$HOME/.claude.json" && echo wrote-claude-json >> seen.txt
mkdir -p .claude node_modules/.bin && echo "$hook" > .claude/settings.json
printf '#!/bin/sh\\ntouch "%s/planted-ran"\\nexit 1\\n' "$PWD" > node_modules/.bin/node && chmod +x node_modules/.bin/node
echo '{"status":"ok","message":"done"}'
`;

describe.skipIf(!ROOT_USER || !BWRAP).each([
  ['root', 0],
  ['an ordinary user', NOBODY],
])('a fenced agent and the unfenced programs of its board, the supervisor run as %s', (_who, uid) => {
  // Run by root, a fenced agent is the board folder's owner on the host (a root-owned board is refused).
  const owner = uid === 0 ? OWNER : uid;
  let restore = () => {};
  beforeAll(() => {
    restore = reachableByAll([process.execPath, CLI]);
    return () => restore();
  });

  it(
    'gets a copy of its CLI files (copy:) that it may write, the originals untouched; ' +
      "runs under npx's PATH with a warning said once, and no unfenced program runs what it planted",
    async () => {
      const home = outside(uid, 'ks-home-', {
        '.claude/settings.json': '{"model":"mine"}\n',
        '.claude/.credentials.json': '{"token":"login-token"}\n',
        '.claude.json': '{"numStartups":1}\n',
      });
      const before = execFileSync('sh', ['-c', `cd '${home}' && find . -type f | sort | xargs cat`], {
        encoding: 'utf8',
      });
      const dir = boardWithTasks(
        1,
        {
          'roles/implementor.md': role(
            ['sh', 'agent.sh'],
            'stdin: prompt\nsandbox: {copy: ["~/.claude", "~/.claude.json"]}\n',
          ),
          'agent.sh': HOSTILE,
          // Fenced too: it writes the task files, which are not root's to write when root runs it.
          'roles/manager.md': SEQUENTIAL_MANAGER.replace('stdin: json\n', 'stdin: json\nsandbox: true\n'),
        },
        'phase: execute\nsupervisor:\n  kill_grace: 1s\n',
      );
      execFileSync('chown', ['-R', `${owner}:${owner}`, dir]);
      chownSync(dir, owner, owner);
      const homeReach = reachableByAll([path.join(home, '.claude.json')]);
      afterAll(homeReach);
      // What `npx kanban-supervisor` puts first on PATH, whether the folder exists or not.
      const npxPath = `${path.join(dir, 'node_modules', '.bin')}:${pathWithoutUs()}`;
      const validate = await asUser(uid, dir, home, ['validate'], npxPath);
      expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
      expect(validate.stdout).toContain(
        `kanban.yaml: the PATH of this run lists ${path.join(dir, 'node_modules', '.bin')}, in the board folder, ` +
          `where a fenced agent (roles/implementor.md, roles/manager.md) can write (npx puts node_modules/.bin there): taken out`,
      );
      // What each role may read, write and run.
      expect(validate.stdout).toContain(
        '  Implementor (roles/implementor.md): fenced — writes the board folder (but its own files) and a /tmp of ' +
          'its own; a copy of ~/.claude, ~/.claude.json, thrown away when it ends;',
      );
      expect(validate.stdout).toMatch(/ {2}Manager \(roles\/manager\.md\): fenced/);

      const run = await asUser(uid, dir, home, ['kanban.yaml'], npxPath);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Done: the board has no next task/);
      // Said once: one warning event for the run.
      expect(events(dir).filter((e) => e.type === 'warning' && String(e.message).includes('PATH'))).toHaveLength(1);
      // Inside: its login readable, every write to the copy accepted.
      expect(readFileSync(path.join(dir, 'seen.txt'), 'utf8').split('\n')).toEqual([
        '{"token":"login-token"}',
        '{"numStartups":1}',
        'wrote-home-settings',
        'wrote-home-hooks',
        'wrote-claude-json',
        '',
      ]);
      // Outside: the user's files as they were, nothing added; the planted node never ran (the Manager's
      // node — and bubblewrap — were found outside the board folder).
      expect(
        execFileSync('sh', ['-c', `cd '${home}' && find . -type f | sort | xargs cat`], { encoding: 'utf8' }),
      ).toBe(before);
      expect(readdirSync(path.join(home, '.claude')).sort()).toEqual(['.credentials.json', 'settings.json']);
      expect(existsSync(path.join(dir, 'planted-ran'))).toBe(false);
      expect(existsSync(path.join(dir, 'node_modules', '.bin', 'node'))).toBe(true);
    },
  );

  it("refuses a fenced role that may write a CLI's own configuration (write: [~/.claude]), naming the fix", async () => {
    const home = outside(uid, 'ks-home-', { '.claude/settings.json': '{}\n' });
    const dir = boardWithTasks(1, {
      'roles/implementor.md': role(['sh', '-c', 'true'], 'stdin: none\nsandbox: {write: ["~/.claude"]}\n'),
    });
    execFileSync('chown', ['-R', `${owner}:${owner}`, dir]);
    const validate = await asUser(uid, dir, home, ['validate'], pathWithoutUs());
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout).toContain(
      "roles/implementor.md:4: sandbox: write: ~/.claude is Claude Code's configuration (~/.claude), which every " +
        'claude you start loads unfenced — its hooks, MCP servers and plugins are programs: a fenced agent could ' +
        'plant one there. Declare it in copy: instead (sandbox: {copy: ["~/.claude", "~/.claude.json"]}): ' +
        'the agent gets a copy, thrown away when it ends.',
    );
  });
});

/** A fake `claude` outside any board (as npm installs it), answering as each role of the init board must. */
function fakeClaude(): string {
  const reply = (json: string) =>
    `{"type":"result","subtype":"success","is_error":false,"result":"\`\`\`json\\n${json.replaceAll('"', '\\"')}\\n\`\`\`"}`;
  return outside(process.getuid?.() ?? 0, 'ks-cli-', {
    'bin/claude':
      '#!/bin/sh\ncase "$KANBAN_ROLE" in\n' +
      `  Manager) echo '${reply('{"status":"ok","message":"next","next_task":null,"tasks":[]}')}';;\n` +
      `  *) echo '${reply('{"status":"ok","message":"done"}')}';;\nesac\n`,
  });
}

describe('the unfenced roles of a board with a fenced role (validate and the run, before any agent)', () => {
  it(
    "an init --agent claude board passes as it is; fencing only its Implementor leaves the Manager's Claude Code " +
      'unfenced, which would load .claude/ from the board folder: exit 2 naming the fix; every role fenced passes',
    async () => {
      const dir = path.join(tempDir(), 'board');
      const cli = fakeClaude();
      const env = { PATH: `${path.join(cli, 'bin')}:${pathWithoutUs()}`, HOME: cli };
      expect((await runCli(['init', dir, '--agent', 'claude'], { env })).exitCode).toBe(0);
      expect((await runCli(['validate'], { cwd: dir, env })).exitCode).toBe(0);

      const uncomment = (name: string) => {
        const file = path.join(dir, 'roles', name);
        writeFileSync(file, readFileSync(file, 'utf8').replace(/^# (sandbox: \{copy: .*\})$/m, '$1'));
      };
      uncomment('implementor.md');
      const half = await runCli(['validate'], { cwd: dir, env });
      expect(half.exitCode).toBe(2);
      expect(half.stdout).toMatch(
        /roles\/manager\.md:\d+: Manager runs Claude Code unfenced, while roles\/implementor\.md is fenced: Claude Code loads settings, hooks and plugins from the board folder \(\.claude\/, \.mcp\.json\) and from your home \(~\/\.claude, ~\/\.claude\.json\), where a fenced agent \(roles\/implementor\.md\) can write, and would run what an agent planted there as you\. Fence Manager too/,
      );
      const run = await runCli(['kanban.yaml'], { cwd: dir, env });
      expect(run.exitCode).toBe(2);
      expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);

      for (const name of ['manager.md', 'architect.md']) uncomment(name);
      // Run by root, a fenced agent is the board folder's owner on the host (a root-owned board is refused).
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${OWNER}:${OWNER}`, dir]);
      const reach = reachableByAll([
        process.execPath,
        CLI,
        path.join(cli, 'bin', 'claude'),
        path.join(dir, 'kanban.yaml'),
      ]);
      try {
        const whole = await runCli(['validate'], { cwd: dir, env });
        expect(whole.exitCode, whole.stdout).toBe(0);
      } finally {
        reach();
      }
    },
  );

  it(
    'npx claude, or npx of any program, in an unfenced role is refused: npx runs the board folder’s ' +
      'node_modules/.bin first, which a fenced agent can write',
    async () => {
      const fenced = role(['sh', '-c', 'true'], 'stdin: none\nsandbox: true\n');
      const cases: Array<[string[], RegExp]> = [
        [['npx', 'claude', '-p', '{{prompt}}'], /roles\/manager\.md:2: Manager runs Claude Code unfenced/],
        [['npx', '@anthropic-ai/claude-code@2', '-p'], /roles\/manager\.md:2: Manager runs Claude Code unfenced/],
        [['npx', 'my-manager'], /roles\/manager\.md:2: npx runs what the folder it starts in holds/],
        [['make', 'manage'], /roles\/manager\.md:2: make runs what the folder it starts in holds/],
      ];
      for (const [command, said] of cases) {
        const dir = boardWithTasks(1, {
          'roles/implementor.md': fenced,
          'roles/manager.md': role(command, 'stdin: json\n'),
        });
        const validate = await runCli(['validate'], { cwd: dir });
        expect(validate.exitCode, command.join(' ')).toBe(2);
        expect(validate.stdout).toMatch(said);
      }
    },
  );
});
