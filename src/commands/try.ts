import path from 'node:path';
import { existsSync } from 'node:fs';
import type { AgentInputs } from '../board/inputs.js';
import { prepareAgent } from '../agent/prepare.js';
import { normalPath, resolveInBoard } from '../board/paths.js';
import type { Board } from '../board/read-board.js';
import { readTaskMeta } from '../board/task.js';
import { InputError, RetriesExhaustedError, SupervisorError } from '../errors.js';
import { settingsFlags, type SettingFlagValues } from './flags.js';
import { BoardSource } from '../loop/board-source.js';
import { runAgent } from '../loop/loop.js';
import { showOn } from '../progress/style.js';
import { loadRole, problemsMessage } from '../board/role.js';
import { startEnv } from '../board/check.js';
import type { RunIO } from '../loop/context.js';
import { openCapabilities } from '../run/capability-list.js';
import { openRun } from '../run/open-run.js';
import { loadSeams } from '../run/capability-list.js';
import { startLog } from '../log/supervisor-log.js';
import { createSchemaCompiler } from '../schemas.js';
import { resolveSettings } from '../board/settings.js';
import { runnable, shellWord } from '../util/self-command.js';
import { maskDeep } from '../util/secrets.js';
import { boardSecrets } from '../board/secret-values.js';

/** The flags of `try`, as cli.ts parsed them. */
export interface TryFlags extends SettingFlagValues {
  instruction?: string | boolean;
  task?: string | boolean;
  result?: string | boolean;
  quiet?: string | boolean;
  'no-color'?: string | boolean;
}

// The roles a run names itself, whatever case they are typed in: the Manager's replies are
// checked as a Manager's only under this exact name.
const USUAL = ['Implementor', 'Architect', 'Manager'];

/**
 * `kanban-supervisor try <role>`: run one role's agent once on an instruction or a task, with
 * the inputs, format check and retries of a run (runAgent itself), and print its validated
 * reply. Takes no lock and never writes kanban.yaml; its events and attempt output are kept
 * apart in .kanban-supervisor/try/. Returns the exit code a run would give; errors are thrown.
 */
export async function tryRole(
  options: { role: string; file: string; flags: TryFlags },
  io: RunIO = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const { flags } = options;
  const { source, board } = BoardSource.open(options.file);
  const role = USUAL.find((name) => name.toLowerCase() === options.role.toLowerCase()) ?? options.role;
  const inputs = tryInputs(board, role, flags);
  const settingFlags = settingsFlags(flags);
  const settings = resolveSettings(board.settings, settingFlags);
  // Every problem of the role (its file, command, reply schema) is found before anything is written;
  // an unfenced role must not run a program a fenced agent could have written (as a run's pre-flight).
  const tried = loadRole(board.dir, role, 'try');
  // The Log exists before any fenced agent runs, so its fence binds it read-only (no forged Log).
  const lists = await loadSeams((dir) => startLog(dir));
  const checks = lists.boardChecks();
  // Found as the run (openRun) starts it: PATH without what a fenced agent could write.
  const env = startEnv(board.dir, io.env, checks);
  // The board-level checks (board/check.ts) on the role tried, as a run's pre-flight makes them on every role.
  const place = {
    dir: board.dir,
    name: path.basename(board.file),
    state: board,
    at: () => undefined,
    env,
    given: io.env,
  };
  const problems = checks.flatMap((check) => check.board?.([{ role: tried, inputs }], place).problems ?? []);
  if (problems.length) throw new InputError(problemsMessage(problems));
  prepareAgent(
    { env, runId: '<try>', schemas: createSchemaCompiler(), transforms: lists.transforms },
    board,
    settings,
    inputs,
    1,
  );
  const show = showOn(io.stderr, { quiet: flags.quiet === true, noColor: flags['no-color'] === true, env: io.env });
  const run = { file: options.file, flags: { ...settingFlags }, io, show };
  const capabilities = await openCapabilities('try', run);
  const task = typeof flags.task === 'string' ? (inputs.task_file ?? inputs.done_task ?? flags.task) : 'instruction';
  try {
    const opening = { kind: 'try' as const, options: run, source, board, capabilities, trying: role };
    const reply = await openRun(opening, async (ctx) => {
      try {
        ctx.events.emit('step_started', { step: 1, role, task, phase: board.phase ?? null });
        const validated = await runAgent(ctx, board, settings, { step: 1, inputs, task });
        ctx.events.emit('done', { steps: 1 });
        return validated;
      } catch (error) {
        const stopped = ctx.world.stop.interrupt.aborted ? (ctx.world.stop.interrupt.reason as unknown) : error;
        if (stopped instanceof SupervisorError && stopped.exitCode >= 128)
          ctx.events.emit('interrupted', { steps: 1, exitCode: stopped.exitCode, message: stopped.message });
        throw error;
      }
    });
    io.stdout.write(`${JSON.stringify(maskDeep(reply, boardSecrets(board.dir, io.env)), null, 2)}\n`);
    if (flags.quiet !== true)
      io.stderr.write(
        `${role} gave a valid reply (status ${String(reply.status)}). ` +
          `Its output: ${runnable(`logs${boardArg(options.file)} --try`)}\n`,
      );
    return 0;
  } catch (error) {
    throw error instanceof RetriesExhaustedError
      ? new RetriesExhaustedError(reworded(error.message, options.file))
      : error;
  }
}

