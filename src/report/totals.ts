import { timedOut, type AttemptRecord, type RunRecord } from '../history/runs.js';

/** Counts and times over a set of attempts. */
export interface Tally {
  attempts: number;
  valid: number;
  /** Attempts after the first of an agent run: each one a retry with identical inputs. */
  retries: number;
  timeouts: number;
  unfinished: number;
  agentMs: number;
}

/** The report's totals: over everything, per role, and the wall time of the runs. */
export interface Totals {
  runs: number;
  steps: number;
  wallMs: number;
  all: Tally;
  byRole: Array<{ role: string } & Tally>;
}

/** Add up attempts (pure). */
export function tally(attempts: AttemptRecord[]): Tally {
  const t: Tally = { attempts: 0, valid: 0, retries: 0, timeouts: 0, unfinished: 0, agentMs: 0 };
  for (const a of attempts) {
    t.attempts++;
    if (a.attempt > 1) t.retries++;
    if (!a.finished) {
      t.unfinished++;
      continue;
    }
    if (a.finished.valid) t.valid++;
    if (timedOut(a)) t.timeouts++;
    t.agentMs += a.finished.durationMs;
  }
  return t;
}

/** The report's totals over all runs (pure). */
export function totals(runs: RunRecord[]): Totals {
  const attempts = runs.flatMap((r) => r.attempts);
  const roles = [...new Set(attempts.map((a) => a.role))];
  return {
    runs: runs.length,
    steps: runs.reduce((n, r) => n + r.steps, 0),
    wallMs: runs.reduce((n, r) => n + runSpanMs(r), 0),
    all: tally(attempts),
    byRole: roles.map((role) => ({ role, ...tally(attempts.filter((a) => a.role === role)) })),
  };
}

/** How long a run lasted: from its first event to its last event or the end of its last attempt. */
export function runSpanMs(run: RunRecord): number {
  const start = Date.parse(run.start);
  let end = Date.parse(run.last);
  for (const a of run.attempts) if (a.finished) end = Math.max(end, Date.parse(a.start) + a.finished.durationMs);
  return Math.max(0, end - start);
}
