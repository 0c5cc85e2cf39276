import path from 'node:path';
import { checkCommand } from '../agent/command.js';
import { describeCommand } from '../agent/invocation.js';
import { acpMessages, type AcpMessage } from '../acp/messages.js';
import type { AgentInputs } from '../board/inputs.js';
import { planAgent, type PlannedAgent } from '../agent/prepare.js';
import { createSchemaCompiler } from '../schemas.js';
import { formatProblem, readBoard, type Board } from '../board/read-board.js';
import { checkBoard, startEnv } from '../board/check.js';
import { loadSeams } from '../run/capability-list.js';
import { toRunMore } from '../board/hints.js';
import { InputError } from '../errors.js';
import { roleFilePath, type Role } from '../board/role.js';
import { fallbackChain } from '../board/fallback-chain.js';
import { DEFAULTS, resolveSettings, type Settings, type SettingsFlags } from '../board/settings.js';
import type { DryRunAsk, Flags, SeamLists } from '../loop/context.js';
import { CAPABILITIES } from '../run/capability-list.js';
import { managerInputs, workerInputs } from '../board/step-inputs.js';
import { parseDuration } from '../util/duration.js';
import { maskedEnv, type ShownVariable } from './dry-run-env.js';
import { maskArgv, secretValues } from '../util/secrets.js';
import type { Fence } from '../sandbox/fence.js';
import { fenceOf } from '../sandbox/transform.js';

/** Where the agent's timeout comes from, in the order that decides it. */
export type TimeoutSource = 'role' | 'flag' | 'board' | 'default';

/** The timeout in force and every setting that asked for one, so a person sees why it wins. */
export interface TimeoutChoice {
  ms: number;
  from: TimeoutSource;
  /** Each source that set a timeout, winner first: role `timeout:`, `--timeout`, `supervisor.timeout`, the default. */
  asked: Array<{ from: TimeoutSource; ms: number }>;
}

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
    /** Which argv elements are the role's {{prompt}}. */
    promptArgs: number[];
    /** The exact stdin text, or null for /dev/null. */
    stdin: string | null;
    /**
     * The variables the agent gets that matter here: KANBAN_*, the role's `env:` (masked), inherited secrets (masked).
     */
    env: Record<string, string>;
    /** Where each shown variable comes from, and whether its value is masked. */
    envSources: ShownVariable[];
    cwd: string;
    timeoutMs: number;
    timeout: TimeoutChoice;
    idleTimeoutMs: number | null;
    maxRetries: number;
    /** The bubblewrap fence the agent would run in (role `sandbox:`), its argv put before the agent's. */
    fence?: Fence;
    /** The Manager that would then get the worker's reply. */
    manager: { roleFile: string; command: string };
    /** The role files whose agents would take the step while the role's account is limited (`fallback:`). */
    fallback?: string[];
    /** `protocol: acp`: the requests the supervisor would send the agent, in order, and its permission policy. */
    acp?: { messages: AcpMessage[]; allow: readonly string[] };
  };
  /** What a real run would refuse (exit 2) that the dry run shows anyway, e.g. an agent program not installed. */
  warnings: string[];
  /** On a board with a fenced role: what each role may read, write and run (as validate says). */
  access?: string[];
  /**
   * What the capabilities add (their surface.ts `dryRun`), by key: e.g. `git`
   * (whether each step would be a commit, and where); `notify`, where notifications would go, masked.
   */
  [capability: string]: unknown;
  /** Their text lines, in the list's order. */
  capabilityLines: string[];
}

/**
 * `--dry-run`: build the next step's invocation with the loop's own functions and return it.
 * Reads only: runs no agent (a capability's part may look, as git's read-only look-ups do), takes no
 * lock, writes nothing. An agent program that is not installed is a warning, not a refusal: the plan
 * is worth seeing before installing it.
 */
