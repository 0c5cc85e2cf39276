import type { SupervisorEvent } from '../log/events.js';
import type { Finder } from './finder.js';
import { isRunEnd, runEnd, type RunEnd } from './records.js';
import { addUsage, emptySpend, type SpendTotal } from '../spend.js';
import type { Usage } from '../reply/usage.js';

/** The last run, as `status` shows it. */
export interface LastRun {
  id: string;
  /** Its first event's time (run_started), or its oldest event read when `startNotRead`. */
  start: string;
  /** Its last event's time: its end, or where it was when it died. */
  last: string;
  steps: number;
  end?: RunEnd;
  /** Set when the run began further back than the part of the history that was read. */
  startNotRead?: true;
  /** What its attempts reported spending: in all, per role and per task (the Manager's under its done task). */
  spend: { total: SpendTotal; byRole: Record<string, SpendTotal>; byTask: Record<string, SpendTotal> };
}

/** Finds the last run from events fed newest first: done at its run_started or at an older run's event. */
export class LastRunFinder implements Finder {
  found = false;
  run: LastRun | undefined;

  wants(): boolean {
    return true;
  }

  see(event: SupervisorEvent): void {
    if (this.run && event.run !== this.run.id) {
      this.found = true;
      return;
    }
    this.run ??= { id: event.run, start: event.time, last: event.time, steps: 0, spend: { total: emptySpend(), byRole: {}, byTask: {} } };
    this.run.start = event.time;
    if (event.type === 'attempt_finished' && event.usage) addEventUsage(this.run.spend, event);
    if (event.type === 'step_started') this.run.steps = Math.max(this.run.steps, Number(event.step));
    // Fed newest first: the first end seen is the run's last one.
    if (isRunEnd(event) && !this.run.end) this.run.end = runEnd(event);
    if (event.type === 'run_started') this.found = true;
  }
}

function addEventUsage(spend: LastRun['spend'], event: SupervisorEvent): void {
  const usage = event.usage as Usage;
  addUsage(spend.total, usage);
  addUsage((spend.byRole[String(event.role)] ??= emptySpend()), usage);
  addUsage((spend.byTask[String(event.task)] ??= emptySpend()), usage);
}
