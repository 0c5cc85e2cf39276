import path from 'node:path';
import { describeCommand } from '../agent/invocation.js';
import { TAG_VARIABLE } from '../agent/tag.js';
import { readBoard } from '../board/read.js';
import { formatDuration } from '../util/duration.js';
import { prepareAgent } from '../agent/prepare.js';
import { createSchemaCompiler } from '../schemas.js';
import { managerInputs, workerInputs } from '../step.js';
import { resolveSettings, type SettingsFlags } from '../settings.js';

/** What the next step would run, exactly as a real run would build it. */
export interface DryRunPlan {
  /** kanban.yaml, absolute. */
  file: string;
  /** Why nothing would run, when the board is done. */
  nothing?: string;
  next?: {
    task: string;
    role: string;
    roleFile: string;
    argv: string[];
    /** The exact stdin text, or null for /dev/null. */
    stdin: string | null;
    /** The variables the agent gets that differ from the supervisor's own environment (all KANBAN_* ones included). */
    env: Record<string, string>;
    cwd: string;
    timeoutMs: number;
    idleTimeoutMs: number | null;
    maxRetries: number;
    /** The Manager that would then get the worker's reply. */
    manager: { roleFile: string; command: string };
  };
}

/**
 * `--dry-run`: build the next step's invocation with the loop's own functions and return it.
 * Reads only: runs nothing, takes no lock, writes nothing.
 */
export function dryRun(options: SettingsFlags & { file: string; env?: NodeJS.ProcessEnv }): DryRunPlan {
  const file = path.resolve(options.file);
  const env = options.env ?? process.env;
  const board = readBoard(file);
  if (board.current === null || board.phase === 'complete') {
    return { file, nothing: board.current === null ? 'the board has no next task (current: null)' : 'the board is complete (phase: complete)' };
  }
  const settings = resolveSettings(board.settings, options);
  const inputs = workerInputs(board, board.current);
  const ctx = { env, runId: '<run>', schemas: createSchemaCompiler() };
  const { invocation } = prepareAgent(ctx, board, settings, inputs, 1);
  // The Manager's argv depends on the worker's reply; preparing it here still checks its role file and command.
  const manager = prepareAgent(ctx, board, settings, managerInputs(board, board.current, {}), 1).invocation;
  const added: Record<string, string> = {};
  // The tag names the run, which a dry run does not have: it is shown as its run would set it.
  for (const [key, value] of Object.entries(invocation.env)) if (key !== TAG_VARIABLE && (key.startsWith('KANBAN_') || env[key] !== value)) added[key] = value;
  return {
    file,
    next: {
      task: board.current,
      role: invocation.role,
      roleFile: invocation.roleFile,
      argv: [invocation.file, ...invocation.args],
      stdin: invocation.stdin === null ? null : invocation.stdin.toString('utf8'),
      env: added,
      cwd: invocation.cwd,
      timeoutMs: invocation.timeoutMs,
      idleTimeoutMs: invocation.idleTimeoutMs,
      maxRetries: settings.maxRetries,
      manager: { roleFile: manager.roleFile, command: describeCommand(manager, 120) },
    },
  };
}

/** The plan as a person reads it; stdin verbatim between marker lines (pure). */
export function formatDryRun(plan: DryRunPlan): string {
  const lines = ['Dry run: nothing was run, locked or written.'];
  if (!plan.next) return `${lines[0]} Nothing to run: ${plan.nothing}.\n`;
  const n = plan.next;
  const pad = (label: string) => `  ${label.padEnd(11)}`;
  lines.push(`Next: ${n.role} on ${n.task}`);
  lines.push(`${pad('role file')}${n.roleFile}`);
  lines.push(`${pad('argv')}${JSON.stringify(n.argv)}`);
  lines.push(`${pad('cwd')}${n.cwd}`);
  lines.push(`${pad('timeout')}${formatDuration(n.timeoutMs)}${n.idleTimeoutMs === null ? ', no idle timeout' : `, idle timeout ${formatDuration(n.idleTimeoutMs)}`}; up to ${n.maxRetries} retr${n.maxRetries === 1 ? 'y' : 'ies'} with these exact inputs`);
  // The KANBAN_* inputs first, then what the role file adds.
  const env = Object.entries(n.env).sort(([a], [b]) => Number(!a.startsWith('KANBAN_')) - Number(!b.startsWith('KANBAN_')));
  env.forEach(([key, value], i) => lines.push(`${pad(i === 0 ? 'env' : '')}${key}=${value}`));
  if (n.stdin === null) {
    lines.push(`${pad('stdin')}none (/dev/null)`);
  } else {
    lines.push(`${pad('stdin')}${Buffer.byteLength(n.stdin)} bytes, between the markers:`, '----- stdin -----');
    lines.push(n.stdin.endsWith('\n') ? n.stdin.slice(0, -1) : n.stdin, `----- end of stdin${n.stdin.endsWith('\n') ? '' : ' (no final newline)'} -----`);
  }
  lines.push(`Then: the Manager (${n.manager.roleFile}: ${n.manager.command}) gets the reply as {{result}} and picks the next task.`);
  return `${lines.join('\n')}\n`;
}
