import { timedOut, type AttemptRecord } from '../events/records.js';
import type { RunRecord } from '../events/fold.js';
import { addUsage, emptySpend, type SpendTotal } from '../spend.js';

/** Counts and times over a set of attempts. */
export interface Tally {
  attempts: number;
  valid: number;
  /** Attempts after the first of an agent run: each one a retry with identical inputs. */
  retries: number;
  timeouts: number;
  unfinished: number;
  agentMs: number;
  /** What the attempts reported spending. */
  spend: SpendTotal;
}

/** The report's totals: over everything, per role, and the wall time of the runs. */
export interface Totals {
  runs: number;
  steps: number;
  wallMs: number;
  all: Tally;
  byRole: Array<{ role: string } & Tally>;
}

function emptyTally(): Tally {
  return { attempts: 0, valid: 0, retries: 0, timeouts: 0, unfinished: 0, agentMs: 0, spend: emptySpend() };
}

function count(t: Tally, a: AttemptRecord): void {
  t.attempts++;
  if (a.attempt > 1) t.retries++;
  if (!a.finished) {
    t.unfinished++;
    return;
  }
  if (a.finished.valid) t.valid++;
  if (timedOut(a)) t.timeouts++;
  t.agentMs += a.finished.durationMs;
  addUsage(t.spend, a.finished.usage);
}

/** The report's totals over all runs, in one pass over the attempts (pure). */
export function totals(runs: RunRecord[]): Totals {
  const all = emptyTally();
  const roles = new Map<string, Tally>();
  for (const run of runs) {
    for (const a of run.attempts) {
      count(all, a);
      let role = roles.get(a.role);
      if (!role) roles.set(a.role, (role = emptyTally()));
      count(role, a);
    }
  }
  return {
    runs: runs.length,
    steps: runs.reduce((n, r) => n + r.steps, 0),
    wallMs: runs.reduce((n, r) => n + runSpanMs(r), 0),
    all,
    byRole: [...roles].map(([role, t]) => ({ role, ...t })),
  };
}

/** How long a run lasted: from its first event to its last event or the end of its last attempt. */
export function runSpanMs(run: RunRecord): number {
  const start = Date.parse(run.start);
  let end = Date.parse(run.last);
  for (const a of run.attempts) if (a.finished) end = Math.max(end, Date.parse(a.start) + a.finished.durationMs);
  return Math.max(0, end - start);
}
