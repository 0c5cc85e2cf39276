import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardWithTasks, fixtureRole, pathWithoutUs, read, runCli, tempDir } from '../helpers.js';
import { receiver } from './receiver.js';
import { resident } from './resident.js';

const DONE = { 'roles/implementor.md': fixtureRole('scripted.mjs', ['record.jsonl', 'valid'], 'stdin: none\n') };
// Every secret part a URL has: user name and password, path, query, fragment.
const SECRETS = ['hookuser', 'hookpassw0rd', 'T0SECRETPATH', 'QSECRETQUERY42', 'FRAGSECRET'];
const secretUrl = (base: string) =>
  base.replace('//', '//hookuser:hookpassw0rd@') + '/hook/T0SECRETPATH?token=QSECRETQUERY42#FRAGSECRET';

function expectNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) expect(text, `${where} shows ${secret}`).not.toContain(secret);
}

describe('delivering notifications', () => {
  it(
    'a receiver answering 500: three tries, one warning with the URL masked, the exit code unchanged, ' +
      'no secret anywhere',
    async () => {
      const got = await receiver('fail');
      const dir = boardWithTasks(1, DONE);
      const url = `json+${secretUrl(got.base)}`;
      const result = await runCli(['kanban.yaml', '--notify', url], { cwd: dir });
      expect(result.exitCode).toBe(0);
      expect(got.got).toHaveLength(3);
      // The user name went as basic authentication, not in the URL.
      expect(got.got[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from('hookuser:hookpassw0rd').toString('base64')}`,
      );
      expect(got.got[0]?.url).toBe('/hook/T0SECRETPATH?token=QSECRETQUERY42');
      const warnings = result.stderr.split('\n').filter((line) => line.includes('warning'));
      expect(warnings).toEqual([
        `kanban-supervisor: warning: the run's end could not be told to json+http://127.0.0.1:${got.port}/… ` +
          `(json, --notify): HTTP 500. The run's exit code is unchanged.`,
      ]);
      expect(read(dir, 'supervisor.log.md')).toMatch(
        new RegExp(
          String.raw`### \S+ Warning\n\n\*\*Agent:\*\* kanban-supervisor {2}\n` +
            String.raw`\*\*Task:\*\* \(notifications\) {2}\n\*\*Issue:\*\* Notification not delivered: ` +
            String.raw`the run's end could not be told to json\+http:\/\/127\.0\.0\.1:\d+\/… \(json, --notify\): ` +
            String.raw`HTTP 500`,
        ),
      );

      const json = await runCli(['kanban.yaml', '--json', '--notify', url], { cwd: boardWithTasks(1, DONE) });
      const dry = await runCli(['kanban.yaml', '--dry-run', '--notify', url], { cwd: boardWithTasks(1, DONE) });
      expect(dry.stdout).toContain(`Notify: json+http://127.0.0.1:${got.port}/… (json)`);
      const dryJson = await runCli(['kanban.yaml', '--dry-run', '--json', '--notify', url], {
        cwd: boardWithTasks(1, DONE),
      });
      const report = await runCli(['report', 'kanban.yaml', '--out', 'page.html'], { cwd: dir });
      expect(report.exitCode).toBe(0);
      expectNoSecret('events.jsonl', read(dir, '.kanban-supervisor/events.jsonl'));
      expectNoSecret('supervisor.log.md', read(dir, 'supervisor.log.md'));
      expectNoSecret('the report', read(dir, 'page.html'));
      for (const [where, run] of Object.entries({ result, json, dry, dryJson }))
        expectNoSecret(where, `${String(run.stdout)}\n${String(run.stderr)}`);
    },
  );

  it("a receiver never answering holds the run's end no longer than the cap (10 s); the exit code stays", async () => {
    const got = await receiver('never');
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': fixtureRole('scripted.mjs', ['record.jsonl', 'garbage'], 'stdin: none\n') },
      'phase: execute\nsupervisor:\n  max_retries: 0\n',
    );
    const started = performance.now();
    const result = await runCli(['kanban.yaml', '--quiet', '--notify', `${got.base}/x`], { cwd: dir });
    const took = performance.now() - started;
    expect(result.exitCode).toBe(3);
    expect(took).toBeGreaterThan(9_000); // it did wait for the receiver…
    expect(took).toBeLessThan(25_000); // …but not for every try (3 × 5 s + pauses)
    expect(got.got.length).toBeGreaterThanOrEqual(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `warning: the run's end could not be told to http://127\\.0\\.0\\.1:${got.port}/… \\(json, --notify\\): ` +
          `no answer before the run's end stopped waiting`,
      ),
    );
  });

  it('env:NAME reads the URL from the environment; unset, it is a warning and the run goes on', async () => {
    const got = await receiver();
    const dir = boardWithTasks(1, DONE, 'phase: execute\nsupervisor:\n  notify: ["env:BOARD_HOOK"]\n');
    const dry = await runCli(['kanban.yaml', '--dry-run'], {
      cwd: dir,
      env: { BOARD_HOOK: `${got.base}/hook/T0SECRETPATH` },
    });
    expect(dry.stdout).toContain(`Notify: env:BOARD_HOOK → http://127.0.0.1:${got.port}/… (json)`);
    const unset = await runCli(['validate', 'kanban.yaml'], { cwd: dir });
    expect(unset.exitCode).toBe(0);
    expect(unset.stdout).toMatch(
      new RegExp(
        String.raw`kanban\.yaml:3: supervisor\.notify: env:BOARD_HOOK is not set, ` +
          String.raw`so no notification goes there\. Set BOARD_HOOK in the run's environment, ` +
          String.raw`or remove the entry\.`,
      ),
    );
    const result = await runCli(['kanban.yaml', '--quiet'], {
      cwd: dir,
      env: { BOARD_HOOK: `${got.base}/hook/T0SECRETPATH` },
    });
    expect(result.exitCode).toBe(0);
    expect(got.got.map((r) => r.url)).toEqual(['/hook/T0SECRETPATH']);
    expectNoSecret('events.jsonl', read(dir, '.kanban-supervisor/events.jsonl'));
    expectNoSecret('--dry-run', dry.stdout);
  });

  it('a malformed entry or an unknown prefix is exit 2 naming kanban.yaml and the fix, its secret masked', async () => {
    const bad = boardWithTasks(
      1,
      DONE,
      'phase: execute\nsupervisor:\n  notify:\n    - "htps://hooks.example.com/T0SECRETPATH"\n' +
        '    - "teams+https://example.com/hook/T0SECRETPATH"\n',
    );
    const validate = await runCli(['validate', 'kanban.yaml'], { cwd: bad });
    expect(validate.exitCode).toBe(2);
    expect(validate.stdout).toContain(
      'kanban.yaml:4: supervisor.notify[0]: htps://hooks.example.com/… is not an http or https URL. ' +
        'Write an http(s) URL',
    );
    expect(validate.stdout).toContain(
      'kanban.yaml:5: supervisor.notify[1]: teams+https://example.com/… has an unknown prefix teams+ ' +
        '(known: slack+, ntfy+, json+). Write ',
    );
    const prefix = boardWithTasks(
      1,
      DONE,
      'phase: execute\nsupervisor:\n  notify:\n    - "teams+https://example.com/hook/T0SECRETPATH"\n',
    );
    const run = await runCli(['kanban.yaml'], { cwd: prefix });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        String.raw`^kanban-supervisor: kanban\.yaml: supervisor\.notify\[0\]: ` +
          String.raw`teams\+https:\/\/example\.com\/… has an unknown prefix teams\+ \(known: slack\+, ntfy\+, ` +
          String.raw`json\+\)\. Write `,
      ),
    );
    const flag = await runCli(['kanban.yaml', '--notify', 'not a url T0SECRETPATH'], { cwd: boardWithTasks(1, DONE) });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toMatch(
      /^kanban-supervisor: --notify: …\(set, 22 chars\) is not a URL\. Write an http\(s\) URL/,
    );
    for (const r of [validate, run, flag]) expectNoSecret('the message', `${String(r.stdout)}${String(r.stderr)}`);
  });

  it('desktop runs notify-send (a real program on PATH); without one, a single warning', async () => {
    const bin = tempDir('ks-bin-');
    const out = path.join(bin, 'calls.txt');
    writeFileSync(path.join(bin, 'notify-send'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${out}'\necho --- >> '${out}'\n`);
    chmodSync(path.join(bin, 'notify-send'), 0o755);
    const dir = boardWithTasks(1, DONE);
    const result = await runCli(['kanban.yaml', '--notify', 'desktop'], {
      cwd: dir,
      env: { PATH: `${bin}${path.delimiter}${pathWithoutUs()}` },
    });
    expect(result.exitCode).toBe(0);
    const args = readFileSync(out, 'utf8').split('\n');
    expect(args.slice(0, 3)).toEqual([
      '--app-name=kanban-supervisor',
      '--urgency=normal',
      expect.stringMatching(/^kanban-supervisor: ks-\w+: done \(exit 0\)$/),
    ]);
    expect(args[3]).toMatch(/^Done: the board has no next task \(1 step\(s\)/);
    expect(args).toContain(`Board: ${path.join(dir, 'kanban.yaml')} · task: tasks/001.md · exit 0`);

    const none = pathWithoutUs()
      .split(path.delimiter)
      .filter((d) => !existsSync(path.join(d, 'notify-send')))
      .join(path.delimiter);
    const missing = await runCli(['kanban.yaml', '--notify', 'desktop', '--notify', 'desktop'], {
      cwd: boardWithTasks(1, DONE),
      env: { PATH: none },
    });
    expect(missing.exitCode).toBe(0);
    expect(missing.stderr.match(/desktop notifications need notify-send/g)).toHaveLength(1);
  });

  it('--watch: one notification per wait for a person, not one per poll, and the end when it is stopped', async () => {
    const got = await receiver();
    const worker = fixtureRole(
      'scripted.mjs',
      ['record.jsonl', 'json:{"status":"blocked","message":"which port?"}'],
      'stdin: none\n',
    );
    const dir = boardWithTasks(
      1,
      { 'roles/implementor.md': worker },
      `phase: execute\nsupervisor:\n  watch_poll: 100ms\n  notify: ["json+${got.base}/hook"]\n`,
    );
    const run = resident(dir);
    await run.waiting();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // many polls
    expect(got.json()).toEqual([
      expect.objectContaining({
        event: 'waiting',
        outcome: 'halted_for_human',
        exitCode: 4,
        task: 'tasks/001.md',
        message: expect.stringMatching(/^Waiting \(--watch\): .*which port\?/),
      }),
    ]);
    run.child.kill('SIGTERM');
    const result = await run.child;
    expect(result.exitCode).toBe(143);
    expect(got.json().map((n) => [n.event, n.outcome, n.exitCode])).toEqual([
      ['waiting', 'halted_for_human', 4],
      ['run_ended', 'interrupted', 143],
    ]);
  });
});
