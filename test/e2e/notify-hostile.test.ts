import { renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, runCli, tempDir } from '../helpers.js';
import { survivors } from '../hardening/procs.js';
import { stopWithSigterm } from '../hardening/stopped-run.js';
import { receiver } from './receiver.js';

const DONE = { 'roles/implementor.md': fixtureRole('scripted.mjs', ['record.jsonl', 'valid'], 'stdin: none\n') };
// What an agent could say to reach the people a notification goes to.
const MARKUP = '<!channel> your login expired: <https://evil.example/login|Click to re-authenticate> & @here';
const BLOCKED = {
  'roles/implementor.md': fixtureRole(
    'scripted.mjs',
    ['record.jsonl', `json:${JSON.stringify({ status: 'blocked', message: MARKUP })}`],
    'stdin: none\n',
  ),
};

describe('notifications are text, whatever an agent says', () => {
  it("Slack gets an agent's markup escaped: no mention, no disguised link", async () => {
    const got = await receiver();
    const dir = boardWithTasks(1, BLOCKED);
    const result = await runCli(['kanban.yaml', '--notify', `slack+${got.base}/services/T/B/X`], { cwd: dir });
    expect(result.exitCode).toBe(4);
    expect(got.got).toHaveLength(1);
    const { text } = got.json()[0] as { text: string };
    expect(text).toContain(
      '&lt;!channel&gt; your login expired: &lt;https://evil.example/login|Click to re-authenticate&gt; &amp; ' +
        '@\u2060here',
    );
    expect(text).not.toMatch(/[<>]|@here/);
  });

  it('ntfy headers hold no control character or line break, even from a board folder named to inject one', async () => {
    const got = await receiver();
    const dir = path.join(tempDir(), 'night\r\nX-Injected: 1\u001b[31m');
    renameSync(boardWithTasks(1, BLOCKED), dir);
    const result = await runCli(['kanban.yaml', '--notify', `ntfy+${got.base}/topic`], { cwd: dir });
    expect(result.exitCode).toBe(4);
    expect(got.got).toHaveLength(1);
    const { headers, body } = got.got[0] as { headers: Record<string, unknown>; body: string };
    expect(headers['x-injected']).toBeUndefined();
    for (const name of ['title', 'tags', 'priority']) expect(String(headers[name])).toMatch(/^[\x20-\x7e]+$/);
    expect(headers.title).toBe('kanban-supervisor: night??X-Injected: 1?[31m: halted for a person (exit 4)');
    expect(body).toContain(MARKUP); // ntfy shows its body as plain text: the words as written
  });
});

describe('notifications against receivers that misbehave', () => {
  it('SIGTERM ends the run within 5 s though the receiver never answers (docker stop allows 10 s)', async () => {
    const got = await receiver('never');
    const { result, tookMs, agents } = await stopWithSigterm(['--quiet', '--notify', `${got.base}/x`]);
    expect(tookMs).toBeLessThan(5_000);
    expect(result.exitCode).toBe(143);
    expect(got.got).toHaveLength(1);
    expect(result.stderr).toMatch(/could not be told to http:\/\/127\.0\.0\.1:\d+\/… \(json, --notify\): no answer/);
    expect(await survivors(agents)).toEqual([]);
  }, 60_000);

  it('a 200 whose body never ends is one delivery: one request, no warning, no wait', async () => {
    const got = await receiver('open');
    const started = performance.now();
    const result = await runCli(['kanban.yaml', '--notify', `${got.base}/x`], { cwd: boardWithTasks(1, DONE) });
    expect(result.exitCode).toBe(0);
    expect(got.got).toHaveLength(1);
    expect(result.stderr).not.toMatch(/warning/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a failing entry is named among others to the same host', async () => {
    const got = await receiver((url) => (url === '/b' ? 'fail' : 'ok'));
    const dir = boardWithTasks(
      1,
      DONE,
      `phase: execute\nsupervisor:\n  notify: ["json+${got.base}/a", "json+${got.base}/b", "env:BOARD_HOOK"]\n`,
    );
    const result = await runCli(['kanban.yaml', '--notify', `${got.base}/a`], {
      cwd: dir,
      env: { BOARD_HOOK: `${got.base}/b` },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('warning'))).toEqual([
      `kanban-supervisor: warning: the run's end could not be told to json+http://127.0.0.1:${got.port}/… ` +
        `(json, supervisor.notify[1]): HTTP 500. The run's exit code is unchanged.`,
      `kanban-supervisor: warning: the run's end could not be told to http://127.0.0.1:${got.port}/… ` +
        `(json, supervisor.notify[2], env:BOARD_HOOK): HTTP 500. The run's exit code is unchanged.`,
    ]);
  });
});
