import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardSecrets } from '../../src/board/secret-values.js';
import { EventLog } from '../../src/events/log.js';
import { EVENTS } from '../../src/event-types.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { describeCommand } from '../../src/agent/invocation.js';
import { formatEntry } from '../../src/log/supervisor-log.js';
import { waitingFile } from '../../src/log/waiting.js';
import { tempDir } from '../helpers.js';
import { mask, maskArgv, maskDeep, maskText, secretValues } from '../../src/util/secrets.js';

describe('the one rule for secrets', () => {
  it(
    'masks the value after a key-like flag, a key-like --flag=value, an HTTP credential and well-known keys in ' +
      'argv',
    () => {
      const argv = [
        'tool',
        '--api-key',
        'sk-abc',
        '--auth-token=xyz12345',
        '-H',
        'Authorization: Bearer abcdefgh12345',
        '--model',
        'opus',
        'ghp_abcdefghijklmnopqrstuvwx',
      ];
      expect(maskArgv(argv)).toEqual([
        'tool',
        '--api-key',
        mask('sk-abc'),
        `--auth-token=${mask('xyz12345')}`,
        '-H',
        `Authorization: Bearer ${mask('abcdefgh12345')}`,
        '--model',
        'opus',
        mask('ghp_abcdefghijklmnopqrstuvwx'),
      ]);
    },
  );

  it('masks known values anywhere in text, longest first, and leaves prose alone', () => {
    const secrets = secretValues(
      { GITHUB_TOKEN: 'gh-value-123456', HOME: '/home/me', SHORT_KEY: 'abc' },
      { REGION: 'eu-west-one' },
    );
    expect(secrets).toEqual(['gh-value-123456', 'eu-west-one']);
    expect(maskText('push with gh-value-123456 to eu-west-one from /home/me', secrets)).toBe(
      `push with ${mask('gh-value-123456')} to ${mask('eu-west-one')} from /home/me`,
    );
    for (const prose of [
      'Basic instructions for the task',
      'the secret: remember it',
      'Token limit reached after 5000 tokens',
      'tokens: 123456789',
    ])
      expect(maskText(prose)).toBe(prose);
    expect(maskText('ANTHROPIC_API_KEY=abc123def456 and "password": "hunter22x"')).toBe(
      `ANTHROPIC_API_KEY=${mask('abc123def456')} and "password": "${mask('hunter22x')}"`,
    );
  });

  it('masks every string of an event, keeping its keys and the same object when nothing is secret', () => {
    const clean = { type: 'done', steps: 2, files: ['a.md'] };
    expect(maskDeep(clean)).toBe(clean);
    expect(maskDeep({ command: 'x --key=abcdefgh1', nested: [{ issue: 'Bearer abcdefgh1234' }] })).toEqual({
      command: `x --key=${mask('abcdefgh1')}`,
      nested: [{ issue: `Bearer ${mask('abcdefgh1234')}` }],
    });
  });

  it('describeCommand (events, Supervisor Log issues) masks argv keys and the values of secret-named variables', () => {
    const text = describeCommand(
      {
        file: 'curl',
        args: ['-H', 'x-api-key: value-of-the-key', '--api-key', 'k'],
        env: { SERVICE_API_KEY: 'value-of-the-key' },
      },
      200,
    );
    expect(text).not.toContain('value-of-the-key');
    expect(text).toBe(`curl -H "x-api-key: ${mask('value-of-the-key')}" --api-key "${mask('k')}"`);
  });

  it('a Supervisor Log entry masks its Issue, Received and Action', () => {
    const entry = formatEntry({
      time: new Date(0),
      kind: 'Retry Event',
      agent: 'A',
      task: 't',
      issue: 'cmd --token=abcdefgh12',
      received: 'HTTP 401 for Authorization: Bearer sk-ant-abcdefghijklmnopqrstu',
      action: 'again',
    });
    expect(entry).not.toContain('abcdefgh12');
    expect(entry).not.toContain('sk-ant-abcdefghijklmnopqrstu');
  });

  it('waiting.json (read by status) masks a key quoted in the reason it waits for', () => {
    const dir = tempDir();
    waitingFile.write(dir, {
      for: 'board_change',
      reason: 'Login rejected: Invalid API key sk-ant-abcdefghijklmnopqrstu',
      since: new Date(0).toISOString(),
      pid: 1,
    });
    expect(waitingFile.read(dir)?.reason).toBe(
      `Login rejected: Invalid API key ${mask('sk-ant-abcdefghijklmnopqrstu')}`,
    );
  });
});

describe("a board's secret values", () => {
  it(
    'are the values of secret-named variables of the environment ' +
      "and of every role's env:, longest first, no other",
    () => {
      const dir = tempDir();
      mkdirSync(path.join(dir, 'roles'));
      const roleFile = (env: string) => `---\ncommand: [agent]\nenv:\n${env}---\nDo it.\n`;
      writeFileSync(
        path.join(dir, 'roles/implementor.md'),
        roleFile('  DB_PASSWORD: role-password-1\n  REGION: eu-west-1\n'),
      );
      // A role file with problems still names its secrets.
      writeFileSync(
        path.join(dir, 'roles/broken.md'),
        roleFile('  GH_TOKEN: ghp-very-long-value-2\n').replace('[agent]', '7'),
      );
      const env = { DEPLOY_TOKEN: 'deploy-value', HOME: '/home/ann-with-long-name', API_KEY: 'short' };
      expect(boardSecrets(dir, env)).toEqual(['ghp-very-long-value-2', 'role-password-1', 'deploy-value']);
    },
  );
});

describe('the event log', () => {
  it('masks a secret value in every field, even one JSON escapes in the line (a quote, a backslash)', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    const secret = 'pa"ss\\word-1';
    const seen: unknown[] = [];
    const log = new EventLog(dir, 'r1', CAPABILITY_EVENTS, [(event) => seen.push(event)], () => new Date(0), EVENTS, [
      secret,
    ]);
    log.emit('warning', { file: 'kanban.yaml', message: `the agent said ${secret}` });
    log.close();
    const line = readFileSync(path.join(dir, EVENTS), 'utf8');
    expect(line).toContain(`the agent said ${mask(secret)}`);
    expect(JSON.stringify(seen)).toContain(`the agent said ${mask(secret)}`);
  });
});
