import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, CLI, read, role } from '../helpers.js';

const ARGV_KEY = 'sk-live-abcdefghijklmnop1234';
const ARGV_BEARER = 'tok123456789abcdef';
const ENV_TOKEN = 's3cr3t-service-value-42';
const ROLE_ONLY = 'role-only-value-77';
const SECRETS = [ARGV_KEY, ARGV_BEARER, ENV_TOKEN, ROLE_ONLY];

// An agent that prints no reply, only a line with its credentials in it: every attempt is invalid.
const PRINTS =
  "console.log('calling with Authorization: Bearer ' + process.env.MY_SERVICE_TOKEN + ' and ' + process.argv.slice(1).join(' '))";
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
