import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentFor, classifyFailure, failureInLine } from '../../src/agents/index.js';
import { checkBoard } from '../../src/board/check.js';
import { unreachableCommandProblems } from '../../src/sandbox/fenced-reach.js';
import { locateBoard } from '../../src/board/locate.js';
import { parseBoard } from '../../src/board/read-board.js';
import { parseRole } from '../../src/board/role.js';
import { parseYaml } from '../../src/board/yaml.js';
import type { StatusReport } from '../../src/commands/status.js';
import { formatStatus } from '../../src/commands/status-text.js';
import { containerHint } from '../../src/login/capability.js';
import { runnable } from '../../src/util/self-command.js';
import { makeBoard, ROOT, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { recording } from './recorded.js';
import { emptyFigures } from '../../src/report/figures.js';

// Issue 35's frictions met in-process, each titled with the mistake a person met on 4617305.

const PRESETS = path.join(ROOT, 'presets');
const presetFiles = readdirSync(PRESETS).flatMap((agent) =>
  readdirSync(path.join(PRESETS, agent))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('presets', agent, f)),
);

describe('the presets as a person edits them', () => {
  it('"remove the # before sandbox:" no longer wraps into a second "# sandbox:" line that gives "key given twice"', () => {
    const fenced = presetFiles.filter((f) => /^# sandbox:/m.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(fenced.length).toBeGreaterThanOrEqual(9);
    for (const file of fenced) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      expect(text.match(/^# sandbox:/gm), file).toHaveLength(1);
      // What the comment asks for: the # of the sandbox: line taken away.
      const check = parseRole('roles/implementor.md', 'Implementor', text.replace(/^# sandbox:/m, 'sandbox:'));
      expect(check.problems.map((p) => p.message).join('\n'), file).not.toMatch(/twice/);
      expect(check.role?.sandbox, file).toBeDefined();
    }
  });

  it('no preset points at a README section that moved to docs/: every page it names exists', () => {
    for (const file of presetFiles) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/the README, "/);
      for (const page of text.match(/docs\/[\w-]+\.md/g) ?? [])
        expect(existsSync(path.join(ROOT, page)), `${file}: ${page}`).toBe(true);
    }
  });
});

describe('kanban.yaml mistakes, named as what they are', () => {
  it('a key indented one space too deep under supervisor: is named as indentation, not as a value holding ": "', () => {
    const deeper = parseYaml('current: null\ntasks: []\nsupervisor:\n  timeout: 20m\n   max_retries: 2\n');
    expect(deeper).toMatchObject({
      ok: false,
      line: 5,
      message:
        "max_retries is indented 3 spaces and timeout above it 2 spaces, so YAML reads it as part of timeout's value",
      fix: 'Indent it like timeout: 2 spaces.',
    });
    const shallower = parseYaml('current: null\nsupervisor:\n  timeout: 20m\n max_retries: 2\n');
    expect(shallower).toMatchObject({ ok: false, line: 4, fix: 'Indent it like timeout: 2 spaces.' });
    // A value that does hold ": " is still named so.
    expect(parseYaml('title: Fix: the page\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/holds ": "/),
    });
  });

  it('phase: exectue is not accepted silently: a warning asks "did you mean execute?"; other phases pass', () => {
    const board = (phase: string) =>
      makeBoard({
        'kanban.yaml': `phase: ${phase}\ncurrent: tasks/001.md\ntasks:\n  - tasks/001.md\n`,
        'tasks/001.md': '---\ntitle: one\nrole: Manager\n---\nx\n',
        'roles/manager.md': SEQUENTIAL_MANAGER,
      });
    const warned = checkBoard({ file: path.join(board('exectue'), 'kanban.yaml') }).warnings;
    expect(warned).toContainEqual({
      file: 'kanban.yaml',
      line: 1,
      message:
        'phase "exectue" is no phase the supervisor knows, so its tasks run as Implementor. ' +
        'Did you mean execute? Set phase: execute.',
    });
    for (const phase of ['execute', 'polish', 'review'])
      expect(checkBoard({ file: path.join(board(phase), 'kanban.yaml') }).warnings).toEqual([]);
  });

  it('curent: gets a did-you-mean at its own line, not only "missing current"', () => {
    const text = 'phase: execute\ncurent: tasks/001.md\ntasks:\n  - tasks/001.md\n';
    expect(parseBoard('/b/kanban.yaml', text).problems).toEqual([
      {
        file: 'kanban.yaml',
        line: 2,
        message: 'is missing the required field "current". Did you mean current? Rename curent: to current:.',
      },
    ]);
  });

  it('kanban-supervisor run inside tasks/ points at ../kanban.yaml', () => {
    const dir = makeBoard({ 'kanban.yaml': 'current: null\ntasks: []\n', 'tasks/001.md': 'x\n' });
    expect(() => locateBoard(undefined, path.join(dir, 'tasks'), {})).toThrow(
      /there is no kanban\.yaml in this folder \(.*\/tasks\)\. This folder is inside the board \.\.\/kanban\.yaml: pass its path after the command \(e\.g\. `.*\.\.\/kanban\.yaml`\), or run from its folder \(cd \.\.\)\./,
    );
    const outside = tempDir();
    expect(() => locateBoard(undefined, outside, {})).toThrow(/create one here/);
  });
});

describe('a Codex board with no login', () => {
  const noLoginHome = () => {
    const home = tempDir();
    mkdirSync(path.join(home, '.codex'));
    return home;
  };

  it('offline, is a missing login (exit 2, "log in"), not a service error retried at 30 s, 1 m, 2 m…', () => {
    const codex = agentFor(['codex', 'exec']);
    const noLogin = codex.missingLogin?.({ HOME: noLoginHome() });
    expect(noLogin).toMatch(/^Codex has no login: no .*auth\.json, and neither CODEX_API_KEY nor OPENAI_API_KEY/);
    const r = recording('codex-no-login');
    const failure = classifyFailure(r, { command: r.command, now: r.endedAt, timeZone: r.timeZone, noLogin });
    expect(failure).toMatchObject({ kind: 'login', hint: codex.loginHint });
    // It stops at the first "waiting for network" line, as a login.
    const waiting = r.stdout.split('\n').find((l) => l.includes('waiting for network')) as string;
    expect(
      failureInLine(waiting, 'stdout', { command: r.command, now: r.endedAt, timeZone: 'UTC', noLogin }),
    ).toMatchObject({ kind: 'login' });
  });

  it('with a key, an auth.json or a provider of its own, is judged by what it said (a network outage stays one)', () => {
    const codex = agentFor(['codex', 'exec']);
    expect(codex.missingLogin?.({ HOME: noLoginHome(), CODEX_API_KEY: 'k' })).toBeUndefined();
    const home = noLoginHome();
    writeFileSync(path.join(home, '.codex', 'auth.json'), '{}');
    expect(codex.missingLogin?.({ HOME: home })).toBeUndefined();
    const own = noLoginHome();
    writeFileSync(path.join(own, '.codex', 'config.toml'), 'model_provider = "mine"\n');
    expect(codex.missingLogin?.({ HOME: own })).toBeUndefined();
    const r = recording('codex-no-login');
    expect(classifyFailure(r, { command: r.command, now: r.endedAt, timeZone: r.timeZone })).toMatchObject({
      kind: 'transient',
    });
  });
});

describe('status after a login stop', () => {
  it('does not send the person to validate (which says OK): it says the login is missing', () => {
    const end = {
      time: '2026-11-23T19:05:00Z',
      type: 'halted' as const,
      exitCode: 2,
      reason: 'bad_input',
      why:
        "roles/implementor.md: Implementor's codex cannot work until someone logs in or fixes its account: " +
        'Codex has no login. Run `codex login`.',
    };
    const report: StatusReport = {
      file: '/b/kanban.yaml',
      phase: 'execute',
      subPhase: null,
      current: 'tasks/001.md',
      tasks: [{ task: 'tasks/001.md', current: true, role: 'Implementor' }],
      lock: { state: 'free' },
      lastRun: {
        id: 'r1',
        start: '2026-11-23T19:00:00Z',
        last: '2026-11-23T19:05:00Z',
        steps: 1,
        spend: { total: { costUsd: 0, tokens: 0, priced: 0 }, byRole: {}, byTask: {} },
        figures: { ...emptyFigures(), byTask: {} },
        end,
      },
      lastHalt: { ...end, run: 'r1' },
      history: { bytes: 100, read: 100, limit: 1000, readAll: true },
    };
    const text = formatStatus(report, new Date('2026-11-23T20:00:00Z'));
    expect(text).toContain("stopped: an agent's login is missing or rejected (`validate` does not check a login)");
    expect(text).not.toContain('See `validate`');
  });
});

describe('a fenced agent whose program its host user cannot reach', () => {
  it('fails validate, naming the file and the user, instead of failing as "Cannot find module …" retried 4×', () => {
    const fenced = (command: string[]) => {
      const check = parseRole(
        'roles/implementor.md',
        'Implementor',
        `---\ncommand: ${JSON.stringify(command)}\nsandbox: true\n---\nx\n`,
      );
      if (!check.role) throw new Error(JSON.stringify(check.problems));
      return check.role;
    };
    const board = makeBoard({ 'kanban.yaml': 'current: null\ntasks: []\n' });
    const elsewhere = tempDir();
    writeFileSync(path.join(elsewhere, 'agent.sh'), '');
    const owner = { uid: 4242, gid: 4242 };
    const closed = path.join(elsewhere, 'agent.sh');
    chmodSync(elsewhere, 0o700);
    const [problem] = unreachableCommandProblems(fenced(['/bin/sh', closed]), board, process.env, owner);
    expect(problem).toMatchObject({ file: 'roles/implementor.md', line: 3 });
    expect(problem?.message).toContain(`runs as uid 4242, the board folder's owner, who cannot reach ${closed}`);
    // Open to that user (under /tmp too: the fence shows it there), or run by its own user: found.
    chmodSync(elsewhere, 0o755);
    expect(unreachableCommandProblems(fenced(['/bin/sh', closed]), board, process.env, owner)).toEqual([]);
    chmodSync(elsewhere, 0o700);
    expect(unreachableCommandProblems(fenced(['/bin/sh', closed]), board, process.env, undefined)).toEqual([]);
  });
});

describe('the container image and the install', () => {
  it('.dockerignore no longer drops docs/, which the package ships and messages in the image name', () => {
    const shipped = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const ignore = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toContain('!docs/');
    // What the package ships from the source tree (dist/ is built in the image).
    for (const entry of shipped.filter((f) => f !== 'dist'))
      expect(ignore, entry).toContain(statSync(path.join(ROOT, entry)).isDirectory() ? `!${entry}/` : `!${entry}`);
  });

  it('messages inside a container suggest docker run and a key or a mounted login, not /login nor npx', () => {
    const env = { KANBAN_SUPERVISOR_IMAGE: 'kanban-supervisor', PATH: process.env.PATH ?? '' };
    expect(runnable('status', env)).toBe('docker run --rm -v "$PWD:/board" kanban-supervisor status');
    const hint = containerHint({ file: 'claude', args: ['-p'] }, 'kanban-supervisor');
    expect(hint).toBe(
      'In the kanban-supervisor container nobody can log in interactively: pass its key: docker run -e ' +
        'ANTHROPIC_API_KEY …, or mount its login folder: -v ~/.claude:/home/kanban/.claude (docs/off-the-laptop.md).',
    );
    expect(hint).not.toContain('/login');
  });

  it("the README says npm ci's 55 EBADENGINE lines on an older Node are expected", () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toMatch(
      /`npm ci` in the clone prints some 55 `EBADENGINE`/,
    );
  });
});
