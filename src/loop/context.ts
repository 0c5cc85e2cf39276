import type { RunAttempt } from '../agent/attempt.js';
import type { Invocation } from '../agent/invocation.js';
import type { InvocationTransform } from '../agent/prepare.js';
import type { Failure } from '../agents/adapter.js';
import type { AgentInputs } from '../board/inputs.js';
import type { BoardCheck } from '../board/check.js';
import type { Settings, SettingsFlags } from '../board/settings.js';
import type { Board, BoardSettings } from '../board/read-board.js';
import type { SupervisorError } from '../errors.js';
import type { Validation } from '../board/check.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import type { EventLog } from '../events/log.js';
import type { EventFields, SupervisorEvent } from '../event-types.js';
import type { OutputStore } from '../log/output-store.js';
import type { Outcome } from '../progress/outcome.js';
import type { ReporterMode } from '../progress/style.js';
import type { SchemaCompiler } from '../schemas.js';
import type { SpendTotal } from '../spend.js';
import type { BoardSource } from './board-source.js';
import type { Clock, World } from './world.js';

/** Everything one run shares, built once at its start (run/open-run.ts); tests start it so too, with their seams. */
export interface RunContext {
  /** kanban.yaml: its real path, its folder, its reads. */
  board: BoardSource;
  runId: string;
  flags: Flags;
  events: EventLog;
  /** Each attempt's stdout and stderr files. */
  output: OutputStore;
  world: World;
  schemas: SchemaCompiler;
  /** What capabilities add at the core's seams, in the list's order (run/capability-list.ts). */
  lists: SeamLists;
  /** All of them as one (capability-fanout.ts). */
  capabilities: Required<Capability>;
}

/** Each agent run's invocation transforms (agent/prepare.ts), and the checks a board check adds (board/check.ts). */
export interface SeamLists {
  transforms: readonly InvocationTransform[];
  /** New for each check: a check may keep what it learns between its calls. */
  boardChecks(): BoardCheck[];
}

/**
 * What a capability may use of its run: the board's place and reads, the run's id, the command line,
 * its events and its world. Not the other capabilities (a fact one needs of another, the deadline,
 * is a value the core passes), the reply schemas, the attempt output, or the checks.
 */
export type CapabilityRun = Pick<RunContext, 'board' | 'runId' | 'flags' | 'events' | 'world'>;

/**
 * What a run tells each of its capabilities (the list: run/capability-list.ts), one optional method
 * per event, in the order they happen. Some answer with a decision the core acts on: stop before
 * a step, run the same attempt again, run more steps, run the loop again.
 */
/** What capabilities add to an attempt's attempt_started event. */
export type AttemptNotes = Pick<EventFields['attempt_started'], 'sharedLimitIgnored'>;

export interface Capability {
  /** The start read kanban.yaml and found work to do. */
  boardRead?(board: Board): Promise<void>;
  /** The run holds the board: run_started is recorded. */
  runStarted?(run: StartedRun): Promise<void>;
  /** Each event, as it is recorded. */
  event?(event: SupervisorEvent): void;
  /** Between steps: why the run stops here (exit 5), if it does. */
  beforeStep?(board: Board, settings: Settings): StepStop | undefined;
  /** A step starts; none of its agents has run yet. */
  stepStarted?(step: number, settings: Settings): Promise<void>;
  /**
   * Which role file's agent runs a role's next attempt: undefined for the role's own, else one of its
   * `fallback:` roles while the role's account waits out a usage limit (SPEC §5c). Asked before an
   * agent run's first attempt and after an attempt re-run for a limit, never between format retries.
   */
  chooseAgent?(choice: AgentChoice): Promise<string | undefined>;
  /** An attempt is about to call its agent (it may wait first): fields for its attempt_started event. */
  beforeAttempt?(attempt: AttemptPlace): Promise<AttemptNotes | undefined>;
  /** An attempt gave no valid reply: 'again' re-runs it and spends no retry (SPEC §4b); throwing stops the run. */
  afterFailure?(attempt: FailedAttempt): Promise<'again' | undefined>;
  /** Inputs the Manager gets besides the step's. */
  managerInputs?(): Partial<AgentInputs>;
  /** A step's Manager's answer is written to the board. */
  answerWritten?(step: AppliedStep): Promise<void>;
  /** A step completed (answer ok, no guard stopped the run): steps to run now, before the next task. */
  afterStep?(task: string, settings: Settings): ExtraStep[];
  /** When the run must have ended, once the board is read: asked by the core as the run starts (StartedRun). */
  deadline?(): Date | undefined;
  /** The loop would end the run so: 'again' runs it again. */
  loopEnded?(end: LoopEnd): Promise<'again' | undefined>;
  /** What this run's agents have spent so far: one call's budget is what is left of the run's (agent/prepare.ts). */
  spent?(): SpendTotal | undefined;
  /** Words for the run's last line (what it spent). */
  summary?(): string | undefined;
  /** The run ended and its last line is printed. */
  runEnded?(ending: RunEnding): Promise<void>;
}

