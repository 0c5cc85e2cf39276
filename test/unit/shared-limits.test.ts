import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptResult, RunAttempt } from '../../src/agent/attempt.js';
import { accountOf } from '../../src/limits/account.js';
import { parseSharedLimit, sharedDecision, sharedLimitText } from '../../src/limits/entry.js';
import { lookForSharedLimit, recordSharedLimit } from '../../src/limits/shared.js';
import { limitsFolder } from '../../src/limits/store.js';
import type { Clock } from '../../src/loop/context.js';
import { supervise } from '../../src/run/supervise.js';
import { boardWithTasks, events, role, tempDir } from '../helpers.js';

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

  it('holds what one supervisor recorded for the next, privately; a stale entry is removed, with a note unless its own board learnt it', () => {
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
  });

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

function board(settings = '') {
  const dir = boardWithTasks(
    1,
    { 'roles/implementor.md': role(['node', 'fake-cli.mjs'], `stdin: none\n${FAILURES}`) },
    `phase: execute\nsupervisor:\n${settings || '  max_retries: 1\n'}`,
  );
  return { dir, file: path.join(dir, 'kanban.yaml') };
}

// The worker prints `first` once, then valid replies; when it was called is recorded.
function agents(clock: Clock, first?: string) {
  const calls: number[] = [];
  const runAttempt: RunAttempt = async (invocation) => {
    const print = (stdout: string, stderr = ''): AttemptResult => ({
      end: 'exited',
      exitCode: stderr ? 1 : 0,
      signal: null,
      killedWith: null,
      stdout,
      stdoutTruncated: false,
      stdoutBytes: stdout.length,
      stderrTail: stderr,
      durationMs: 1,
    });
    if (invocation.role === 'Manager') return print(MANAGER_DONE);
    calls.push(clock.now().getTime());
    return calls.length === 1 && first ? print('', first) : print('{"status":"ok","message":"done"}');
  };
  return { calls, runAttempt };
}

const quiet = { signals: new EventEmitter() };

describe('supervisors of one account', () => {
  it('a second board waits, without a call, for the reset the first learnt, and says where it learnt it', async () => {
    // A learns the limit and stops (exit 69) rather than wait: its entry stays for B.
    const a = board('  max_limit_wait: 1m\n');
    const b = board();
    const first = fakeClock();
    const aAgents = agents(first.clock, 'limit reached, resets in 90s');
    await expect(
      supervise({ file: a.file, runAttempt: aAgents.runAttempt, clock: first.clock, ...quiet }),
    ).rejects.toMatchObject({ exitCode: 69 });
    const second = fakeClock();
    const bAgents = agents(second.clock);
    await supervise({ file: b.file, runAttempt: bAgents.runAttempt, clock: second.clock, ...quiet });
    expect(bAgents.calls).toEqual([START + 120_000]); // the reset plus the margin, as A waited
    const wait = events(b.dir).find((e) => e.type === 'limit_wait');
    expect(wait).toMatchObject({
      role: 'Implementor',
      cli: 'fake-cli',
      waitMs: 120_000,
      learntFrom: a.file,
      learntAt: new Date(START).toISOString(),
      resetKnown: true,
    });
    expect(String(wait?.reason)).toMatch(
      /^not calling it: the supervisor of .* learnt at .* that this account \(fake-cli · .*\) is limited until then$/,
    );
  });

  it("supervisor.shared_limits names the folder instead of the user's state folder, relative to the board", async () => {
    const pool = tempDir('ks-pool-');
    // Boards are made in the temp folder too (tempDir): the pool is their sibling.
    const a = board(`  max_limit_wait: 1m\n  shared_limits: ../${path.basename(pool)}\n`);
    const first = fakeClock();
    await expect(
      supervise({
        file: a.file,
        runAttempt: agents(first.clock, 'limit reached, resets in 90s').runAttempt,
        clock: first.clock,
        ...quiet,
      }),
    ).rejects.toMatchObject({ exitCode: 69 });
    expect(readdirSync(pool)).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
    expect(existsSync(path.join(String(process.env.XDG_STATE_HOME), 'kanban-supervisor'))).toBe(false);
  });

  it('a shared limit later than max_limit_wait ends the run at once with exit 69, no call made', async () => {
    const a = board('  max_limit_wait: 1h\n');
    const first = fakeClock();
    await expect(
      supervise({
        file: a.file,
        runAttempt: agents(first.clock, 'limit reached, resets in 7200s').runAttempt,
        clock: first.clock,
        ...quiet,
      }),
    ).rejects.toMatchObject({ exitCode: 69 });
    const b = board('  max_limit_wait: 1h\n');
    const second = fakeClock();
    const bAgents = agents(second.clock);
    const error = await supervise({
      file: b.file,
      runAttempt: bAgents.runAttempt,
      clock: second.clock,
      ...quiet,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 69,
      message: expect.stringMatching(
        /later than max_limit_wait \(1h00m\) lets this run wait\. .* Shared by another supervisor \(.*\.json\): not calling it: /,
      ),
    });
    expect(bAgents.calls).toEqual([]);
  });
});
