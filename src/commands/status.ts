import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { readBoard } from '../board/read.js';
import { realBoardPath } from '../board/locate.js';
import { SupervisorError } from '../errors.js';
import { lockPath, readLockOwner } from '../lock/lock.js';
import { isAlive } from '../util/process.js';
import { buildHistory, readEvents, type AttemptRecord, type RunEnd, type RunRecord } from '../history/runs.js';
import { determineRole } from '../role/determine.js';
import { readTaskMeta } from '../board/task.js';

/** One task of the board at a glance. */
export interface TaskStatus {
  task: string;
  current: boolean;
  title?: string;
  /** The role that runs it now (determine_role), or null if its file cannot be read. */
  role: string | null;
  problem?: string;
  /** Its worker's last attempt, from the event log. */
  last?: AttemptRecord;
}

/** Who holds the board's run lock. */
export type LockStatus =
  | { state: 'free' }
  | { state: 'running'; pid: number; host: string; since: string }
  | { state: 'stale'; pid: number; host: string; since: string }
  | { state: 'unknown'; pid?: number; host?: string; since?: string };

/** Everything `status` shows. */
export interface StatusReport {
  file: string;
  phase: string | null;
  subPhase: string | null;
  current: string | null;
  tasks: TaskStatus[];
  lock: LockStatus;
  lastRun?: { id: string; start: string; last: string; steps: number; end?: RunEnd };
  lastHalt?: RunEnd & { run: string };
}

/** `kanban-supervisor status`: the board, its event log and its lock at a glance. Reads only: takes no lock, writes nothing. */
export function status(options: { file: string }): StatusReport {
  const file = realBoardPath(options.file);
  const board = readBoard(file);
  const runs = buildHistory(readEvents(board.dir));
  const lastWorker = new Map<string, AttemptRecord>();
  for (const attempt of runs.flatMap((r) => r.attempts)) if (!attempt.manager) lastWorker.set(attempt.task, attempt);
  const listed = board.current !== null && !board.tasks.includes(board.current) ? [...board.tasks, board.current] : board.tasks;
  const tasks = listed.map((task): TaskStatus => {
    const base = { task, current: task === board.current, ...(lastWorker.has(task) && { last: lastWorker.get(task) as AttemptRecord }) };
    try {
      const meta = readTaskMeta(board.dir, task);
      return { ...base, role: determineRole(board, meta), ...(typeof meta.title === 'string' && { title: meta.title }) };
    } catch (error) {
      if (!(error instanceof SupervisorError)) throw error;
      return { ...base, role: null, problem: error.message };
    }
  });
  const lastRun = runs.at(-1);
  const halts = runs.filter((r) => r.end && r.end.type !== 'done');
  const halt = halts.at(-1);
  return {
    file,
    phase: board.phase ?? null,
    subPhase: board.sub_phase ?? null,
    current: board.current,
    tasks,
    lock: lockStatus(file),
    ...(lastRun && { lastRun: summary(lastRun) }),
    ...(halt?.end && { lastHalt: { ...halt.end, run: halt.id } }),
  };
}

function summary(run: RunRecord): NonNullable<StatusReport['lastRun']> {
  return { id: run.id, start: run.start, last: run.last, steps: run.steps, ...(run.end && { end: run.end }) };
}

/** Who holds the lock: the lock folder proper-lockfile made, and the owner record beside it. */
export function lockStatus(file: string): LockStatus {
  const stateDir = path.join(path.dirname(file), '.kanban-supervisor');
  const owner = readLockOwner(stateDir);
  if (!existsSync(lockPath(stateDir))) return { state: 'free' };
  if (!owner) return { state: 'unknown' };
  const who = { pid: owner.pid, host: owner.host, since: owner.since };
  if (owner.host !== hostname()) return { state: 'unknown', ...who };
  return isAlive(owner.pid) ? { state: 'running', ...who } : { state: 'stale', ...who };
}
