import type { RunRecord } from '../events/fold.js';
import type { AttemptRecord } from '../events/records.js';
import { addUsage, emptySpend, formatSpend, type SpendTotal } from '../spend.js';
import { formatDuration } from '../util/duration.js';

/**
 * The morning figures of a run or a task: what the night cost for what it got done. A model run is
 * an attempt whose CLI reported spend (the shipped sequential Manager's turns report none); a retry
 * is a format retry (an attempt after the first of an agent run); a completed task is a worker's
 * reply `ok`. Limit waits are as their limit_wait events planned them.
 */
export interface Figures {
  completed: number;
  modelRuns: number;
  retries: number;
  spend: SpendTotal;
  limitWaitMs: number;
}

/** Figures of nothing yet. */
export function emptyFigures(): Figures {
  return { completed: 0, modelRuns: 0, retries: 0, spend: emptySpend(), limitWaitMs: 0 };
}

/** Count one attempt in (pure but for `figures`). */
export function addAttempt(figures: Figures, attempt: AttemptRecord): void {
  const before = figures.spend.priced;
  addUsage(figures.spend, attempt.finished?.usage);
  if (figures.spend.priced > before) figures.modelRuns++;
  if (attempt.attempt > 1) figures.retries++;
  const end = attempt.finished;
  if (!attempt.manager && attempt.trigger === undefined && end?.valid && end.status === 'ok') figures.completed++;
}

/** A run's figures, its usage-limit waits included (pure). */
export function runFigures(run: RunRecord): Figures {
  const figures = emptyFigures();
  for (const attempt of run.attempts) addAttempt(figures, attempt);
  figures.limitWaitMs = run.limitWaitMs ?? 0;
  return figures;
}

/** Each task's figures over the runs (its worker's attempts and the Manager's turns on it), pure. */
export function taskFigures(runs: readonly RunRecord[]): Map<string, Figures> {
  const byTask = new Map<string, Figures>();
  const of = (task: string) => {
    let figures = byTask.get(task);
    if (!figures) byTask.set(task, (figures = emptyFigures()));
    return figures;
  };
  for (const run of runs) {
    for (const attempt of run.attempts) if (attempt.trigger === undefined) addAttempt(of(attempt.task), attempt);
    for (const step of run.stepRecords) if (step.trigger === undefined) of(step.task).limitWaitMs += step.limitWaitMs;
  }
  return byTask;
}

/** What a completed task cost on average: model runs, dollars and tokens (undefined with none completed). */
export function perCompleted(figures: Figures): { modelRuns: number; costUsd: number; tokens: number } | undefined {
  if (figures.completed === 0) return undefined;
  return {
    modelRuns: figures.modelRuns / figures.completed,
    costUsd: figures.spend.costUsd / figures.completed,
    tokens: figures.spend.tokens / figures.completed,
  };
}

/** The figures as one line a person reads (pure). */
export function figuresText(figures: Figures): string {
  const each = perCompleted(figures);
  const spent = each && formatSpend(each);
  return [
    `${figures.completed} task(s) completed`,
    `${figures.modelRuns} model ` +
      `run(s)${each && figures.modelRuns > 0 ? ` (${each.modelRuns.toFixed(2)} a completed task)` : ''}`,
    `${figures.retries} retr${figures.retries === 1 ? 'y' : 'ies'}`,
    ...(spent ? [`${spent} a completed task`] : []),
    figures.limitWaitMs > 0 ? `${formatDuration(figures.limitWaitMs)} waiting for usage limits` : 'no usage-limit wait',
  ].join(' · ');
}
