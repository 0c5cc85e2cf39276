import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAttempt } from '../../src/agent/attempt.js';
import { accountOf } from '../../src/limits/account.js';
import { parseSharedLimit, sharedDecision, sharedLimitText } from '../../src/limits/entry.js';
import { lookForSharedLimit, recordSharedLimit } from '../../src/limits/shared.js';
import { limitsFolder } from '../../src/limits/shared-folder.js';
import type { Clock } from '../../src/loop/world.js';
import { status } from '../../src/commands/status.js';
import { formatStatus } from '../../src/commands/status-text.js';
import { supervise } from '../../src/run/supervise.js';
import { localStamp } from '../../src/util/time.js';
import { boardWithTasks, events, role, tempDir } from '../helpers.js';
import { exited } from './fake-agents.js';

const HOME = '/home/me';
const START = Date.parse('2026-11-23T20:00:00Z');

describe('the account a usage limit belongs to', () => {
  it('is the CLI, the config folder it reads and a fingerprint of its key, never the key itself', () => {
    const secret = 'sk-ant-api03-very-secret';
    const account = accountOf(['claude', '-p'], { HOME, ANTHROPIC_API_KEY: secret }, '/nowhere', '/board');
    expect(account.cli).toBe('claude');
    expect(account.description).toMatch(/^claude · \/home\/me\/\.claude · ANTHROPIC_API_KEY sha256:[0-9a-f]{12}$/);
    expect(JSON.stringify(account)).not.toContain(secret);
    expect(account.file).toMatch(/^[0-9a-f]{32}\.json$/);
    // Another key, another folder: another account; the same inputs: the same one.
    expect(accountOf(['claude'], { HOME, ANTHROPIC_API_KEY: 'other' }, '/nowhere', '/board').file).not.toBe(
      account.file,
    );
    expect(
      accountOf(
        ['npx', '@anthropic-ai/claude-code@2', '-p'],
        { HOME, ANTHROPIC_API_KEY: secret },
        '/nowhere',
        '/elsewhere',
      ).file,
    ).toBe(account.file);
  });

  it('reads the config folder each CLI reads: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, else under HOME', () => {
    expect(accountOf(['claude'], { HOME, CLAUDE_CONFIG_DIR: 'conf' }, '', '/board').description).toBe(
      'claude · /board/conf',
    );
    expect(accountOf(['codex', 'exec'], { HOME }, '', '/b').description).toBe('codex · /home/me/.codex');
    expect(accountOf(['codex', 'exec'], { HOME, CODEX_HOME: '/c', CODEX_API_KEY: 'k' }, '', '/b').description).toMatch(
      /^codex · \/c · CODEX_API_KEY sha256:/,
    );
    expect(accountOf(['gemini'], { HOME, GEMINI_CLI_HOME: '/g', GOOGLE_API_KEY: 'k' }, '', '/b').description).toMatch(
      /^gemini · \/g\/\.gemini · GOOGLE_API_KEY sha256:/,
    );
    // No HOME in the agent's environment: the user's home stands for it.
    expect(accountOf(['gemini'], {}, '/root', '/b').description).toBe('gemini · /root/.gemini');
  });

  it('of any other command is its program (behind a launcher) and HOME', () => {
    expect(accountOf(['node', '/x/wrapper.mjs', 'a'], { HOME, OPENAI_API_KEY: 'k' }, '', '/b').description).toBe(
      'wrapper · /home/me',
    );
    expect(accountOf(['./my-agent.sh'], { HOME: '/h2' }, '', '/b').description).toBe('my-agent.sh · /h2');
  });
});

describe('an account entry', () => {
  const account = accountOf(['node', 'fake.mjs'], { HOME }, '', '/b');
  const text = sharedLimitText(account, '/a/kanban.yaml', START, START + 60_000);

  it('is waited for while its time is ahead, ignored once it is past', () => {
    expect(sharedDecision(parseSharedLimit(text), account, START + 1000)).toMatchObject({
      wait: true,
      until: START + 60_000,
      entry: { board: '/a/kanban.yaml', cli: 'fake' },
    });
    expect(sharedDecision(parseSharedLimit(text), account, START + 60_000)).toMatchObject({
      wait: false,
      stale: true,
      reason: expect.stringMatching(/^stale: /),
    });
  });

  it("that is broken, another account's or absurdly far off is ignored, never waited for", () => {
    for (const broken of [
      '',
      'not json',
      '[]',
      '{"cli":"fake"}',
      text.replace(/"until": "[^"]+"/, '"until": "soon"'),
    ]) {
      expect(sharedDecision(parseSharedLimit(broken), account, START)).toMatchObject({
        wait: false,
        stale: false,
        reason: expect.stringMatching(/^broken: /),
      });
    }
    const other = accountOf(['node', 'other.mjs'], { HOME }, '', '/b');
    expect(sharedDecision(parseSharedLimit(text), other, START)).toMatchObject({
      wait: false,
      reason: expect.stringContaining('another account'),
    });
    const far = sharedLimitText(account, '/a/kanban.yaml', START, START + 400 * 86_400_000);
    expect(sharedDecision(parseSharedLimit(far), account, START)).toMatchObject({
      wait: false,
      reason: expect.stringContaining('more than a year'),
    });
  });
});

