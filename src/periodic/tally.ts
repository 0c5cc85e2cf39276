import type { PeriodicRole } from './settings.js';

/**
 * What a run has completed, kept across the passes of a resident run (--watch): how many steps,
 * and for each periodic role the tasks completed since it last ran. Counted per run: a new run
 * (a restart) starts again from zero.
 */
export class RunTally {
  private completed = 0;
  private readonly unseen = new Map<string, string[]>();

  /**
   * Count a completed step (its worker and its Manager ran, the answer was ok) on `task`, and
   * return the periodic roles due after it, in the order listed: those whose `every` divides
   * the count of completed steps.
   */
  stepCompleted(task: string, periodic: readonly PeriodicRole[]): PeriodicRole[] {
    this.completed++;
    for (const { role } of periodic) {
      const tasks = this.unseen.get(role) ?? [];
      if (!tasks.includes(task)) tasks.push(task);
      this.unseen.set(role, tasks);
    }
    return periodic.filter((entry) => this.completed % entry.every === 0);
  }

  /** The tasks completed since `role` last ran (each once, in the order first completed), and start its list afresh. */
  takeDone(role: string): string[] {
    const tasks = this.unseen.get(role) ?? [];
    this.unseen.set(role, []);
    return tasks;
  }
}
