import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { openRealDir, type RealDir } from '../fs/real-dir.js';
import { AttemptFile } from './attempt-file.js';
import { attemptsIn, realFolders, removeEmptyDir } from './run-folders.js';

/** How much attempt output the state folder keeps (supervisor.keep_runs, keep_bytes, keep_attempts). */
export interface Retention {
  runs: number;
  bytes: number;
  attempts: number;
}

/** The output files of one attempt. */
export interface AttemptOutput {
  out: AttemptFile;
  err: AttemptFile;
}

// One attempt's files in a run folder; retention counts attempts, not files.
interface Kept {
  run: string;
  /** Its `.out` and `.err` files, whichever were written. */
  names: string[];
  bytes: number;
  /** The task slug of a failed attempt: the last of each task goes last. */
  failedTask?: string;
}

/** Where a run's attempt output goes, board-relative: a folder per run. */
export const RUNS = '.kanban-supervisor/runs';

/**
 * Attempt output under `.kanban-supervisor/runs/<run>/`, a folder per run, pruned to the
 * retention limits after every attempt: oldest first, except that the last failed attempt of
 * each task goes only when nothing else is left. Files are named
 * `<step, 9 digits>-<role>-<attempt>-<task>.out|.err` (`.failed.out` once judged invalid), so
 * they sort by step at any step count. Nothing is written, renamed or removed through a symlink.
 */
export class OutputStore {
  private kept: Kept[] = [];
  private bytes = 0;
  private readonly lastFailed = new Map<string, Kept>();
  private dir: RealDir | undefined;

  constructor(
    private readonly boardDir: string,
    private readonly run: string,
    private readonly retention: Retention,
    /** The board-relative folder of the run folders: RUNS, or another for output kept apart (`try`). */
    private readonly folder = RUNS,
  ) {
    for (const run of realFolders(path.join(boardDir, folder)).sort()) {
      for (const attempt of attemptsIn(path.join(boardDir, folder, run))) this.keep(run, attempt.names, attempt.bytes);
    }
    this.pruneRuns();
  }

  /** Whether this output is kept apart from the board's runs (`try`'s). */
  get apart(): boolean {
    return this.folder !== RUNS;
  }

  /** The files of a new attempt; nothing is created until the agent prints. */
  open(step: number, role: string, attempt: number, task: string, rerun = 0): AttemptOutput {
    this.dir ??= openRealDir(this.boardDir, `${this.folder}/${this.run}`, { create: true });
    const base = attemptFileBase(step, role, attempt, task, rerun);
    return { out: new AttemptFile(this.dir, `${base}.out`), err: new AttemptFile(this.dir, `${base}.err`) };
  }

  /**
   * An attempt is over: mark a failed one, count its files, prune
   * past the limits. Returns the files kept, board-relative.
   */
  close(output: AttemptOutput, failed: boolean): { out?: string; err?: string } {
    const names: { out?: string; err?: string } = {};
    const kept: string[] = [];
    let bytes = 0;
    for (const which of ['out', 'err'] as const) {
      const file = output[which];
      file.close();
      if (!file.created || !this.dir) continue;
      if (failed) file.name = this.renamed(this.dir, file.name, file.name.replace(/\.(out|err)$/, '.failed.$1'));
      kept.push(file.name);
      bytes += file.bytes;
      names[which] = `${this.folder}/${this.run}/${file.name}`;
    }
    if (kept.length) this.keep(this.run, kept, bytes);
    this.prune();
    return names;
  }

  /** Close the run's folder. */
  dispose(): void {
    this.dir?.close();
    this.dir = undefined;
  }

  private keep(run: string, names: string[], bytes: number): void {
    const failedTask = names
      .map((name) => /^\d+-[^-]+-\d+-(.*)\.failed\.(?:out|err)$/.exec(name)?.[1])
      .find((task) => task !== undefined);
    const kept: Kept = { run, names, bytes, ...(failedTask !== undefined && { failedTask }) };
    this.kept.push(kept);
    this.bytes += bytes;
    if (failedTask !== undefined) this.lastFailed.set(failedTask, kept);
  }

  // Earlier runs past keep_runs (this one counts too) lose their files when a run starts.
  private pruneRuns(): void {
    const runs = [...new Set(this.kept.filter((k) => this.spare(k)).map((k) => k.run))].sort();
    for (const run of runs.slice(0, Math.max(0, runs.length - (this.retention.runs - 1))))
      this.remove(this.kept.filter((k) => k.run === run && this.spare(k)));
  }

  // The oldest attempts go while the folder holds too many bytes or attempts; a task's last
  // failed attempt goes only when nothing else is left.
  private prune(): void {
    while (this.kept.length > 0 && (this.bytes > this.retention.bytes || this.kept.length > this.retention.attempts)) {
      this.remove([this.kept.find((k) => this.spare(k)) ?? (this.kept[0] as Kept)]);
    }
  }

  private spare(k: Kept): boolean {
    return k.failedTask === undefined || this.lastFailed.get(k.failedTask) !== k;
  }

  // Removed through the run folder opened as a real folder: a run folder an agent swapped
  // for a symlink is left alone, never followed.
  private remove(victims: Kept[]): void {
    const gone = new Set(victims);
    this.kept =
      victims.length === 1 && this.kept[0] === victims[0] ? this.kept.slice(1) : this.kept.filter((k) => !gone.has(k));
    for (const victim of victims) {
      this.bytes -= victim.bytes;
      if (victim.failedTask !== undefined && this.lastFailed.get(victim.failedTask) === victim)
        this.lastFailed.delete(victim.failedTask);
    }
    for (const run of new Set(victims.map((v) => v.run))) {
      let dir: RealDir;
      try {
        dir = run === this.run && this.dir ? this.dir : openRealDir(this.boardDir, `${this.folder}/${run}`);
      } catch {
        continue;
      }
      for (const victim of victims)
        if (victim.run === run) for (const name of victim.names) rmSync(dir.at(name), { force: true });
      if (dir !== this.dir) {
        dir.close();
        if (!this.kept.some((k) => k.run === run)) removeEmptyDir(path.join(this.boardDir, this.folder, run));
      }
    }
  }

  private renamed(dir: RealDir, from: string, to: string): string {
    try {
      renameSync(dir.at(from), dir.at(to));
      return to;
    } catch {
      return from;
    }
  }
}

/**
 * The name of an attempt's files in its run folder, before `.out` / `.err` (`.failed.out` once
 * judged invalid): `<step>-<role>-<attempt>-<task>`, the attempt numbered as events and the
 * console number it; a re-run of it after a usage limit or a service error adds `.rerun<R>`.
 */
export function attemptFileBase(step: number, role: string, attempt: number, task: string, rerun = 0): string {
  return (
    `${String(step).padStart(9, '0')}-${role.toLowerCase()}-${attempt}-${slug(task)}` +
    `${rerun > 0 ? `.rerun${rerun}` : ''}`
  );
}

// Task paths name the files; only what is safe in a file name is kept.
function slug(task: string): string {
  return (
    task
      .replace(/\.md$/, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(-60) || 'task'
  );
}