/**
 * Everything a capability adds to the tool, declared in its folder (`surface.ts`) and listed once in
 * run/capability-list.ts: its run-time part, its flags, its `supervisor:` keys (their JSON Schema is
 * `settings.schema.json` beside it, merged into schemas/kanban.schema.json at build), what `run --help`
 * and `--dry-run` say of it. The commands and the core iterate over the list and name none of them.
 */
export interface CapabilitySurface {
  /** Its folder, in messages. */
  name: string;
  /** Its run-time part; what does its work is imported only when a run or a try opens it. */
  open: OpenCapability;
  /** The flags it adds to `run`, in `run --help`'s order. */
  flags?: readonly CapabilityFlag[];
  /**
   * Reads its `supervisor:` keys (the block given with one key at a time, so that every bad one is listed):
   * a malformed value is an InputError naming the key (validate lists it; a run stops on it with exit 2).
   */
  settings?(supervisor: BoardSettings): unknown;
  /** Its words in `run --help`'s board settings, if it has keys a person sets there. */
  settingsHelp?: string;
  /** Its examples in `run --help`, after the program's name (`kanban.yaml --watch`). */
  examples?: readonly string[];
  /** What `--dry-run` says of it for this board: fields of the plan's JSON and lines of its text. */
  dryRun?(plan: DryRunAsk): Promise<DryRunPart | undefined>;
  /**
   * Its parts at the core's seams, loaded when a command needs them (a board with nothing to run starts
   * without them): its change to each agent run's invocation (agent/prepare.ts: the CLI schema, the
   * call's budget, the fence), applied in the list's order, `beforeWrap` being what the run does before
   * a wrapper is built; and its part of the board's pre-flight check (board/check.ts), new for each check.
   */
  seams?(): Promise<CapabilitySeams>;
  /** Its event types: how each is read from events.jsonl and shown (console, live line, status, report). */
  events?: CapabilityEvents;
}

/** What a capability adds at the core's seams (CapabilitySurface.seams). */
export interface CapabilitySeams {
  transform?(options: { beforeWrap?: (boardDir: string) => void }): InvocationTransform;
  checks?(): BoardCheck;
}

/** A flag of `run` a capability adds: its option, its --help lines, its check, the `supervisor:` key it sets. */
export interface CapabilityFlag {
  /** Without the dashes: `max-cost`. */
  name: string;
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** A value to show in "needs a value, e.g. …". */
  example?: string;
  /** Its `run --help` entry: the flag as written (`--max-cost USD`), then the lines of what it does. */
  usage: string;
  help: readonly string[];
  /**
   * Checks the value before anything runs (an InputError with an example of a good one) and gives the
   * `supervisor:` key it sets over the board's, if any (`--max-cost 5`: `{ max_cost_usd: 5 }`).
   */
  check?(value: string): BoardSettings | undefined;
}

