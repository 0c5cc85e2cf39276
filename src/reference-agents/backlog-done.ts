import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseFrontMatter } from '../board/front-matter.js';
import { isDoneStatus } from '../board/import/backlog-md.js';

/**
 * `--backlog-done STATUS` in the Manager's argv (init --from backlog writes it): the tasks are
 * Backlog.md's own files, STATUS its done status. Undefined without it.
 */
export function backlogDoneStatus(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('--backlog-done');
  return at === -1 ? undefined : (argv[at + 1] ?? 'Done');
}

/**
 * Set a Backlog.md task done with Backlog.md's own CLI (`backlog task edit ID -s STATUS`), which
 * writes the file as Backlog.md does (updated_date too); the problem in words when it could not.
 * Its output goes to a pipe: this Manager's stdout holds its one reply.
 */
export function markDoneInBacklog(task: string, status: string): string | undefined {
  const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
  const id = parsed.ok ? parsed.data.id : undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return `${task} has no id: in its front-matter`;
  const argv = ['task', 'edit', String(id), '-s', status, '--plain'];
  const shown = `backlog ${argv.slice(0, 5).join(' ')}`;
  const run = spawnSync('backlog', argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code ?? run.error.message;
    return `${shown} could not start (${code}): Backlog.md's CLI must be on PATH (npm install -g backlog.md)`;
  }
  if (run.status !== 0) {
    const said = `${run.stderr}${run.stdout}`.trim().split('\n').at(-1) ?? '';
    return `${shown} failed (${run.status === null ? `signal ${run.signal ?? '?'}` : `exit ${run.status}`}): ${said}`;
  }
  return undefined;
}

/** Whether a Backlog.md task's status is the done one. */
export function isBacklogDone(task: string, status: string): boolean {
  const parsed = parseFrontMatter(readFileSync(task, 'utf8'));
  return parsed.ok && typeof parsed.data.status === 'string' && isDoneStatus(parsed.data.status, status);
}
