import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findChromium } from '../chromium.js';
import { boardWithTasks, CLI, events, fixtureRole, read, role, runCli, tempDir } from '../helpers.js';

/**
 * Headless Chromium on a profile of its own, closed and removed after `use`. Without Chromium the
 * test fails, saying how to get it (a skip would let a green suite hide an untested page).
 */
async function withBrowser(use: (browser: BrowserContext) => Promise<void>): Promise<void> {
  const { executablePath, env } = findChromium();
  const profile = tempDir('ks-chromium-');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    env: { ...process.env, ...env },
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    await use(browser);
  } finally {
    await browser.close();
  }
}

/** A worker that replies `status` with `message` for the task files named, ok for the others, after `delayMs`. */
function replyingWorker(replies: Record<string, { status: string; message: string }>, delayMs = 0): string {
  const code =
    `const r = ${JSON.stringify(replies)}[process.env.KANBAN_TASK_FILE] ?? { status: 'ok', message: 'done' }; ` +
    `setTimeout(() => console.log(JSON.stringify(r)), ${delayMs});`;
  return role(['node', '-e', code]);
}

/** The address `report --watch` prints; it fails if the command ends first. */
function servedAt(server: ResultPromise): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.stdout?.on('data', (chunk: Buffer) => {
      const found = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(chunk.toString())?.[0];
      if (found) resolve(found);
    });
    void server.then((ended) => reject(new Error(`report --watch ended before serving: ${String(ended.stderr)}`)));
  });
}

/** What a page shows in each column, by task. */
async function columns(tab: Page): Promise<Record<string, string[]>> {
  const shown: Record<string, string[]> = {};
  for (const column of ['todo', 'current', 'blocked', 'done'])
    shown[column] = await tab
      .locator(`.column[data-column="${column}"] .card`)
      .evaluateAll((cards) => cards.map((card) => (card as unknown as { dataset: { task: string } }).dataset.task));
  return shown;
}

/**
 * A board whose history has retries, a timeout and Manager turns: task 1 prints garbage once, task 2 hangs once past
 * its 1s timeout.
 */
async function boardWithHistory(): Promise<string> {
  const dir = boardWithTasks(2, {
    'roles/implementor.md': fixtureRole('scripted.mjs', ['impl.jsonl', 'garbage', 'bad-status', 'valid']),
    'roles/architect.md': fixtureRole('scripted.mjs', ['arch.jsonl', 'hang', 'valid'], 'stdin: json\ntimeout: 1s\n'),
    'tasks/002.md': '---\nrole: Architect\ntitle: Review <b>this</b> & that\n---\nReview <b>this</b> & that.\n',
  });
  writeFileSync(path.join(dir, 'kanban.yaml'), `${read(dir, 'kanban.yaml')}supervisor:\n  kill_grace: 1s\n`);
  const result = await runCli(['kanban.yaml'], { cwd: dir });
  expect(result.exitCode).toBe(0);
  return dir;
}

