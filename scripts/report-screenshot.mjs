// `node scripts/report-screenshot.mjs`: makes docs/report.png, the screenshot of the report in
// docs/report.md. It runs the built CLI (npm run build first) on a 20-task board in a temp folder
// — real runs of small agents: replies, a retry after garbage, a timeout, a task blocked and
// escalated, a person moving on — writes the report and photographs it in headless Chromium
// ($CHROMIUM, else the usual places). Everything it made but the picture is removed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const OUT = path.join(ROOT, 'docs', 'report.png');
const TITLES = [
  'Sketch the API of the orders service',
  'Add the /health endpoint',
  'Write the migration for users.email',
  'Validate order payloads',
  'Cache product lookups',
  'Paginate GET /orders',
  'Retry failed webhooks with backoff',
  'Log every request with its id',
  'Add rate limiting per API key',
  'Document the public endpoints',
  'Review the error responses',
  'Pick the message queue',
  'Emit order events to the queue',
  'Consume events in the mailer',
  'Load-test checkout',
  'Add the admin dashboard page',
  'Export orders as CSV',
  'Set up the staging deploy',
  'Write the runbook',
  'Release 1.0',
];

// The worker: replies by its task's number; garbage once for task 4, a hang past its timeout once
// for task 7, blocked for task 12 (which the sequential Manager escalates).
const WORKER = `import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const task = process.env.KANBAN_TASK_FILE;
const n = Number(/(\\d+)/.exec(task)[1]);
const tries = existsSync('tries.log') ? readFileSync('tries.log', 'utf8').split('\\n') : [];
const seen = tries.filter((t) => t === task).length;
appendFileSync('tries.log', task + '\\n');
const reply = (status, message) =>
  setTimeout(() => console.log(JSON.stringify({ status, message })), 150 + (n % 5) * 120);
if (n === 4 && seen === 0) console.log('Sure! I validated the payloads.');
else if (n === 7 && seen === 0) setInterval(() => {}, 1000);
else if (n === 12) reply('blocked', 'Kafka or RabbitMQ? The task does not say; add a line DECISION: <name> to it.');
else reply('ok', 'Done: ' + ${JSON.stringify(TITLES)}[n - 1].toLowerCase() + '; tests pass.');
`;

const dir = mkdtempSync(path.join(tmpdir(), 'ks-screenshot-'));
const profile = mkdtempSync(path.join(tmpdir(), 'ks-screenshot-chromium-'));
try {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first.');
  const tasks = TITLES.map((_, i) => `tasks/${String(i + 1).padStart(3, '0')}.md`);
  const files = {
    'kanban.yaml':
      `phase: execute\ncurrent: ${tasks[0]}\ntasks:\n${tasks.map((t) => `  - ${t}\n`).join('')}` +
      'supervisor:\n  kill_grace: 1s\n',
    'worker.mjs': WORKER,
    'roles/implementor.md': '---\ncommand: [node, worker.mjs]\nstdin: none\ntimeout: 2s\n---\nDo {{task_file}}.\n',
    'roles/manager.md':
      "---\ncommand: [node, '{{agents}}/sequential-manager.js']\nstdin: json\n---\nPick the next task.\n",
    ...Object.fromEntries(tasks.map((t, i) => [t, `---\ntitle: ${TITLES[i]}\n---\n${TITLES[i]}.\n`])),
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const cli = (...args) => {
    try {
      const env = { ...process.env, NO_COLOR: '1' };
      execFileSync(process.execPath, [CLI, ...args], { cwd: dir, stdio: 'ignore', env });
    } catch (error) {
      if (error.status !== 4) throw error; // the Manager halts at task 12, as planned
    }
  };
  cli('kanban.yaml');
  // A person answers by moving on to task 13 for now.
  const board = readFileSync(path.join(dir, 'kanban.yaml'), 'utf8');
  writeFileSync(path.join(dir, 'kanban.yaml'), board.replace(`current: ${tasks[11]}`, `current: ${tasks[12]}`));
  cli('report', 'kanban.yaml');

  const places = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  const executablePath = process.env.CHROMIUM ?? places.find((place) => existsSync(place));
  if (!executablePath) throw new Error('No Chromium found: set CHROMIUM=/path/to/chrome.');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    viewport: { width: 1440, height: 900 },
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`file://${path.join(dir, '.kanban-supervisor', 'report.html')}`, { waitUntil: 'load' });
    // The board, the totals and the run's timeline: the morning read's first screen and a half.
    const end = await tab
      .locator('section.run')
      .first()
      .evaluate((run) => run.getBoundingClientRect().bottom);
    mkdirSync(path.dirname(OUT), { recursive: true });
    await tab.screenshot({ path: OUT, clip: { x: 0, y: 0, width: 1440, height: Math.ceil(end) + 16 }, fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`Wrote ${path.relative(process.cwd(), OUT)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
