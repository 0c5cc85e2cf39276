import { statSync } from 'node:fs';
import path from 'node:path';
import { realBoardPath } from '../board/locate.js';
import { readBoard, type Board } from '../board/read-board.js';
import { SupervisorError } from '../errors.js';
import { ownerState, probePid, selfIdentity } from '../lock/process-identity.js';
import { lockPath, readLockOwner, STALE_MS, UNSEEN_STALE_MS } from '../lock/lock.js';
import { isAlive } from '../util/process.js';
import { readLatest, type HistoryWindow, type LatestRun } from '../events/latest.js';
import { CAPABILITY_EVENTS } from '../run/capability-list.js';
import type { AttemptRecord, RunEnd } from '../events/records.js';
import { addUsage, emptySpend, type SpendTotal } from '../spend.js';
import { waitingFile, type Waiting } from '../log/waiting.js';
import { determineRole } from '../board/determine-role.js';
import { readTaskMeta } from '../board/task.js';
import { resolveAllInBoard, type BoardFile } from '../board/paths.js';
import type { TaskFacts } from '../report/board-view.js';
import { boardParked, type ParkedTask } from '../board/parked.js';
import { addAttempt, emptyFigures, type Figures } from '../report/figures.js';

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
  /** The Manager set it aside for a person (kanban.yaml `parked:`). */
  parked?: ParkedTask;
}

/** The last run, as `status` shows it: the fold's, with what its attempts reported spending. */
export type LastRun = LatestRun & {
  /** In all, per role and per task (the Manager's under its done task). */
  spend: { total: SpendTotal; byRole: Record<string, SpendTotal>; byTask: Record<string, SpendTotal> };
  /** The morning figures: in all, and per task (its worker's attempts and the Manager's turns on it). */
  figures: Figures & { byTask: Record<string, Figures> };
};

/** Who holds the board's run lock. */
export type LockStatus =
  | { state: 'free' }
  | { state: 'running'; pid: number; host: string; since: string }
  /**
   * Held by a supervisor whose process cannot be looked up from here (another container of this
   * kernel, or another host) and refreshed `refreshedMs` ago: running there, as the next run judges it.
   */
  | { state: 'elsewhere'; pid: number; host: string; since: string; where: 'container' | 'host'; refreshedMs: number }
  | { state: 'stale'; pid: number; host: string; since: string; silentMs?: number }
  /** Locked, the owner not recorded (yet). */
  | { state: 'unknown' };

/** Everything `status` shows. */
export interface StatusReport {
  file: string;
  phase: string | null;
  subPhase: string | null;
  current: string | null;
  tasks: TaskStatus[];
  lock: LockStatus;
  lastRun?: LastRun;
  lastHalt?: RunEnd & { run: string };
  /**
   * How much of the history (events.jsonl, then events.1.jsonl) was read:
   * from the end, until all of the above was found or the window was full.
   */
  history: HistoryWindow;
  /** What a run waits for (a usage limit's reset, a person's edit under --watch), and whether that run still runs. */
  waiting?: Waiting & { active: boolean };
  /** `phase: complete` with a task still current: the task will not run. */
  completeWithCurrent?: true;
}

/**
 * `kanban-supervisor status`: the board, its event log and its lock at a glance. Reads only:
 * takes no lock, writes nothing. The event log is read from its end, only as far as needed
 * and at most `windowBytes` (default STATUS_WINDOW_BYTES), so a history of any size is quick.
 */
