import path from 'node:path';
import { formatProblem, type Problem } from './read-board.js';
import { InputError } from '../errors.js';
import { readRegular } from '../fs/safe-read.js';
import type { OutputStrategy } from '../reply/extract.js';
import { patternProblems, type FailurePatterns } from '../reply/failure-patterns.js';
import { describeErrors, pointerOf, validator } from '../schemas.js';
import { readDuration } from '../util/duration.js';
import { parseFrontMatter } from './front-matter.js';
import { runnable } from '../util/self-command.js';
import { closest } from '../util/suggest.js';
import { sandboxSpec, type SandboxSpec } from './role-sandbox.js';
import { missingRoleHint, roleFilePath } from './role-names.js';
import { plainSchemaMessage } from './pointer-words.js';
import { mcpServersOf, policyOf, type McpServer } from '../acp/messages.js';
import type { PermissionPolicy } from '../acp/policy.js';

/** How to run a role's agent: the front-matter of `roles/<name>.md` plus its body as the prompt. */
export interface Role {
  name: string;
  /** Board-relative path of the role file, for messages. */
  file: string;
  command: string[];
  stdin: 'prompt' | 'json' | 'none';
  output: OutputStrategy;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  env: Record<string, string>;
  /** Board-relative path of an extra JSON Schema the role's replies must also satisfy. */
  schema?: string;
  /**
   * Hand the role's reply schema to its CLI (`cli_schema: true`;
   * Claude Code, Codex): the format is right within its run.
   */
  cliSchema?: boolean;
  /** How to recognise this CLI's usage limits, login failures and transient errors (role `failures:`). */
  failures?: FailurePatterns;
  /** Run the agent inside a bubblewrap fence (role `sandbox:`); absent: unfenced. */
  sandbox?: SandboxSpec;
  /** Roles whose agents take this role's steps while its CLI account waits out a usage limit (role `fallback:`). */
  fallback?: string[];
  /** How the agent is spoken to: its stdin and stdout (absent, `cli`), or the Agent Client Protocol (`acp`). */
  protocol?: 'acp';
  /** `protocol: acp`: how its permission requests are answered (role `permissions:`; else the default policy). */
  permissions?: PermissionPolicy;
  /** `protocol: acp`: the MCP servers its session gets (role `mcp_servers:`; else none). */
  mcpServers?: McpServer[];
  /** The role prompt (the file's body), placeholders not yet filled. */
  prompt: string;
  /** The file line where the prompt starts, for messages about it. */
  promptLine: number;
  /** The file line of a front-matter key, for messages about it. */
  lineOf: (pointer: string) => number;
}

/** A role file read and checked: the role when it can be used, and every problem found. */
export interface RoleCheck {
  role?: Role;
  /**
   * The role as far as it could be read, when it has problems:
   * enough to check its placeholders, command and schema too.
   */
  draft?: Role;
  problems: Problem[];
  /** The file does not exist (the caller knows who needed it). */
  missing?: boolean;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const KEYS = [
  'command',
  'stdin',
  'output',
  'timeout',
  'idle_timeout',
  'env',
  'schema',
  'cli_schema',
  'failures',
  'sandbox',
  'fallback',
  'protocol',
  'permissions',
  'mcp_servers',
];
const SANDBOX_KEYS = ['write', 'read', 'copy', 'hide', 'network'];

export { roleFilePath } from './role-names.js';

/** Whether a string can name a role (letters, digits, - and _). */
export function isRoleName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}

/** Read and check `roles/<name>.md`, returning every problem of its front-matter at once. */
export function readRole(boardDir: string, name: string): RoleCheck {
  const file = roleFilePath(name);
  let text: string | undefined;
  try {
    // Without blocking: a FIFO planted in place of a role file is refused, never waited on.
    text = readRegular(path.join(boardDir, file), file);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { problems: [{ file, message: error.message.replace(`${file}: `, '') }] };
  }
  return text === undefined ? { problems: [], missing: true } : parseRole(file, name, text);
}

