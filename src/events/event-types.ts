/** The kinds of event a run records (see docs/events.md for each one's fields). */
export type EventType =
  | 'run_started'
  | 'step_started'
  | 'attempt_started'
  | 'attempt_finished'
  | 'retry'
  | 'limit_wait'
  | 'limit_resumed'
  | 'agent_switched'
  | 'backoff'
  | 'board_written'
  | 'git_committed'
  | 'human_edit_kept'
  | 'handed_to_manager'
  | 'done'
  | 'waiting'
  | 'woke'
  | 'edit_invalid'
  | 'warning'
  | 'halted'
  | 'interrupted';

/** One machine-readable event, as written to `.kanban-supervisor/events.jsonl` and printed by `--json`. */
export interface SupervisorEvent {
  time: string;
  type: EventType;
  run: string;
  step?: number;
  role?: string;
  task?: string;
  attempt?: number;
  [field: string]: unknown;
}

/** Anything that wants events as they happen (the terminal reporter, `--json`, hooks). */
export type EventListener = (event: SupervisorEvent) => void;

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

/** Where a run's events go, board-relative. */
export const EVENTS = '.kanban-supervisor/events.jsonl';

/** Where an events file goes when it is full (`events.jsonl` → `events.1.jsonl`); every reader reads it too. */
export function rotatedFile(file: string): string {
  return file.replace(/\.jsonl$/, '.1.jsonl');
}