export function status(options: { file: string; windowBytes?: number }): StatusReport {
  const file = realBoardPath(options.file);
  const board = readBoard(file);
  const listed = boardTasks(board);
  // The task files before the history: reading them churns memory, and doing it before the
  // history's records are held keeps the peak lower (10,000 tasks: ~160 MB -> ~135 MB).
  const facts = readTaskFacts(board, listed).map(({ status: _status, ...rest }) => rest);
  const spend: LastRun['spend'] = { total: emptySpend(), byRole: {}, byTask: {} };
  const figures: LastRun['figures'] = { ...emptyFigures(), byTask: {} };
  const latest = readLatest(board.dir, listed, CAPABILITY_EVENTS, {
    windowBytes: options.windowBytes,
    lastRunAttempt: (attempt) => {
      addSpend(spend, attempt);
      addAttempt(figures, attempt);
      if (attempt.trigger === undefined) addAttempt((figures.byTask[attempt.task] ??= emptyFigures()), attempt);
    },
  });
  figures.limitWaitMs = latest.lastRun?.limitWaitMs ?? 0;
  const waiting = waitingFile.read(board.dir);
  const parked = new Map(boardParked(board.doc).map((entry) => [entry.task, entry]));
  const tasks = facts.map(({ task, ...rest }): TaskStatus => {
    const last = latest.attempts.get(task);
    const aside = parked.get(task);
    return { task, current: task === board.current, ...(last && { last }), ...(aside && { parked: aside }), ...rest };
  });
  return {
    file,
    phase: board.phase ?? null,
    subPhase: board.sub_phase ?? null,
    current: board.current,
    tasks,
    lock: lockStatus(file),
    ...(latest.lastRun && { lastRun: { ...latest.lastRun, spend, figures } }),
    ...(latest.lastHalt && { lastHalt: latest.lastHalt }),
    history: latest.window,
    ...(waiting && { waiting: { ...waiting, active: isAlive(waiting.pid) } }),
    ...(board.phase === 'complete' && board.current !== null && { completeWithCurrent: true as const }),
  };
}

// What an attempt reported spending, added in all, to its role and to its task.
function addSpend(spend: LastRun['spend'], { role, task, finished }: AttemptRecord): void {
  if (!finished?.usage) return;
  addUsage(spend.total, finished.usage);
  addUsage((spend.byRole[role] ??= emptySpend()), finished.usage);
  addUsage((spend.byTask[task] ??= emptySpend()), finished.usage);
}

/** The board's tasks: its list, and `current` when the list lacks it. */
export function boardTasks(board: Board): string[] {
  return board.current !== null && !board.tasks.includes(board.current) ? [...board.tasks, board.current] : board.tasks;
}

/**
 * What each task's file says: the role that runs it, its title and front-matter status, or why it
 * cannot be read. Their paths checked at once: a folder of thousands of tasks is listed, not
 * resolved a path at a time.
 */
export function readTaskFacts(board: Board, tasks: readonly string[]): TaskFacts[] {
  const paths = resolveAllInBoard(board.dir, tasks);
  return tasks.map((task, i) => ({ task, ...taskFacts(board, task, paths[i]) }));
}

function taskFacts(board: Board, task: string, where?: BoardFile): Omit<TaskFacts, 'task'> {
  try {
    const meta = readTaskMeta(board.dir, task, where);
    return {
      role: determineRole(board, meta),
      ...(typeof meta.title === 'string' && { title: meta.title }),
      ...(typeof meta.status === 'string' && { status: meta.status }),
    };
  } catch (error) {
    if (!(error instanceof SupervisorError)) throw error;
    return { role: null, problem: error.message };
  }
}

/** Who holds the lock: the lock folder proper-lockfile made, and the owner record beside it. */
export function lockStatus(file: string, now = Date.now()): LockStatus {
  const stateDir = path.join(path.dirname(file), '.kanban-supervisor');
  const owner = readLockOwner(stateDir);
  const refreshed = mtimeOf(lockPath(stateDir));
  if (refreshed === undefined) return { state: 'free' };
  if (!owner) return { state: 'unknown' };
  const who = { pid: owner.pid, host: owner.host, since: owner.since };
  // Judged as the next run's lock would judge it: by process identity, not by pid alone (lock/process-identity.ts).
  const state = ownerState(owner, selfIdentity(), probePid);
  if (state === 'alive') return { state: 'running', ...who };
  if (state === 'dead') return { state: 'stale', ...who };
  // Its pid means nothing here: the lock's refreshes (every 2 s while it runs) tell, as they tell the next run.
  const silentMs = Math.max(0, now - refreshed);
  if (silentMs > (state === 'unseen' ? UNSEEN_STALE_MS : STALE_MS)) return { state: 'stale', ...who, silentMs };
  return { state: 'elsewhere', ...who, where: state === 'unseen' ? 'container' : 'host', refreshedMs: silentMs };
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