/** Parse and check a role file's text (pure). */
export function parseRole(file: string, name: string, text: string): RoleCheck {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok)
    return {
      problems: [
        {
          file,
          line: parsed.line,
          message:
            `${parsed.message}. ` +
            `${placeholderHint(text) ?? parsed.fix ?? 'Fix the front-matter between the --- lines.'}`,
        },
      ],
    };
  if (!parsed.present)
    return {
      problems: [
        {
          file,
          line: 1,
          message:
            'has no front-matter. Start it with ---, a `command: [...]` line and --- ' +
            '(see docs/board.md, "Role files").',
        },
      ],
    };
  const { data, lineOf } = parsed;
  const problems: Problem[] = [];
  const validate = validator('role');
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      const problem = describeErrors([error], data)[0];
      if (problem)
        problems.push({
          file,
          line: lineOf(pointerOf(error)),
          message: (
            `front-matter ${plainSchemaMessage(problem)}. ` + `${roleFix(problem, error.params, placeholderHint(text))}`
          ).trim(),
        });
    }
  }
  const durations: Record<string, number | undefined> = {};
  for (const key of ['timeout', 'idle_timeout']) {
    const value = data[key];
    if (value === undefined || value === null) continue;
    const read = readDuration(value);
    if ('ms' in read) durations[key] = read.ms;
    else problems.push({ file, line: lineOf(`/${key}`), message: `front-matter ${key} must be ${read.mustBe}.` });
  }
  const env: Record<string, string> = {};
  if (data.env && typeof data.env === 'object')
    for (const [key, value] of Object.entries(data.env)) env[key] = String(value);
  const role: Role = {
    name,
    file,
    command: Array.isArray(data.command) ? data.command.filter((part): part is string => typeof part === 'string') : [],
    stdin: (data.stdin as Role['stdin'] | undefined) ?? 'prompt',
    output: (data.output as OutputStrategy | undefined) ?? 'auto',
    env,
    prompt: parsed.body.replace(/^\n/, ''),
    promptLine: parsed.bodyLine + (parsed.body.startsWith('\n') ? 1 : 0),
    lineOf,
    ...(durations.timeout !== undefined && { timeoutMs: durations.timeout }),
    ...(durations.idle_timeout !== undefined && { idleTimeoutMs: durations.idle_timeout }),
    ...(typeof data.schema === 'string' && { schema: data.schema }),
    ...(data.cli_schema === true && { cliSchema: true }),
    ...(Array.isArray(data.fallback) && { fallback: data.fallback.filter(isRoleName) }),
    ...(data.failures !== undefined && problems.length === 0 && { failures: data.failures as FailurePatterns }),
    ...(data.protocol === 'acp' && { protocol: 'acp' as const }),
    ...(data.permissions !== undefined && problems.length === 0 && { permissions: policyOf(data.permissions) }),
    ...(data.mcp_servers !== undefined && problems.length === 0 && { mcpServers: mcpServersOf(data.mcp_servers) }),
  };
  // Only the protocol's messages reach an ACP agent's stdin; its policy and servers mean nothing to another.
  if (data.protocol === 'acp' && data.stdin !== undefined)
    problems.push({
      file,
      line: lineOf('/stdin'),
      message: 'front-matter stdin: does not apply with protocol: acp (the prompt goes in session/prompt). Remove it.',
    });
  for (const key of ['permissions', 'mcp_servers'])
    if (data[key] !== undefined && data.protocol !== 'acp')
      problems.push({
        file,
        line: lineOf(`/${key}`),
        message: `front-matter ${key}: applies only with protocol: acp. Add \`protocol: acp\` or remove it.`,
      });
  const sandbox = problems.length === 0 ? sandboxSpec(data.sandbox) : undefined;
  if (sandbox) role.sandbox = sandbox;
  if (role.failures)
    for (const problem of patternProblems(role.failures))
      problems.push({
        file,
        line: lineOf('/failures'),
        message: `front-matter failures: ${problem}. Write each pattern as a JavaScript regular expression.`,
      });
  return problems.length ? { draft: role, problems } : { role, problems };
}

