import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { AttemptFile } from './attempt-file.js';

/** How much attempt output the state folder keeps (supervisor.keep_runs, keep_bytes, keep_attempts). */
export interface Retention {
  runs: number;
  bytes: number;
  attempts: number;
}

/** The output files of one attempt, and what names them. */
export interface AttemptOutput {
  out: AttemptFile;
  err: AttemptFile;
  task: string;
}

interface Kept {
  file: string;
  bytes: number;
  run: string;
  /** The task slug of a failed attempt's file: the last of each task goes last. */
  failedTask?: string;
}

/**
 * Attempt output under `.kanban-supervisor/runs/<run>/`, one folder per run, pruned to the
 * retention limits after every attempt: oldest first, except that the last failed attempt of
 * each task goes only when nothing else is left to prune. Files are named
 * `<step, 9 digits>-<role>-<attempt>-<task>.out|.err` (`.failed.out` once judged invalid), so
 * they sort by step at any step count a run can reach.
 */
export class OutputStore {
  private readonly kept: Kept[] = [];
  private bytes = 0;
  /** The newest failed file of each task, pruned last. */
  private readonly lastFailed = new Map<string, Kept>();
  private readonly runDir: string;

  constructor(
    private readonly runsDir: string,
    private readonly run: string,
    private readonly retention: Retention,
  ) {
    this.runDir = path.join(runsDir, run);
    for (const entry of listing(runsDir).sort()) {
      for (const name of listing(path.join(runsDir, entry)).sort()) this.keep(path.join(runsDir, entry, name), entry);
    }
    this.pruneRuns();
  }

  /** The files of a new attempt; nothing is created until the agent prints. */
  open(step: number, role: string, attempt: number, task: string): AttemptOutput {
    mkdirSync(this.runDir, { recursive: true, mode: 0o700 });
    const base = path.join(this.runDir, `${String(step).padStart(9, '0')}-${role.toLowerCase()}-${attempt}-${slug(task)}`);
    return { out: new AttemptFile(`${base}.out`), err: new AttemptFile(`${base}.err`), task };
  }

  /** An attempt is over: mark a failed one, keep its files in the count, and prune past the limits. */
  close(output: AttemptOutput, failed: boolean): { out?: string; err?: string } {
    const names: { out?: string; err?: string } = {};
    for (const which of ['out', 'err'] as const) {
      const file = output[which];
      file.close();
      if (!file.created) continue;
      let name = file.path;
      if (failed) name = renamed(name, name.replace(/\.(out|err)$/, '.failed.$1'));
      this.keep(name, this.run);
      names[which] = name;
    }
    this.prune();
    return names;
  }

  private keep(file: string, run: string): void {
    let bytes = 0;
    try {
      bytes = statSync(file).size;
    } catch {
      return;
    }
    const failedTask = /-\d+-\d+-(.*)\.failed\.(?:out|err)$/.exec(path.basename(file))?.[1];
    const kept: Kept = { file, bytes, run, ...(failedTask !== undefined && { failedTask }) };
    this.kept.push(kept);
    this.bytes += bytes;
    if (failedTask !== undefined) this.lastFailed.set(failedTask, kept);
  }

  // Earlier runs past keep_runs (this one counts too) lose their files when a run starts.
  private pruneRuns(): void {
    const runs = [...new Set(this.kept.filter((k) => this.spare(k)).map((k) => k.run))].sort();
    for (const run of runs.slice(0, Math.max(0, runs.length - (this.retention.runs - 1)))) {
      for (const k of this.kept.filter((k) => k.run === run && this.spare(k))) this.remove(k);
    }
  }

  // The oldest files go while the folder holds too many bytes or attempts. A task's last
  // failed attempt goes only when nothing else is left.
  private prune(): void {
    while (this.kept.length > 0 && (this.bytes > this.retention.bytes || this.kept.length > this.retention.attempts * 2)) {
      this.remove(this.kept.find((k) => this.spare(k)) ?? (this.kept[0] as Kept));
    }
  }

  private spare(k: Kept): boolean {
    return k.failedTask === undefined || this.lastFailed.get(k.failedTask) !== k;
  }

  private remove(victim: Kept): void {
    this.kept.splice(this.kept.indexOf(victim), 1);
    this.bytes -= victim.bytes;
    if (victim.failedTask !== undefined && this.lastFailed.get(victim.failedTask) === victim) this.lastFailed.delete(victim.failedTask);
    rmSync(victim.file, { force: true });
    if (victim.run !== this.run && !this.kept.some((k) => k.run === victim.run)) removeEmptyDir(path.join(this.runsDir, victim.run));
  }
}

// Task paths name the files; only what is safe in a file name is kept.
function slug(task: string): string {
  return task.replace(/\.md$/, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(-60) || 'task';
}

function renamed(from: string, to: string): string {
  try {
    renameSync(from, to);
    return to;
  } catch {
    return from;
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (a person's file) or already gone
  }
}