export async function dryRun(
  named: string,
  options: Flags,
  given: NodeJS.ProcessEnv = process.env,
): Promise<DryRunPlan> {
  const file = path.resolve(named);
  const board = readBoard(file);
  // As the run would start them: PATH without what a fenced agent could write (a warning below says so).
  const lists = await loadSeams();
  const env = startEnv(board.dir, given, lists.boardChecks());
  const ask = { file, flags: options, env, given };
  if (board.current === null || board.phase === 'complete') {
    // Nothing runs, so no setting is read but the capabilities' own (a malformed one is validate's to say).
    const settings = { ...DEFAULTS, supervisor: { ...board.settings, ...options.supervisor } };
    const { parts, lines } = await capabilityParts({ ...ask, settings, next: false }, []);
    return {
      file,
      warnings: [],
      ...parts,
      capabilityLines: lines,
      nothing:
        board.current === null
          ? `the board has no next task (current: null${board.phase === 'complete' ? ', phase: complete' : ''}). ` +
            toRunMore(board, path.basename(file)).replace(/\.$/, '')
          : `the board is complete (phase: complete), so ${board.current} (current) is not run; ` +
            `to run it, set phase to another value (e.g. execute)`,
    };
  }
  const settings = resolveSettings(board.settings, options);
  // What validate warns about (a role that gets no prompt, a key that looks like role) matters most before a first run.
  const checked = checkBoard({ file, env: given }, lists.boardChecks());
  const warnings: string[] = checked.warnings.map(formatProblem);
  const worker = plan(board, settings, workerInputs(board, board.current), env, warnings, lists.transforms);
  // The Manager's argv depends on the worker's reply; planning it here still checks its role file and command.
  const manager = plan(board, settings, managerInputs(board, board.current, {}), env, warnings, lists.transforms);
  const shown = maskedEnv(worker.invocation.env, env, worker.role.env);
  const fallback = fallbackChain(board.dir, worker.invocation.role).slice(1);
  const { invocation } = worker;
  const fence = fenceOf(invocation);
  const { parts, lines } = await capabilityParts({ ...ask, settings, next: true }, warnings);
  return {
    file,
    warnings,
    ...(checked.access && { access: checked.access }),
    ...parts,
    capabilityLines: lines,
    next: {
      task: board.current,
      role: invocation.role,
      roleFile: invocation.roleFile,
      // A key written into `command:` (`--api-key sk-…`, `Authorization: Bearer …`)
      // or a role's env: value in it is masked like the env.
      argv: maskArgv([invocation.file, ...invocation.args], secretValues(invocation.env, worker.role.env)),
      promptArgs: worker.role.command.flatMap((part, i) => (part.includes('{{prompt}}') ? [argvIndex(worker, i)] : [])),
      stdin: invocation.stdin === null ? null : invocation.stdin.toString('utf8'),
      env: Object.fromEntries(shown.map((v) => [v.name, v.value])),
      envSources: shown,
      cwd: invocation.cwd,
      timeoutMs: invocation.timeoutMs,
      timeout: timeoutChoice(worker.role, options, board),
      idleTimeoutMs: invocation.idleTimeoutMs,
      maxRetries: settings.maxRetries,
      ...(fence && { fence }),
      manager: { roleFile: manager.invocation.roleFile, command: describeCommand(manager.invocation, 120) },
      ...(fallback.length > 0 && { fallback: fallback.map(roleFilePath) }),
      ...(invocation.acp && {
        acp: { messages: acpMessages(invocation.acp), allow: invocation.acp.permissions.allow },
      }),
    },
  };
}

/** Which timeout applies: role `timeout:` over `--timeout` over `supervisor.timeout` over the 30m default (pure). */
export function timeoutChoice(
  role: Pick<Role, 'timeoutMs'>,
  flags: SettingsFlags,
  board: Pick<Board, 'settings'>,
): TimeoutChoice {
  const fromBoard =
    board.settings.timeout === undefined || board.settings.timeout === null
      ? null
      : parseDuration(board.settings.timeout);
  const asked: TimeoutChoice['asked'] = [];
  if (role.timeoutMs !== undefined) asked.push({ from: 'role', ms: role.timeoutMs });
  if (flags.timeoutMs !== undefined) asked.push({ from: 'flag', ms: flags.timeoutMs });
  if (fromBoard !== null) asked.push({ from: 'board', ms: fromBoard });
  asked.push({ from: 'default', ms: DEFAULTS.timeoutMs });
  const winner = asked[0] as TimeoutChoice['asked'][number];
  return { ms: winner.ms, from: winner.from, asked };
}

// What each capability's surface says of this board, in the list's order; its warnings join the plan's.
async function capabilityParts(
  ask: DryRunAsk,
  warnings: string[],
): Promise<{ parts: Record<string, unknown>; lines: string[] }> {
  const parts: Record<string, unknown> = {};
  const lines: string[] = [];
  for (const capability of CAPABILITIES) {
    const part = await capability.dryRun?.(ask);
    if (!part) continue;
    parts[part.key] = part.value;
    lines.push(...part.lines);
    warnings.push(...(part.warnings ?? []));
  }
  return { parts, lines };
}

// As a run prepares the agent (the tag shown as its run would set it: a dry run has no run),
// with a missing command kept as a warning. The dry-run tests compare the result with a run's.
function plan(
  board: Board,
  settings: Settings,
  inputs: AgentInputs,
  env: NodeJS.ProcessEnv,
  warnings: string[],
  transforms: SeamLists['transforms'],
): PlannedAgent {
  const run = { env, runId: '<run>', schemas: createSchemaCompiler(), transforms };
  const planned = planAgent(run, board, settings, inputs, 1);
  if (planned.problem !== undefined)
    warnings.push(`${planned.role.file}: ${planned.problem} A run would stop here with exit 2.`);
  try {
    checkCommand(planned.invocation);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    warnings.push(`${error.message} A run would stop here with exit 2.`);
  }
  return planned;
}

// Where an element of the role's command is in the argv, past the options handed to its CLI.
function argvIndex(planned: PlannedAgent, i: number): number {
  return planned.added && i >= planned.added.at ? i + planned.added.count : i;
}