describe('report', () => {
  it(
    'writes a self-contained page that opens in headless Chromium without console errors and shows every attempt ' +
      'with its log links',
    async () => {
      const dir = await boardWithHistory();
      const started = events(dir).filter((e) => e.type === 'attempt_started');
      expect(started).toHaveLength(7); // 3 + 1 Manager, 2 + 1 Manager

      const result = await runCli(['report', 'kanban.yaml'], { cwd: dir });
      expect(result.exitCode).toBe(0);
      const page = path.join(dir, '.kanban-supervisor', 'report.html');
      expect(result.stdout).toBe(
        `Wrote .kanban-supervisor/report.html: 1 run(s), 7 attempt(s). Open it in a browser: file://${page}`,
      );
      const html = read(dir, '.kanban-supervisor/report.html');
      // Nothing external, nothing executable.
      expect(html).not.toMatch(/<script|<link rel="stylesheet"|src="http|url\(http|@import/);

      await withBrowser(async (browser) => {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
        });
        tab.on('pageerror', (error) => problems.push(error.message));
        tab.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
        await tab.setViewportSize({ width: 1280, height: 900 });
        await tab.goto(`file://${page}`, { waitUntil: 'load' });

        const bars = tab.locator('.bar[data-attempt]');
        expect(await bars.count()).toBe(started.length);
        for (const bar of await bars.all()) expect(await bar.isVisible()).toBe(true);
        expect(await tab.locator('tr[data-attempt-row]').count()).toBe(started.length);
        expect(await tab.locator('.bar.retry').count()).toBe(3); // two retries of the Implementor, one of the Architect
        expect(await tab.locator('.bar.timeout').count()).toBe(1);
        expect(await tab.locator('.bar.manager').count()).toBe(2);
        expect(await tab.locator('.lane').count()).toBe(2);
        // A task's title names its lane as plain text; each valid reply is coloured by its status
        // and shows its message.
        expect(await tab.locator('.lane', { hasText: 'Review <b>this</b> & that' }).count()).toBe(1);
        expect(await tab.locator('tr.status-ok[data-attempt-row]').count()).toBe(4);
        expect(await tab.locator('tr.status-ok[data-attempt-row] td.result').first().innerText()).toMatch(
          /^replied ok: /,
        );
        const totals = await tab.locator('#totals .cards').innerText();
        for (const card of ['1\nruns', '2\nsteps', '7\nattempts', '4\nvalid replies', '3\nretries', '1\ntimeouts'])
          expect(totals).toContain(card);

        // Every attempt's log links lead to its real stdout / stderr files (an empty one is never written).
        const links = await tab
          .locator('tr[data-attempt-row] a')
          .evaluateAll((anchors) => anchors.map((a) => (a as unknown as { href: string }).href));
        const finished = events(dir).filter((e) => e.type === 'attempt_finished');
        const files = finished.flatMap((e) => [e.stdoutFile, e.stderrFile]).filter((f) => f !== undefined);
        expect(links.map((l) => path.relative(dir, fileURLToPath(l)))).toEqual(files);
        for (const link of links) expect(existsSync(fileURLToPath(link))).toBe(true);

        const shot = path.join(tempDir(), 'report.png');
        await tab.screenshot({ path: shot, fullPage: true });
        expect(existsSync(shot)).toBe(true);
        expect(problems).toEqual([]);
      });
    },
  );

  it('refuses a board with no recorded runs, writing nothing', async () => {
    const dir = boardWithTasks(1, {});
    const result = await runCli(['report', path.join(dir, 'kanban.yaml')], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'kanban-supervisor: .kanban-supervisor/events.jsonl: no runs recorded yet, so there is nothing to report. ' +
        'Run the board first: npx kanban-supervisor ' +
        path.join(dir, 'kanban.yaml'),
    );
    expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
  });

  it(
    'opens with the board as a kanban view: a card per task in its column, with role, outcome, ' +
      'attempts and links, agent text shown as text',
    async () => {
      const hostile = '<script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">';
      const dir = boardWithTasks(5, {
        'roles/implementor.md': replyingWorker({ 'tasks/002.md': { status: 'blocked', message: hostile } }),
        'tasks/003.md': '---\ntitle: <b>bold</b> & "quoted"\n---\nx\n',
      });
      expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(4); // the Manager escalates task 2
      // The person answers by moving on to task 3.
      writeFileSync(
        path.join(dir, 'kanban.yaml'),
        read(dir, 'kanban.yaml').replace('current: tasks/002.md', 'current: tasks/003.md'),
      );
      expect((await runCli(['report', 'kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
      const page = path.join(dir, '.kanban-supervisor', 'report.html');
      expect(read(dir, '.kanban-supervisor/report.html')).not.toMatch(/<script|<img/);

      await withBrowser(async (browser) => {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('console', (message) => problems.push(message.text()));
        tab.on('pageerror', (error) => problems.push(error.message));
        tab.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
        await tab.setViewportSize({ width: 1280, height: 900 });
        await tab.goto(`file://${page}`, { waitUntil: 'load' });
        expect(await columns(tab)).toEqual({
          todo: ['tasks/004.md', 'tasks/005.md'],
          current: ['tasks/003.md'],
          blocked: ['tasks/002.md'],
          done: ['tasks/001.md'],
        });
        // The board comes first, before the runs.
        expect(await tab.locator('section').first().getAttribute('id')).toBe('board');
        const blocked = tab.locator('.card[data-task="tasks/002.md"]');
        expect(await blocked.locator('.role').innerText()).toBe('Implementor');
        expect(await blocked.locator('.outcome').first().innerText()).toMatch(
          /^replied blocked: <script>document\.title=/,
        );
        expect(await blocked.locator('.outcome.manager').innerText()).toMatch(
          /^Manager: replied escalate: tasks\/002\.md ended/,
        );
        expect(await blocked.locator('.facts').innerText()).toMatch(
          /^1 attempt\(s\) · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · work log · last output$/,
        );
        expect(await blocked.locator('.because').innerText()).toBe(
          'its last step was answered escalate by the Manager',
        );
        expect(await tab.locator('.card[data-task="tasks/001.md"] .because').innerText()).toBe(
          'status: done in its front-matter',
        );
        expect(await tab.locator('.card[data-task="tasks/003.md"] .card-title').innerText()).toBe(
          '<b>bold</b> & "quoted"',
        );
        expect(await tab.locator('.card[data-task="tasks/004.md"] .outcome').innerText()).toBe(
          'no attempt in these runs',
        );
        // Its links lead to the task file (its work log) and the attempt's real stdout file.
        const href = (selector: string) =>
          blocked.locator(selector).evaluate((a) => (a as unknown as { href: string }).href);
        expect(fileURLToPath(await href('a.work-log'))).toBe(path.join(dir, 'tasks', '002.md'));
        const finished = events(dir).find((e) => e.type === 'attempt_finished' && e.task === 'tasks/002.md');
        expect(fileURLToPath(await href('a.last-output'))).toBe(path.join(dir, String(finished?.stdoutFile)));
        expect(await tab.title()).toBe('Board and runs · kanban.yaml');
        expect(problems).toEqual([]);
      });
    },
  );

  it(
    '--watch serves the page on 127.0.0.1, which picks up each step within 2 s of its event and stops cleanly on ' +
      'Ctrl-C',
    async () => {
      const dir = boardWithTasks(2, { 'roles/implementor.md': replyingWorker({}, 1500) });
      const server = execa('node', [CLI, 'report', '--watch'], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
      try {
        const url = await servedAt(server);
        await withBrowser(async (browser) => {
          const tab = await browser.newPage();
          const problems: string[] = [];
          tab.on('console', (message) => problems.push(message.text()));
          tab.on('pageerror', (error) => problems.push(error.message));
          await tab.goto(url, { waitUntil: 'load' });
          expect(await columns(tab)).toEqual({
            todo: ['tasks/002.md'],
            current: ['tasks/001.md'],
            blocked: [],
            done: [],
          });
          expect(await tab.locator('#runs').innerText()).toMatch(/No runs recorded yet/);

          const run = execa('node', [CLI, 'kanban.yaml'], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
          // Each step as the page picks it up, against the time its event was written.
          const lag = async (selector: string, event: (e: Record<string, unknown>) => boolean): Promise<number> => {
            await tab.waitForSelector(selector, { timeout: 20_000 });
            const seen = Date.now();
            const written = events(dir).find(event);
            expect(written).toBeDefined();
            return seen - Date.parse(String(written?.time));
          };
          const started = await lag(
            '.card[data-task="tasks/001.md"] .tag.running',
            (e) => e.type === 'attempt_started' && e.task === 'tasks/001.md' && e.done_task === undefined,
          );
          const moved = await lag(
            '.column[data-column="done"] .card[data-task="tasks/001.md"]',
            (e) => e.type === 'board_written' && e.step === 1,
          );
          const second = await lag(
            '.card[data-task="tasks/002.md"] .tag.running',
            (e) => e.type === 'attempt_started' && e.task === 'tasks/002.md' && e.done_task === undefined,
          );
          expect((await run).exitCode).toBe(0);
          await tab.waitForSelector('.column[data-column="done"] .card[data-task="tasks/002.md"]', { timeout: 5_000 });
          for (const [step, ms] of Object.entries({ started, moved, second })) expect(ms, step).toBeLessThan(2_000);
          expect(await tab.locator('.bar[data-attempt]').count()).toBe(4);
          expect(problems).toEqual([]);
        });
        server.kill('SIGINT');
        const ended = await server;
        expect(ended.exitCode).toBe(0);
        expect(ended.stdout).toMatch(/\nStopped serving \(SIGINT\)\.$/);
      } finally {
        server.kill('SIGKILL');
        await server;
      }
    },
  );

  it(
    '--watch serves only the page and the files it links, to 127.0.0.1 and its own secret address, ' +
      'and ends on SIGTERM',
    async () => {
      const dir = boardWithTasks(1, { 'roles/implementor.md': replyingWorker({}) });
      expect((await runCli(['kanban.yaml'], { cwd: dir })).exitCode).toBe(0);
      const output = events(dir).find((e) => e.type === 'attempt_finished')?.stdoutFile as string;
      // An agent's planted link beside its output: not followed.
      symlinkSync('/etc/passwd', path.join(dir, path.dirname(output), 'planted.out'));
      const server = execa('node', [CLI, 'report', '--watch', '--port', '0'], { cwd: dir, reject: false });
      try {
        const url = new URL(await servedAt(server));
        const get = (where: string, host = url.host) =>
          new Promise<{ status: number; type: string; body: string; policy: string }>((resolve, reject) => {
            const request = httpGet(
              { host: url.hostname, port: url.port, path: where, headers: { host } },
              (answer) => {
                let body = '';
                answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
                answer.on('end', () =>
                  resolve({
                    status: answer.statusCode ?? 0,
                    type: String(answer.headers['content-type']),
                    body,
                    policy: String(answer.headers['content-security-policy']),
                  }),
                );
              },
            );
            request.on('error', reject);
          });
        const page = await get(url.pathname);
        expect([page.status, page.type]).toEqual([200, 'text/html; charset=utf-8']);
        expect(page.policy).toMatch(/^default-src 'none';.* script-src 'sha256-[^']+'; connect-src 'self'/);
        expect(page.body.match(/<script>/g)).toHaveLength(1);
        const task = await get(`${url.pathname}files/tasks/001.md`);
        expect([task.status, task.type, task.body]).toEqual([
          200,
          'text/plain; charset=utf-8',
          read(dir, 'tasks/001.md'),
        ]);
        expect((await get(`${url.pathname}files/${output}`)).body).toBe(read(dir, output));
        for (const refused of [
          '/', // without the secret path
          `${url.pathname}files/kanban.yaml`, // not a file the page links to
          `${url.pathname}files/.kanban-supervisor/events.jsonl`,
          `${url.pathname}files/${path.dirname(output)}/planted.out`,
          `${url.pathname}files/tasks/..%2F..%2F..%2Fetc%2Fpasswd`,
          `${url.pathname}files/.kanban-supervisor/runs/..%2F..%2Fkanban.yaml`,
        ])
          expect([refused, (await get(refused)).status]).toEqual([refused, 404]);
        // A page on another site reaching it through a name of its own (DNS rebinding) is refused.
        expect((await get(url.pathname, `evil.example:${url.port}`)).status).toBe(403);
        // Bound to 127.0.0.1 alone: another loopback address does not answer.
        await expect(
          new Promise((resolve, reject) =>
            httpGet({ host: '127.0.0.2', port: url.port, path: url.pathname }, resolve).on('error', reject),
          ),
        ).rejects.toThrow(/ECONNREFUSED/);
        server.kill('SIGTERM');
        const ended = await server;
        expect([ended.exitCode, ended.stdout.split('\n').at(-1)]).toEqual([0, 'Stopped serving (SIGTERM).']);
      } finally {
        server.kill('SIGKILL');
        await server;
      }
    },
  );

  it('--watch refuses --out, and --port without --watch, before serving', async () => {
    const dir = boardWithTasks(1, {});
    const both = await runCli(['report', '--watch', '--out', 'x.html'], { cwd: dir });
    expect([both.exitCode, both.stderr]).toEqual([
      2,
      'kanban-supervisor: --out writes the page to a file; --watch serves it and writes nothing: pass one of them.',
    ]);
    const port = await runCli(['report', '--port', '8080'], { cwd: dir });
    expect([port.exitCode, port.stderr]).toEqual([
      2,
      'kanban-supervisor: --port is the port of the live page: add --watch, or leave --port out to write the page.',
    ]);
  });
});