/** The role for a run: every problem becomes one InputError (exit 2) naming the file, the line and the fix. */
export function loadRole(boardDir: string, name: string, wantedBy: string): Role {
  if (!isRoleName(name))
    throw new InputError(`${wantedBy}: role "${name}" is not a valid role name. Use letters, digits, - and _ only.`);
  const check = readRole(boardDir, name);
  if (check.missing) {
    const file = roleFilePath(name);
    throw new InputError(
      `${file}: no such role file, but ${wantedBy} needs role ${name}.${missingRoleHint(boardDir, name)} Create ` +
        `${file} (see \`${runnable('init --help')}\`) or change the role.`,
    );
  }
  if (!check.role) throw new InputError(problemsMessage(check.problems));
  return check.role;
}

/** The first problem as one line, and how many more there are. */
export function problemsMessage(problems: Problem[]): string {
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more problem(s): run \`${runnable('validate')}\`)` : '';
  return `${formatProblem(problems[0] as Problem)}${more}`;
}

// In YAML, `{{x}}` unquoted inside a flow list is a nested mapping, not text.
function placeholderHint(text: string): string | undefined {
  return /^command:.*[[,\s=]\{\{/m.test(text)
    ? 'Quote argv elements that contain {{placeholders}}, e.g. command: [agent, "{{task_file}}"].'
    : undefined;
}

function roleFix(problem: string, params: unknown, hint: string | undefined): string {
  const unknown = (params as { additionalProperty?: string }).additionalProperty;
  if (unknown !== undefined && problem.startsWith('/sandbox')) {
    const guess = closest(unknown, SANDBOX_KEYS);
    return guess ? `Did you mean ${guess}?` : `sandbox: knows ${SANDBOX_KEYS.join(', ')}.`;
  }
  if (unknown !== undefined) {
    const guess = closest(unknown, KEYS);
    return guess ? `Did you mean ${guess}?` : `Role files know ${KEYS.join(', ')}.`;
  }
  if (problem.startsWith('/command/') && hint) return hint;
  if (problem.startsWith('/command') || problem.includes('"command"'))
    return "Set `command:` to the agent's argv as a list, e.g. `command: [claude, -p, --output-format, json]`.";
  if (problem.startsWith('/stdin')) return 'Use `stdin: prompt`, `stdin: json` or `stdin: none`.';
  if (problem.startsWith('/output')) return 'Use `output: auto` unless you need a named strategy.';
  if (problem.startsWith('/sandbox'))
    return (
      'Use `sandbox: true`, or a map such as ' +
      '`sandbox: {write: [~/.cache/tool], read: [~/.gitconfig], network: false}`.'
    );
  if (problem.startsWith('/env')) return 'Give `env:` as a mapping of names to strings.';
  if (problem.startsWith('/fallback'))
    return (
      'List role names whose files are in roles/, e.g. `fallback: [implementor-codex]` for ' +
      'roles/implementor-codex.md.'
    );
  if (problem.startsWith('/protocol')) return 'Use `protocol: cli` (stdin and stdout) or `protocol: acp`.';
  if (problem.startsWith('/permissions'))
    return 'Use `permissions: {allow: [read, edit, search]}` with ACP tool kinds (docs/agent-clis.md, "Routes").';
  if (problem.startsWith('/mcp_servers'))
    return 'Give `mcp_servers:` as a list of `{name, command, args, env}` (stdio MCP servers).';
  if (problem.startsWith('/cli_schema')) return 'Use `cli_schema: true` (hand the CLI the reply schema) or `false`.';
  return 'See the role file format in docs/board.md, "Role files".';
}
