import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { accountOf, type Account } from '../../src/limits/account.js';
import { sharedLimitText } from '../../src/limits/entry.js';
import { AGENTS, boardWithTasks, events, role, runCli, tempDir } from '../helpers.js';

// One account: the same CLI with an adapter and the same login (HOME) on every board — Claude
// Code, as its name says, played by the fake scripted.mjs — and its words for a limit.
const FAILURES = 'failures:\n  usage_limit: ["limit reached, resets (?:at |in )(?<reset>\\\\S+)$"]\n';
// Installed outside every board folder, as npm installs a CLI: a board's own script is never an
// account another board waits on (issue 31), whatever its name. One install for every board here.
const CLI_DIR = mkdtempSync(path.join(os.tmpdir(), 'ks-cli-'));
afterAll(() => rmSync(CLI_DIR, { recursive: true, force: true }));
const CLAUDE = ['node', path.join(CLI_DIR, 'claude.mjs')];
copyFileSync(path.join(AGENTS, 'scripted.mjs'), CLAUDE[1]!);

function board(...script: string[]) {
  return boardWithTasks(
    1,
    { 'roles/implementor.md': role([...CLAUDE, 'record.jsonl', ...script], `stdin: none\n${FAILURES}`) },
    'phase: execute\n',
  );
}

const calls = (dir: string) =>
  existsSync(path.join(dir, 'record.jsonl'))
    ? readFileSync(path.join(dir, 'record.jsonl'), 'utf8').trim().split('\n').length
    : 0;

async function until<T>(what: () => T | undefined, ms: number): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const found = what();
    if (found !== undefined) return found;
  }
  throw new Error('timed out waiting');
}

const limitWait = (dir: string) =>
  existsSync(path.join(dir, '.kanban-supervisor/events.jsonl'))
    ? events(dir).find((e) => e.type === 'limit_wait')
    : undefined;

describe('usage limits shared by the supervisors of one account, with real processes', () => {
  it(
    "a board started while another waits for the account's reset makes no call before it; " +
      'Ctrl-C ends such a wait; both others finish after it',
    async () => {
      const state = tempDir('ks-shared-state-');
      const env = { XDG_STATE_HOME: state };
      const a = board('json:limit reached, resets in 3s', 'valid');
      const b = board('valid');
      const c = board('valid');
      const runA = runCli(['kanban.yaml'], { cwd: a, env, timeout: 90_000 });
      const learnt = await until(() => limitWait(a), 20_000);
      const reset = Date.parse(String(learnt.until));
      const runB = runCli(['kanban.yaml'], { cwd: b, env, timeout: 90_000 });
      const runC = runCli(['kanban.yaml', '--quiet'], { cwd: c, env, timeout: 90_000 });
      const cWait = await until(() => limitWait(c), 20_000);
      expect(cWait).toMatchObject({ learntFrom: path.join(a, 'kanban.yaml'), until: learnt.until, cli: 'claude' });
      runC.kill('SIGINT');
      const [resultA, resultB, resultC] = await Promise.all([runA, runB, runC]);
      expect(resultC.exitCode, resultC.stderr).toBe(130);
      expect(calls(c)).toBe(0);
      expect(resultA.exitCode, resultA.stderr).toBe(0);
      expect(resultB.exitCode, resultB.stderr).toBe(0);
      expect(calls(a)).toBe(2);
      expect(calls(b)).toBe(1);
      // B's one call came after the reset A learnt, and B said where it learnt of it.
      expect(statSync(path.join(b, 'record.jsonl')).mtimeMs).toBeGreaterThanOrEqual(reset);
      expect(Date.parse(String(events(b).find((e) => e.type === 'attempt_started')?.time))).toBeGreaterThanOrEqual(
        reset,
      );
      expect(limitWait(b)).toMatchObject({ learntFrom: path.join(a, 'kanban.yaml'), resetKnown: true, cli: 'claude' });
      expect(resultB.stdout).toContain(`not calling it: the supervisor of ${path.join(a, 'kanban.yaml')} learnt at`);
      // A's reset is 3 s off plus the 30 s margin every reset gets: room for a loaded machine.
    },
    100_000,
  );

  it('a stale entry, a broken one and a symlink planted as one are ignored with a note, nothing followed', async () => {
    const outside = path.join(tempDir('ks-outside-'), 'elsewhere.json');
    const plant: Record<string, (file: string, account: Account) => void> = {
      stale: (file, account) =>
        writeFileSync(
          file,
          sharedLimitText(account, '/elsewhere/kanban.yaml', Date.now() - 120_000, Date.now() - 60_000),
        ),
      broken: (file) => writeFileSync(file, '{"cli": "scripted", "until": "whenever"'),
      // What it points at would make the run wait an hour, were it followed.
      symlink: (file, account) => {
        writeFileSync(outside, sharedLimitText(account, '/elsewhere/kanban.yaml', Date.now(), Date.now() + 3_600_000));
        symlinkSync(outside, file);
      },
    };
    for (const [kind, make] of Object.entries(plant)) {
      const state = tempDir('ks-shared-state-');
      const dir = board('valid');
      // Claude Code's account: its config folder under HOME (runCli passes this environment on).
      const account = accountOf(CLAUDE, process.env, os.homedir(), dir);
      const file = path.join(state, 'kanban-supervisor/limits', account.file);
      mkdirSync(path.dirname(file), { recursive: true });
      make(file, account);
      const result = await runCli(['kanban.yaml', '--quiet'], {
        cwd: dir,
        env: { XDG_STATE_HOME: state },
        timeout: 30_000,
      });
      expect(result.exitCode, `${kind}: ${result.stderr}`).toBe(0);
      expect(calls(dir), kind).toBe(1);
      const note = String(events(dir).find((e) => e.type === 'attempt_started')?.sharedLimitIgnored);
      if (kind === 'symlink') expect(readFileSync(outside, 'utf8')).toContain('/elsewhere/kanban.yaml');
      expect(note, kind).toMatch(
        { stale: /: stale: its limit ended at /, broken: /: broken: /, symlink: / is a symlink; not followed$/ }[
          kind
        ] as RegExp,
      );
    }
  });
});
