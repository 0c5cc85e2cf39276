import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The variable every process of one test run inherits, so that what a test leaves running is found. */
const MARKER = 'KS_TEST_RUN';

/**
 * Give this test run a temp folder of its own and mark the processes it starts: the tests, the
 * CLIs and agents they spawn inherit TMPDIR and the marker. The folder is open to every user
 * (sticky, as /tmp is): sandbox tests run agents as `nobody` in boards made there.
 */
export function watchLeftovers(): { check: () => Promise<void> } {
  const folder = mkdtempSync(path.join(tmpdir(), 'ks-test-run-'));
  chmodSync(folder, 0o1777);
  process.env.TMPDIR = folder;
  process.env[MARKER] = path.basename(folder);
  return { check: () => checkNothingLeft(folder) };
}

/**
 * After the last test: every file and process the run left is a failure of the run, listed by
 * name (what is left is removed, and what runs is killed, so that even a failing run leaves
 * nothing). A process is the run's if it carries the marker, works in the run's temp folder or
 * names it on its command line; vitest's own workers (children of this process) are not.
 */
async function checkNothingLeft(folder: string): Promise<void> {
  // A killed agent may take its kill_grace to go: wait a little before calling it left behind.
  let running = processesOfRun(folder);
  for (let waited = 0; running.length > 0 && waited < 5_000; waited += 100) {
    await sleep(100);
    running = processesOfRun(folder);
  }
  const files = readdirSync(folder);
  for (const { pid } of running) kill(pid);
  rmSync(folder, { recursive: true, force: true });
  const problems = [
    ...(files.length ? [`${files.length} temp entries left: ${files.slice(0, 20).join(', ')}`] : []),
    ...running.map(({ pid, command }) => `process ${pid} left running: ${command}`),
  ];
  if (problems.length === 0) return;
  process.exitCode = 1;
  process.stderr.write(
    `\nThe tests left things behind (each test must remove what it makes and stop what it starts):\n` +
      `  ${problems.join('\n  ')}\n`,
  );
}

function processesOfRun(folder: string): Array<{ pid: number; command: string }> {
  if (!existsSync('/proc/self/environ')) return []; // no /proc (macOS): the temp folder is still checked
  const marker = `${MARKER}=${path.basename(folder)}`;
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || Number(parent) === process.pid) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const ours =
        readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker) ||
        readlinkSync(`/proc/${pid}/cwd`).startsWith(`${folder}/`) ||
        command.includes(folder);
      if (ours) found.push({ pid, command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