/** The inputs a run would give `role`, from --instruction, --task and (for the Manager) --result. */
export function tryInputs(board: Board, role: string, flags: TryFlags): AgentInputs {
  const instruction = typeof flags.instruction === 'string' ? flags.instruction : undefined;
  const task = typeof flags.task === 'string' ? checkedTask(board, flags.task) : undefined;
  if (instruction === undefined && task === undefined) {
    throw new InputError(
      `try needs something for ${role} to do: --instruction TEXT (its {{instruction}}) or --task FILE ` +
        `(a task file of the board), e.g. \`${runnable(`try ${shellWord(role)} --instruction "Say hello"`)}\`.`,
    );
  }
  const kanban_file = path.basename(board.file);
  if (role !== 'Manager') {
    if (flags.result !== undefined)
      throw new InputError(
        `--result is the worker's reply the Manager hears about; ${role} gets none. Remove --result, or try Manager.`,
      );
    return {
      role,
      kanban_file,
      ...(task !== undefined && { task_file: task }),
      ...(instruction !== undefined && { instruction }),
    };
  }
  return {
    role,
    kanban_file,
    ...(task !== undefined && { done_task: task }),
    tasks: board.tasks,
    ...(flags.result !== undefined && { result: resultFlag(flags.result) }),
    ...(instruction !== undefined && { instruction }),
  };
}

// A task path of the board whose front-matter reads, as a run would need it.
function checkedTask(board: Board, task: string): string {
  const where = resolveInBoard(board.dir, task);
  if (!where.ok)
    throw new InputError(
      `--task ${task}: the task path ${where.reason}. Give the task file's path inside the board folder, ` +
        `e.g. tasks/001-example.md.`,
    );
  const relative = normalPath(task);
  // The task reader's own words name current (a run reads current): here the path is --task's.
  if (!existsSync(where.absolute))
    throw new InputError(
      `--task ${task}: no such file in the board folder. Give one of the tasks of ${path.basename(board.file)}` +
        (board.tasks[0] === undefined ? '.' : `, e.g. --task ${board.tasks[0]}.`),
    );
  readTaskMeta(board.dir, relative);
  return relative;
}

function resultFlag(value: string | boolean): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(value));
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(
      `--result must be a JSON object, the worker's reply (got ${JSON.stringify(value)}), e.g. ` +
        `--result '{"status":"ok","message":"done"}'.`,
    );
  }
  return parsed as Record<string, unknown>;
}

// runAgent words its last failure for a run ("the board is unchanged … run again to resume");
// a try has no board to resume, only the same command to try again.
function reworded(message: string, file: string): string {
  return message
    .replace(' The board is unchanged.', '')
    .replace(
      /then run again to resume at this task\.$/,
      `then try again. Its output: ${runnable(`logs${boardArg(file)} --try`)}`,
    );
}

function boardArg(file: string): string {
  return file === 'kanban.yaml' ? '' : ` ${shellWord(file)}`;
}
