import type { AgentInputs } from '../board/inputs.js';
import type { Board } from '../board/read-board.js';
import type { Settings } from '../board/settings.js';
import type { SupervisorEvent } from '../event-types.js';
import type { SpendTotal } from '../spend.js';
import type {
  AgentChoice,
  AppliedStep,
  AttemptNotes,
  AttemptPlace,
  Capability,
  ExtraStep,
  FailedAttempt,
  LoopEnd,
  RunEnding,
  StartedRun,
  StepStop,
} from './context.js';

/**
 * The run's capabilities as one (RunContext.capabilities): each event told to every one in the
 * order listed; a decision is the first one given, fields and inputs are merged, the deadline
 * is the earliest.
 */
export class Capabilities implements Required<Capability> {
  constructor(private readonly list: readonly Capability[]) {}

  /** Whether one may run the loop again once it ended (--watch): a board with nothing to run is run then too. */
  get resident(): boolean {
    return this.list.some((one) => one.loopEnded !== undefined);
  }

  async boardRead(board: Board): Promise<void> {
    for (const one of this.list) await one.boardRead?.(board);
  }

  async runStarted(run: StartedRun): Promise<void> {
    for (const one of this.list) await one.runStarted?.(run);
  }

  /** An EventLog listener. */
  readonly event = (event: SupervisorEvent): void => {
    for (const one of this.list) one.event?.(event);
  };

  beforeStep(board: Board, settings: Settings): StepStop | undefined {
    for (const one of this.list) {
      const stop = one.beforeStep?.(board, settings);
      if (stop) return stop;
    }
    return undefined;
  }

  async stepStarted(step: number, settings: Settings): Promise<void> {
    for (const one of this.list) await one.stepStarted?.(step, settings);
  }

  async chooseAgent(choice: AgentChoice): Promise<string | undefined> {
    for (const one of this.list) {
      const agent = await one.chooseAgent?.(choice);
      if (agent !== undefined) return agent;
    }
    return undefined;
  }

  async beforeAttempt(attempt: AttemptPlace): Promise<AttemptNotes> {
    let fields: AttemptNotes = {};
    for (const one of this.list) fields = { ...fields, ...(await one.beforeAttempt?.(attempt)) };
    return fields;
  }

  async afterFailure(attempt: FailedAttempt): Promise<'again' | undefined> {
    for (const one of this.list) if ((await one.afterFailure?.(attempt)) === 'again') return 'again';
    return undefined;
  }

  managerInputs(): Partial<AgentInputs> {
    return Object.assign({}, ...this.list.map((one) => one.managerInputs?.())) as Partial<AgentInputs>;
  }

  async answerWritten(step: AppliedStep): Promise<void> {
    for (const one of this.list) await one.answerWritten?.(step);
  }

  afterStep(task: string, settings: Settings): ExtraStep[] {
    return this.list.flatMap((one) => one.afterStep?.(task, settings) ?? []);
  }

  deadline(): Date | undefined {
    const dates = this.list.flatMap((one) => one.deadline?.() ?? []);
    return dates.length ? new Date(Math.min(...dates.map((date) => date.getTime()))) : undefined;
  }

  async loopEnded(end: LoopEnd): Promise<'again' | undefined> {
    for (const one of this.list) if ((await one.loopEnded?.(end)) === 'again') return 'again';
    return undefined;
  }

  spent(): SpendTotal | undefined {
    for (const one of this.list) {
      const total = one.spent?.();
      if (total) return total;
    }
    return undefined;
  }

  summary(): string {
    return this.list.flatMap((one) => one.summary?.() || []).join(', ');
  }

  /** Told to all at once: a notification is sent while a hook runs, as a person would expect. */
  async runEnded(ending: RunEnding): Promise<void> {
    await Promise.all(this.list.map((one) => one.runEnded?.(ending)));
  }
}