/** What a capability's `--dry-run` part is given: the board, its settings, the environment agents get. */
export interface DryRunAsk {
  file: string;
  settings: Settings;
  flags: Flags;
  env: NodeJS.ProcessEnv;
  /** The supervisor's environment (env:NAME targets are read from it). */
  given: NodeJS.ProcessEnv;
  /** Whether the board has a next step (false: --dry-run says why nothing runs, and what parts say then). */
  next: boolean;
}

/** A capability's part of a dry run: its key and value in the JSON plan, its text lines, its warnings. */
export interface DryRunPart {
  key: string;
  value: unknown;
  lines: string[];
  warnings?: string[];
}

/** A capability as a run or a try opens it, at the command's start; undefined when it has nothing to do there. */
export type OpenCapability = (
  kind: RunKind,
  options: RunOptions,
) => Capability | undefined | Promise<Capability | undefined>;

/** A `run` (resident or not) owns the board; a `try` runs one role beside it, touching nothing a run owns. */
export type RunKind = 'run' | 'try';

/** How a run or a try is started: the board, the command line, where it talks, the seams tests replace. */
export interface RunOptions {
  file: string;
  flags?: Flags;
  /** Where the run talks, and the environment agents inherit (the process's by default). */
  io?: RunIO;
  /** How progress shows, and where (nowhere without it). */
  show?: { mode: ReporterMode; colour: boolean; out: NodeJS.WriteStream };
  seams?: { runAttempt?: RunAttempt; clock?: Clock; signals?: NodeJS.EventEmitter; [capability: string]: unknown };
}

/** What the command line says of a run: settings over the board's, --once, and capabilities' own flags by name. */
export interface Flags extends SettingsFlags {
  once?: boolean;
  [flag: string]: unknown;
}

/** Where a command talks: `run` shows progress on stdout, `try` on stderr. */
export interface RunIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** A run that holds its board. */
export interface StartedRun {
  ctx: CapabilityRun;
  settings: Settings;
  /** When the run must have ended (the earliest `deadline()` as the run starts: --max-time), if ever. */
  deadline?: Date;
  /** Ask the run to stop with `error`, as a signal would. */
  stop(error: SupervisorError): void;
  /** Aborted when the run lets go of the board, however it ended. */
  closed: AbortSignal;
}

/** Why the run stops before a step: the Halt's words, and what an edit must change for a resident run to go on. */
export interface StepStop {
  message: string;
  edit: string;
}

/** An attempt about to run: its run, its agent run (one invocation, repeated), where it stands. */
export interface AttemptPlace {
  ctx: CapabilityRun;
  step: number;
  role: string;
  task: string;
  invocation: Invocation;
  settings: Settings;
}

/** A role about to run an attempt, its agent not yet chosen. */
export interface AgentChoice {
  ctx: CapabilityRun;
  step: number;
  role: string;
  task: string;
  settings: Settings;
}

/** An attempt without a valid reply, why as its CLI tells it, and the Supervisor Log's name for its task. */
export interface FailedAttempt extends AttemptPlace {
  failure: Failure;
  /** What was wrong with its output, in the words of the Retry Event. */
  issue: string;
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

/** A step a capability asks for: its role (the Manager's `trigger`), its name in messages, its inputs. */
export interface ExtraStep {
  role: string;
  name: string;
  inputs(board: Board): AgentInputs;
}

/**
 * How a pass of the loop ended, in its run, with what a capability that runs the loop again needs
 * to judge an edit: validate's checks of the board now, and whether a step would be stopped before it.
 */
export type LoopEnd = {
  ctx: CapabilityRun;
  check(): Validation;
  stopBeforeStep(board: Board, settings: Settings): StepStop | undefined;
} & ({ result: LoopResult } | { error: unknown });

/** How the loop ended when it ended normally. */
export interface LoopResult {
  steps: number;
  reason: 'done' | 'once';
}

/** How a run ended: its last line as printed; `nothingToRun`: the board was found finished, nothing locked or run. */
export interface RunEnding {
  outcome: Outcome;
  line: string;
  /** kanban.yaml, absolute. */
  file: string;
  nothingToRun: boolean;
}
