import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, read, role, runCli } from '../helpers.js';
import { receiver } from './receiver.js';

const ARGV_KEY = 'sk-live-abcdefghijklmnop1234';
const ARGV_BEARER = 'tok123456789abcdef';
const ENV_TOKEN = 's3cr3t-service-value-42';
const ROLE_ONLY = 'role-only-value-77';
const SECRETS = [ARGV_KEY, ARGV_BEARER, ENV_TOKEN, ROLE_ONLY];

// An agent that prints no reply, only a line with its credentials in it: every attempt is invalid.
const PRINTS =
  "console.log('calling with Authorization: Bearer ' + process.env.MY_SERVICE_TOKEN + ' and ' + " +
  "process.argv.slice(1).join(' '))";
const ROLE = role(
  [
    'node',
    '-e',
    PRINTS,
    '--',
    '--api-key',
    ARGV_KEY,
    '-H',
    `Authorization: Bearer ${ARGV_BEARER}`,
    `--token=${ENV_TOKEN}`,
    `--region=${ROLE_ONLY}`,
  ],
  `stdin: none\nenv:\n  MY_SERVICE_TOKEN: ${ENV_TOKEN}\n  REGION: ${ROLE_ONLY}\n`,
);

function expectNoSecret(where: string, text: string): void {
  for (const secret of SECRETS.slice(0, 3)) expect(text, `${where} shows ${secret}`).not.toContain(secret);
}