describe('the shared folder', () => {
  const account = accountOf(['node', 'fake.mjs'], { HOME }, '', '/b');
  const shared = () => ({
    account,
    folder: limitsFolder(null, '/b', { XDG_STATE_HOME: tempDir('ks-limits-') }, HOME),
  });
  const file = (s: ReturnType<typeof shared>) => path.join(s.folder.base, s.folder.relative, account.file);

  it('is supervisor.shared_limits (relative to the board, ~ allowed), else XDG_STATE_HOME, else ~/.local/state', () => {
    expect(limitsFolder('../pool', '/b/x', {}, HOME)).toEqual({ base: '/b/pool', relative: '' });
    expect(limitsFolder('~/pool', '/b', {}, HOME)).toEqual({ base: '/home/me/pool', relative: '' });
    expect(limitsFolder(null, '/b', { XDG_STATE_HOME: '/state' }, HOME)).toEqual({
      base: '/state',
      relative: 'kanban-supervisor/limits',
    });
    expect(limitsFolder(null, '/b', { XDG_STATE_HOME: 'relative' }, HOME)).toEqual({
      base: HOME,
      relative: '.local/state/kanban-supervisor/limits',
    });
  });

  it(
    'holds what one supervisor recorded for the next, privately; a stale entry is removed, ' +
      'with a note unless its own board learnt it',
    () => {
      const s = shared();
      expect(lookForSharedLimit(s, START, '/b/kanban.yaml')).toEqual({});
      expect(recordSharedLimit(s, '/a/kanban.yaml', START, START + 60_000)).toBeUndefined();
      expect(readdirSync(path.dirname(file(s)))).toEqual([account.file]); // no temp file left
      expect(JSON.parse(readFileSync(file(s), 'utf8'))).toEqual({
        cli: 'fake',
        account: account.description,
        until: new Date(START + 60_000).toISOString(),
        board: '/a/kanban.yaml',
        since: new Date(START).toISOString(),
      });
      expect(execFileSync('stat', ['-c', '%a', file(s)], { encoding: 'utf8' }).trim()).toBe('600');
      expect(lookForSharedLimit(s, START + 1000, '/b/kanban.yaml').limit).toMatchObject({
        until: START + 60_000,
        file: file(s),
      });
      expect(lookForSharedLimit(s, START + 60_000, '/b/kanban.yaml').ignored).toMatch(/: stale: its limit ended at /);
      expect(existsSync(file(s))).toBe(false);
      // The board that learnt it removes its own stale entry without a note.
      recordSharedLimit(s, '/a/kanban.yaml', START, START + 60_000);
      expect(lookForSharedLimit(s, START + 60_000, '/a/kanban.yaml')).toEqual({});
      expect(existsSync(file(s))).toBe(false);
    },
  );

  it('never follows a symlink planted as an entry, reading or writing, nor blocks on a FIFO', () => {
    const s = shared();
    mkdirSync(path.dirname(file(s)), { recursive: true });
    const outside = path.join(tempDir('ks-outside-'), 'target.json');
    writeFileSync(outside, sharedLimitText(account, '/evil/kanban.yaml', START, START + 60_000));
    symlinkSync(outside, file(s));
    expect(lookForSharedLimit(s, START, '/b/kanban.yaml')).toEqual({
      ignored: `${file(s)} is a symlink; not followed`,
    });
    expect(recordSharedLimit(s, '/a/kanban.yaml', START, START + 90_000)).toMatch(
      /^could not record the limit in .* is a symlink/,
    );
    expect(readFileSync(outside, 'utf8')).toContain('/evil/kanban.yaml'); // untouched
    const fifo = shared();
    mkdirSync(path.dirname(file(fifo)), { recursive: true });
    execFileSync('mkfifo', [file(fifo)]);
    expect(lookForSharedLimit(fifo, START, '/b/kanban.yaml')).toEqual({
      ignored: `${file(fifo)} is not a regular file`,
    });
  });
});

// The supervisor on a fake clock: sleeps pass at once.
function fakeClock() {
  let t = START;
  const clock: Clock = { now: () => new Date(t), sleep: async (ms) => void (t += ms) };
  return { clock, at: () => t };
}

