import type { Invocation } from '../agent/invocation.js';
import type { Failure } from '../agents/adapter.js';
import type { AgentInputs } from '../board/inputs.js';
import type { Board } from '../board/read.js';
import type { Settings } from '../board/settings.js';
import type { SupervisorError } from '../errors.js';
import type { SupervisorEvent } from '../events/types.js';
import type { EventLog } from '../events/log.js';
import type { OutputStore } from '../log/output-store.js';
import type { Outcome } from '../progress/outcome.js';
import type { SchemaCompiler } from '../schemas.js';
import type { BoardSource } from './board-source.js';
import type { Flags, RunKind, RunOptions } from './run-options.js';
import type { World } from './world.js';

/**
 * Everything one run shares, built once at its start (run/open-run.ts): the board, the run's
 * records, the side effects, and the capabilities it tells what happens (their fan-out,
 * capabilities.ts). Tests build it through the same start, with a stand-in `runAttempt`.
 */
export interface RunContext {
  /** kanban.yaml: its real path, its folder, and its reads. */
  board: BoardSource;
  runId: string;
  flags: Flags;
  /** events.jsonl (or the try's own). */
  events: EventLog;
  /** Each attempt's stdout and stderr files. */
  output: OutputStore;
  world: World;
  schemas: SchemaCompiler;
  capabilities: Required<Capability>;
}

/**
 * What the run tells each of its capabilities (git commits, the budget, usage limits,
 * notifications…; the list is run/capabilities.ts), one method per event, each optional, in the
 * order they happen. Some answer with a decision the core acts on: stop before a step, run the
 * same attempt again, run more steps, run the loop again. The core never calls a capability by name.
 */
export interface Capability {
  /** The run's start read kanban.yaml (it never does when the board cannot be read). */
  boardRead?(board: Board): void;
  /** The run holds the board: its context is built and run_started recorded. */
  runStarted?(run: StartedRun): Promise<void>;
  /** Each event the run records, as it is recorded. */
  event?(event: SupervisorEvent): void;
  /** Between steps: a reason to stop the run here (exit 5), if there is one. */
  beforeStep?(board: Board, settings: Settings): StepStop | undefined;
  /** A step starts; none of its agents has run yet. */
  stepStarted?(step: number, settings: Settings): Promise<void>;
  /** An attempt is about to call its agent: wait first if need be; returns fields for its attempt_started event. */
  beforeAttempt?(attempt: AttemptPlace): Promise<Record<string, unknown> | undefined>;
  /** An attempt gave no valid reply (SPEC §4b): 'again' runs the very same attempt again, spending no retry; throwing stops the run. */
  afterFailure?(attempt: FailedAttempt): Promise<'again' | undefined>;
  /** Inputs the Manager gets besides the step's (the board's recent steps). */
  managerInputs?(): Partial<AgentInputs>;
  /** The Manager's answer of a step is written to the board. */
  answerWritten?(step: AppliedStep): Promise<void>;
  /** A step completed (its answer ok, no guard stopped the run): steps to run now, before the next task. */
  afterStep?(task: string, settings: Settings): ExtraStep[];
  /** When the run must have ended, if a capability bounds it. */
  deadline?(): Date | undefined;
  /** The loop would end the run this way: 'again' runs it again (after a person's edit, say). */
  loopEnded?(end: LoopEnd): Promise<'again' | undefined>;
  /** Words the run's last line carries for this capability (what the run spent). */
  summary?(): string | undefined;
  /** The run ended and its last line is printed; the run waits for this before it exits. */
  runEnded?(ending: RunEnding): Promise<void>;
}

/** A capability of a run or a try, made at the command's start; undefined when it has nothing to do in this one. */
export type OpenCapability = (kind: RunKind, options: RunOptions) => Capability | undefined;

/** A run that holds its board, as its capabilities are told. */
export interface StartedRun {
  ctx: RunContext;
  settings: Settings;
  /** Ask the run to stop with `error`, as a signal would. */
  stop(error: SupervisorError): void;
  /** Aborted when the run lets go of the board, however it ended. */
  closed: AbortSignal;
}

/** Why the run stops before a step: the Halt's words, and what an edit must change for a resident run to carry on. */
export interface StepStop {
  message: string;
  edit: string;
}

/** An attempt about to run, or just run: its run, the agent run it belongs to (one invocation, repeated), where it stands. */
export interface AttemptPlace {
  ctx: RunContext;
  step: number;
  role: string;
  task: string;
  invocation: Invocation;
  settings: Settings;
}

/** An attempt that gave no valid reply, and why as its CLI tells it. */
export interface FailedAttempt extends AttemptPlace {
  failure: Failure;
  /** The agent run as the Supervisor Log names it: the task, or the board and the task the Manager hears about. */
  logTask: string;
}

/** A step whose Manager's answer was written. */
export interface AppliedStep {
  step: number;
  task: string;
  role: string;
  reply: Record<string, unknown>;
  answer: Record<string, unknown>;
  next: string | null;
}

/** A step a capability asks for (a periodic role): its role (the Manager's `trigger`), its inputs built from the board it runs on. */
export interface ExtraStep {
  role: string;
  /** How messages name it: `Reviewer's periodic run`. */
  name: string;
  inputs(board: Board): AgentInputs;
}

/** How a pass of the loop ended, in its run. */
export type LoopEnd = { ctx: RunContext } & ({ result: LoopResult } | { error: unknown });

/** How the loop ended when it ended normally. */
export interface LoopResult {
  steps: number;
  reason: 'done' | 'once';
}

/** How a run ended, as its last line said it. */
export interface RunEnding {
  outcome: Outcome;
  /** The last line as printed. */
  line: string;
  /** kanban.yaml, absolute. */
  file: string;
  /** The board was found finished at the start: nothing was locked or run. */
  nothingToRun: boolean;
}