describe('secrets a role carries', () => {
  it('never reach events.jsonl, supervisor.log.md, the console lines, --json, the report or --dry-run', async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': ROLE }, 'phase: execute\nsupervisor:\n  max_retries: 1\n');
    const env = { NO_COLOR: '1' };
    const plain = await execa('node', [CLI, 'kanban.yaml'], {
      cwd: dir,
      reject: false,
      env,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(plain.exitCode).toBe(3);
    const json = await execa('node', [CLI, 'kanban.yaml', '--json'], {
      cwd: dir,
      reject: false,
      env,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(json.exitCode).toBe(3);
    const report = await execa('node', [CLI, 'report', 'kanban.yaml', '--all', '--out', path.join(dir, 'page.html')], {
      cwd: dir,
      reject: false,
      env,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(report.exitCode).toBe(0);
    const dry = await execa('node', [CLI, 'kanban.yaml', '--dry-run'], {
      cwd: dir,
      reject: false,
      env,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(dry.exitCode).toBe(0);

    const events = read(dir, '.kanban-supervisor/events.jsonl');
    expectNoSecret('events.jsonl', events);
    // The command is still there to read, with its keys masked.
    expect(events).toContain(`--api-key \\"…(set, ${ARGV_KEY.length} chars)\\"`);
    const log = read(dir, 'supervisor.log.md');
    expectNoSecret('supervisor.log.md', log);
    expect(log).toContain('**Issue:** Invalid output format: Implementor (node -e');
    expect(log).toContain(`--api-key …(set, ${ARGV_KEY.length} chars)`);
    expect(log).toContain(`Authorization: Bearer …(set, ${ENV_TOKEN.length} chars)`);
    expectNoSecret('the plain lines', `${String(plain.stdout)}\n${String(plain.stderr)}`);
    expectNoSecret('--json', `${String(json.stdout)}\n${String(json.stderr)}`);
    expectNoSecret('the report', readFileSync(path.join(dir, 'page.html'), 'utf8'));
    // --dry-run masks the role's env: values wherever they are, the argv too.
    for (const secret of SECRETS) expect(String(dry.stdout), `--dry-run shows ${secret}`).not.toContain(secret);
    expect(String(dry.stdout)).toContain(
      `'--token=…(set, ${ENV_TOKEN.length} chars)' '--region=…(set, ${ROLE_ONLY.length} chars)'`,
    );
  });
});

// Secret by their names, printed by an agent as plain words, which no pattern would catch.
const SUPERVISOR_SECRET = 'plain-deploy-value-91';
const ROLE_SECRET = 'role-password-value-55';
const BY_VALUE = [SUPERVISOR_SECRET, ROLE_SECRET];
const SAYS = "'deploying with ' + process.env.DEPLOY_TOKEN + ' and ' + process.env.DB_PASSWORD";
const saying = (print: string) =>
  role(['node', '-e', `console.log(${print})`], `stdin: none\nenv:\n  DB_PASSWORD: ${ROLE_SECRET}\n`);
const supervisorEnv = { NO_COLOR: '1', DEPLOY_TOKEN: SUPERVISOR_SECRET };

function expectMasked(where: string, text: string): void {
  for (const secret of BY_VALUE) expect(text, `${where} shows ${secret}`).not.toContain(secret);
}

describe("the values of secret-named variables (the supervisor's environment, a role's env:) an agent prints", () => {
  it('are masked in events.jsonl, supervisor.log.md, the console lines, --json, the report and logs', async () => {
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': saying(SAYS) },
      'phase: execute\nsupervisor:\n  max_retries: 1\n',
    );
    const plain = await runCli(['kanban.yaml'], { cwd: dir, env: supervisorEnv });
    expect(plain.exitCode).toBe(3);
    const json = await runCli(['kanban.yaml', '--json'], { cwd: dir, env: supervisorEnv });
    expect(json.exitCode).toBe(3);
    const page = path.join(dir, 'page.html');
    expect(
      (await runCli(['report', 'kanban.yaml', '--all', '--out', page], { cwd: dir, env: supervisorEnv })).exitCode,
    ).toBe(0);
    const logs = await runCli(['logs', 'kanban.yaml'], { cwd: dir, env: supervisorEnv });
    expect(logs.exitCode).toBe(0);

    const log = read(dir, 'supervisor.log.md');
    expect(log).toContain(
      `deploying with …(set, ${SUPERVISOR_SECRET.length} chars) and …(set, ${ROLE_SECRET.length} chars)`,
    );
    expectMasked('supervisor.log.md', log);
    expectMasked('events.jsonl', read(dir, '.kanban-supervisor/events.jsonl'));
    expectMasked('the plain lines', `${plain.stdout}\n${plain.stderr}`);
    expectMasked('--json', `${json.stdout}\n${json.stderr}`);
    expectMasked('the report', readFileSync(page, 'utf8'));
    expect(logs.stdout).toContain(`deploying with …(set, ${SUPERVISOR_SECRET.length} chars)`);
    expectMasked('logs', `${logs.stdout}\n${logs.stderr}`);
  });

  it('are masked in the outcome and notification when the Manager halts on them, and in what try prints', async () => {
    const got = await receiver();
    const reply = `JSON.stringify({ status: 'blocked', message: ${SAYS} })`;
    const dir = boardWithTasks(1, { 'roles/implementor.md': saying(reply) });
    const result = await runCli(['kanban.yaml', '--notify', `json+${got.base}/hook`], { cwd: dir, env: supervisorEnv });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain(`deploying with …(set, ${SUPERVISOR_SECRET.length} chars)`);
    expectMasked('the console', `${result.stdout}\n${result.stderr}`);
    expect(got.got).toHaveLength(1);
    expectMasked('the notification', got.got[0]?.body ?? '');
    expect(got.json()[0]?.message).toContain(`deploying with …(set, ${SUPERVISOR_SECRET.length} chars)`);
    const tried = await runCli(['try', 'Implementor', '--instruction', 'go'], { cwd: dir, env: supervisorEnv });
    expect(tried.exitCode, tried.stderr).toBe(0);
    expect(tried.stdout).toContain(`deploying with …(set, ${SUPERVISOR_SECRET.length} chars)`);
    expectMasked('try', `${tried.stdout}\n${tried.stderr}`);
    expectMasked('the try events', read(dir, '.kanban-supervisor/try/events.jsonl'));
  });

  it("are masked in the step's commit message", async () => {
    const reply = `JSON.stringify({ status: 'ok', message: ${SAYS} })`;
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': saying(reply) },
      'phase: execute\nsupervisor:\n  git_commit: true\n',
    );
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.name=Setup', '-c', 'user.email=setup@example.com', 'add', '-A');
    git('-c', 'user.name=Setup', '-c', 'user.email=setup@example.com', 'commit', '-q', '-m', 'the board');
    git('config', 'user.name', 'Night Run');
    git('config', 'user.email', 'night@example.com');
    const result = await runCli(['kanban.yaml'], { cwd: dir, env: supervisorEnv });
    expect(result.exitCode, result.stderr).toBe(0);
    const message = git('log', '-1', '--format=%B');
    expect(message).toContain(`deploying with …(set, ${SUPERVISOR_SECRET.length} chars)`);
    expectMasked('the commit message', message);
  });
});