const MANAGER_DONE = JSON.stringify({ status: 'ok', message: 'all done', next_task: null, tasks: ['tasks/001.md'] });
const FAILURES = 'failures:\n  usage_limit: ["limit reached, resets in (?<reset>\\\\d+ ?s)"]\n';
// A CLI with an adapter (Claude Code, behind node as a launcher), installed outside any board:
// its account is known, so shared.
const CLAUDE = ['node', '/opt/claude-code/claude.mjs'];

function board(settings = '', command = CLAUDE) {
  const dir = boardWithTasks(
    1,
    { 'roles/implementor.md': role(command, `stdin: none\n${FAILURES}`) },
    `phase: execute\nsupervisor:\n${settings || '  max_retries: 1\n'}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

// The worker prints `first` once, then valid replies; when it was called is recorded.
function agents(clock: Clock, first?: string) {
  const calls: number[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    const print = exited;
    if (invocation.role === 'Manager') return print(MANAGER_DONE);
    calls.push(clock.now().getTime());
    return calls.length === 1 && first ? print('', first) : print('{"status":"ok","message":"done"}');
  };
  return { calls, runAttempt };
}

const quiet = { signals: new EventEmitter() };

// Board A's supervisor learns a limit `resets` from now and stops (exit 69) rather than wait that long.
async function learnt(resets: string, settings: string, command = CLAUDE) {
  const a = board(settings, command);
  const clock = fakeClock().clock;
  const run = supervise({
    file: a.file,
    seams: { runAttempt: agents(clock, `limit reached, resets in ${resets}`).runAttempt, clock, ...quiet },
  });
  await expect(run).rejects.toMatchObject({ exitCode: 69 });
  return a;
}

describe('supervisors of one account', () => {
  it('a second board waits, without a call, for the reset the first learnt, and says where it learnt it', async () => {
    // A learns the limit and stops (exit 69) rather than wait: its entry stays for B.
    const a = await learnt('90s', '  max_limit_wait: 1m\n');
    const b = board();
    const second = fakeClock();
    const bAgents = agents(second.clock);
    await supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } });
    expect(bAgents.calls).toEqual([START + 120_000]); // the reset plus the margin, as A waited
    const wait = events(b.dir).find((e) => e.type === 'limit_wait');
    expect(wait).toMatchObject({
      role: 'Implementor',
      cli: 'claude',
      waitMs: 120_000,
      learntFrom: a.file,
      learntAt: new Date(START).toISOString(),
      resetKnown: true,
    });
    expect(String(wait?.reason)).toMatch(
      /^not calling it: the supervisor of .* learnt at .* that this account \(claude · .*\) is limited until then$/,
    );
  });

  it("supervisor.shared_limits names a folder instead of the user's state folder, relative to the board", async () => {
    const pool = tempDir('ks-pool-');
    // Boards are made in the temp folder too (tempDir): the pool is their sibling.
    await learnt('90s', `  max_limit_wait: 1m\n  shared_limits: ../${path.basename(pool)}\n`);
    expect(readdirSync(pool)).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
    expect(existsSync(path.join(String(process.env.XDG_STATE_HOME), 'kanban-supervisor'))).toBe(false);
  });

  it("waits for another board's limit only as long as its own max_limit_wait, then calls the CLI itself", async () => {
    await learnt('7200s', '  max_limit_wait: 1h\n');
    const b = board('  max_limit_wait: 1h\n');
    const second = fakeClock();
    const bAgents = agents(second.clock);
    await expect(
      supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } }),
    ).resolves.toMatchObject({ reason: 'done' });
    expect(bAgents.calls).toEqual([START + 3_600_000]);
    const wait = events(b.dir).find((e) => e.type === 'limit_wait');
    expect(wait).toMatchObject({ waitMs: 3_600_000, resetKnown: true });
    expect(String(wait?.reason)).toMatch(
      /^not calling it until \S+, when max_limit_wait is used up: the supervisor of /,
    );
  });

  it(
    "keeps a board's own script to its board, whatever its name: a claude.mjs in the board folder, " +
      'a claude on a PATH folder inside it, one npx would find in its node_modules/.bin',
    async () => {
      const cases: Array<{ command: string[]; plant?: string }> = [
        { command: ['node', 'claude.mjs'] },
        { command: ['claude', '-p'], plant: 'bin/claude' },
        { command: ['npx', 'claude', '-p'], plant: 'node_modules/.bin/claude' },
      ];
      for (const { command, plant } of cases) {
        const a = board('  max_retries: 1\n', command);
        const env = { ...process.env };
        if (plant) {
          mkdirSync(path.join(a.dir, path.dirname(plant)), { recursive: true });
          writeFileSync(path.join(a.dir, plant), '#!/bin/sh\n', { mode: 0o755 });
          if (plant.startsWith('bin/')) env.PATH = `${path.join(a.dir, 'bin')}:${process.env.PATH}`;
        }
        const clock = fakeClock().clock;
        const runAttempt = agents(clock, `limit reached, resets in ${5 * 3600}s`).runAttempt;
        const run = supervise({
          file: a.file,
          io: { stdout: process.stdout, stderr: process.stderr, env },
          seams: { runAttempt, clock, ...quiet },
        });
        // Its own limit is waited out on its own board (the fake clock passes it); no other board hears of it.
        await expect(run, command.join(' ')).resolves.toMatchObject({ reason: 'done' });
        expect(existsSync(path.join(String(process.env.XDG_STATE_HOME), 'kanban-supervisor')), command.join(' ')).toBe(
          false,
        );
      }
    },
  );

  it("keeps a command with no adapter to its board: a bash role's reset in 300 days stops no other board", async () => {
    const bash = ['bash', 'agent.sh'];
    await learnt(`${300 * 86_400}s`, '  max_retries: 1\n', bash);
    expect(existsSync(path.join(String(process.env.XDG_STATE_HOME), 'kanban-supervisor'))).toBe(false);
    const b = board('', bash);
    const second = fakeClock();
    const bAgents = agents(second.clock);
    await supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } });
    expect(bAgents.calls).toEqual([START]);
    expect(events(b.dir).filter((e) => e.type === 'limit_wait')).toEqual([]);
  });

  it('refuses a shared folder, or an entry, that others can write (exit 2, naming it and the fix)', async () => {
    const pool = tempDir('ks-pool-');
    chmodSync(pool, 0o777);
    const b = board(`  shared_limits: ../${path.basename(pool)}\n`);
    const second = fakeClock();
    const bAgents = agents(second.clock);
    await expect(
      supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } }),
    ).rejects.toMatchObject({
      exitCode: 2,
      message:
        `${pool} can be written by anyone (mode 777): another user could make every supervisor of this account ` +
        `wait, or never wait. Make it yours alone (chmod go-w, chown), or set supervisor.shared_limits to a ` +
        `folder only you can write.`,
    });
    expect(bAgents.calls).toEqual([]);
    chmodSync(pool, 0o700);
    // Another user's folder (root's own would be trusted): only root can make one to try.
    if (process.getuid?.() === 0) {
      chownSync(pool, 65534, 65534);
      await expect(
        supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } }),
      ).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(`${pool} is owned by uid 65534, not by you`),
      });
      chownSync(pool, 0, 0);
    }
    const account = accountOf(CLAUDE, process.env, os.homedir(), b.dir);
    writeFileSync(path.join(pool, account.file), '{}', { mode: 0o666 });
    chmodSync(path.join(pool, account.file), 0o666);
    await expect(
      supervise({ file: b.file, seams: { runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet } }),
    ).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/\.json can be written by anyone \(mode 666\)/),
    });
  });

  it('status names the board a wait was learnt from, when, the file, and how to be rid of it', async () => {
    const a = await learnt('7200s', '  max_limit_wait: 1m\n');
    const b = board('  max_limit_wait: 6h\n');
    // B is stopped while it waits: waiting.json tells status what it waited for.
    const signals = new EventEmitter();
    const clock: Clock = { now: () => new Date(START), sleep: async () => void signals.emit('SIGTERM', 'SIGTERM') };
    const run = supervise({ file: b.file, seams: { runAttempt: agents(clock).runAttempt, clock, signals } });
    await expect(run).rejects.toMatchObject({ exitCode: 143 });
    const text = formatStatus(status({ file: b.file }), new Date(START));
    const file = String(events(b.dir).find((e) => e.type === 'limit_wait')?.sharedFile);
    expect(file).toMatch(/\.json$/);
    expect(text).toContain(
      `Learnt from the supervisor of ${a.file} at ${localStamp(new Date(START).toISOString())}, in ${file}: ` +
        `if the account is no longer limited, remove that file`,
    );
    // The next run does not take that wait over as its own: it looks at the shared entry again.
    const again = fakeClock();
    await supervise({
      file: b.file,
      seams: { runAttempt: agents(again.clock).runAttempt, clock: again.clock, ...quiet },
    });
    const waits = events(b.dir).filter((e) => e.type === 'limit_wait');
    expect(waits).toHaveLength(2);
    expect(waits[1]).toMatchObject({ learntFrom: a.file, sharedFile: file });
  });
});
