/** What every event has: when, which kind, and the run's id. */
export interface EventHead<T extends string = string> {
  time: string;
  type: T;
  run: string;
}

/** Where in a run an agent's event happened: its step, role and task. */
export interface StepPlace {
  step: number;
  role: string;
  task: string;
}

/**
 * Where an attempt happened: its step place, and for the Manager's turn the board and the task it
 * hears about (`done_task`, null after a periodic role); a periodic role's step names its `trigger`.
 */
export interface AttemptPlace extends StepPlace {
  board?: string;
  done_task?: string | null;
  trigger?: string;
}

/** An attempt's number, of how many, and how often it was run again after a limit or a service error. */
interface AttemptNumber {
  attempt: number;
  of: number;
  rerun?: number;
}

/**
 * What an attempt_finished event's `usage` holds: the spend its CLI reported (reply/usage.ts
 * reads it from the CLI's output; the same shape, kept here so events/ imports nothing above it).
 */
export interface EventUsage {
  costUsd?: number;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** An ACP agent's permission request and the policy's answer (acp/policy.ts's PermissionDecision). */
export interface EventPermission {
  tool: string;
  kind: string;
  allowed: boolean;
  why: string;
}

/**
 * What an ACP agent's attempt ended with (`protocol: acp`): its stop reason, a failed request,
 * each permission asked.
 */
export interface EventAcp {
  stopReason?: string;
  error?: string;
  permissions: EventPermission[];
}

/** A task the Manager set aside for a person (kanban.yaml `parked:`), as board_written names it. */
export interface EventSetAside {
  task: string;
  question: string;
  asked?: boolean;
}

/**
 * The record of a running agent (agent/record.ts keeps it in the state folder while it runs);
 * run_started names the one a crashed run left, which it stopped. Defined here, below both.
 */
export interface EventLeftoverAgent {
  /** The tag every process the agent started inherits (agent/tag.ts). */
  tag: string;
  host: string;
  role: string;
  task: string;
  since: string;
  /** The agent's pid, which is also its process-group id, once it started. */
  pid?: number;
  /** Start time of the process in clock ticks since boot (Linux), to tell a reused pid apart. */
  startTicks?: number;
}

/**
 * Each kind of event a run records and its fields besides the head, as the writers write them
 * (docs/events.md tells each one). EventLog.emit is checked against it, and parse.ts checks every
 * line of events.jsonl against it: a reader gets these types and never coerces a field. These are
 * the core's; a capability adds its own from its folder's events.ts (declaration merging), with
 * how each is read and shown (events/capability-events.ts).
 */
export interface EventFields {
  run_started: { board: string; pid: number; stoppedLeftoverAgent?: EventLeftoverAgent; try?: string };
  warning: { file: string; line?: number; message: string };
  step_started: StepPlace & { phase: string | null; trigger?: string; done_tasks?: number };
  attempt_started: AttemptPlace &
    AttemptNumber & {
      command: string;
      agent?: string;
      cli?: string;
      timeoutMs: number;
      sharedLimitIgnored?: string;
    };
  attempt_finished: AttemptPlace &
    AttemptNumber & {
      end: string;
      exitCode: number | null;
      signal: string | null;
      killedWith: string | null;
      durationMs: number;
      stdoutBytes: number;
      valid: boolean;
      issue?: string;
      failure?: string;
      via?: string;
      status?: string;
      message?: string;
      usage?: EventUsage;
      usageIgnored?: string[];
      acp?: EventAcp;
      stdoutFile?: string;
      stderrFile?: string;
      logError?: string;
    };
  retry: AttemptPlace & { retry: number; maxRetries: number; issue: string };
  board_written: {
    step: number;
    task: string;
    written: boolean;
    current?: string | null;
    tasks?: number;
    status: string;
    message: string;
    trigger?: string;
    set_aside?: EventSetAside[];
  };
  human_edit_kept: { step: number; task: string; fields: string[]; issue: string };
  handed_to_manager: AttemptPlace & { attempts: number; issue: string; message: string };
  done: { steps: number; phase?: string | null; current?: string | null };
  halted: Partial<AttemptPlace> & {
    steps?: number;
    exitCode: number;
    reason: string;
    message?: string;
    issue?: string;
  };
  interrupted: { steps: number; exitCode: number; reason?: string; message: string };
}

/** The kinds of event a run records. */
export type EventType = keyof EventFields;

/** The event of one kind (of each kind, for several). */
export type EventOf<T extends EventType> = T extends EventType ? EventHead<T> & EventFields[T] : never;

/** One machine-readable event, as written to `.kanban-supervisor/events.jsonl` and printed by `--json`. */
export type SupervisorEvent = EventOf<EventType>;

/**
 * A line of events.jsonl whose kind this version does not know, or whose fields do not check:
 * its run and time count (a run of such events is still a run), nothing else of it is read.
 */
export interface UnknownEvent extends EventHead<'unknown'> {
  /** The kind the line named. */
  named: string;
}

/** Anything that wants events as they happen (the terminal reporter, `--json`, hooks). */
export type EventListener = (event: SupervisorEvent) => void;

/** Where a run's events go, board-relative. */
export const EVENTS = '.kanban-supervisor/events.jsonl';

/** Where an events file goes when it is full (`events.jsonl` → `events.1.jsonl`); every reader reads it too. */
export function rotatedFile(file: string): string {
  return file.replace(/\.jsonl$/, '.1.jsonl');
}
