import { createHash } from 'node:crypto';
import { cliReplySchema, strictSchema } from '../reply/reply-schema.js';
import type { AgentCli } from './adapter.js';
import { agentFor, programOf, programWord } from './index.js';

/** The reply schema one agent run hands its CLI (role `cli_schema: true`), in the form that CLI takes. */
export interface HandedSchema {
  /** The JSON given: in the argv itself, or the content of `file`. */
  text: string;
  /** Board-relative: where the text is written once per agent run, named by its content. */
  file?: string;
  /** The plain schema the text stands for, when it is the strict form (validate.ts reads its nulls). */
  strictFrom?: object;
}

/** What one agent run hands its CLI: the reply schema and the run's budget left, each only where the CLI takes it. */
export interface Handed {
  schema?: HandedSchema;
  /** The absolute path the schema file has in the agent's argv. */
  schemaPath?: string;
  budgetUsd?: number;
}

/** How to get past a reply schema that cannot be handed to a role's CLI. */
export const CLI_SCHEMA_FIX =
  'Set `cli_schema: false` (the supervisor still checks every reply), or change the command.';

// Content-addressed under the supervisor's own folder: the same schema is the same file for every
// attempt (a retry's argv is byte-identical), and a fenced agent can read it but not change it.
const SCHEMA_DIR = '.kanban-supervisor/schemas';

/**
 * The reply schema (the shipped one, the Manager's for the Manager, and the role's own `extra`)
 * in the form the role's CLI takes, or why it cannot be handed one (pure).
 */
export function handedSchema(command: readonly string[], manager: boolean, extra?: unknown): HandedSchema | string {
  const agent = agentFor(command);
  const takes = agent.calls?.schema;
  if (!takes || optionsAt(command, agent) === undefined)
    return (
      `${agent.calls ? agent.name : programOf(command)} cannot be handed a schema in this command ` +
      '(only `claude -p` and `codex exec` can)'
    );
  const plain = cliReplySchema(manager, extra);
  if (typeof plain === 'string') return `the role's schema cannot be handed on: ${plain}`;
  const form = takes.strict ? strictSchema(plain) : plain;
  if (typeof form === 'string') return `the reply schema has no strict form for ${agent.name}: ${form}`;
  if (!takes.file) return { text: JSON.stringify(form) };
  const text = `${JSON.stringify(form, null, 2)}\n`;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { text, file: `${SCHEMA_DIR}/${hash}.json`, ...(takes.strict && { strictFrom: plain }) };
}

/**
 * The argv with the options for what is handed put where its CLI takes them (before a `--`, after
 * its subcommand), after the `already` options put there before (one transform's, the next's);
 * an option the role's command already gives is left as the role wrote it. `added` says where
 * and how many (`already` included), so the role's own elements can still be found (pure).
 */
export function withCallOptions(
  args: readonly string[],
  command: readonly string[],
  handed: Handed,
  already?: { at: number; count: number },
): { args: string[]; added?: { at: number; count: number } } {
  const agent = agentFor(command);
  const at = optionsAt(command, agent);
  if (at === undefined) return { args: [...args], ...(already && { added: already }) };
  const given = (option: string | undefined) => option !== undefined && !command.includes(option);
  const options: string[] = [];
  const schema = agent.calls?.schema;
  if (handed.schema && schema && given(schema.option))
    options.push(schema.option, schema.file ? (handed.schemaPath ?? '') : handed.schema.text);
  const budget = agent.calls?.budget;
  if (handed.budgetUsd !== undefined && given(budget)) options.push(budget as string, String(handed.budgetUsd));
  if (options.length === 0) return { args: [...args], ...(already && { added: already }) };
  // `args` are the argv after the program's own path (invocation.args): one index less than `command`.
  const before = already?.count ?? 0;
  const cut = at - 1 + before;
  return {
    args: [...args.slice(0, cut), ...options, ...args.slice(cut)],
    added: { at, count: before + options.length },
  };
}

// Where a CLI takes the options in a role's argv: after its program (and subcommand), before a `--`
// that ends the options; undefined when the argv does not run it so (`codex` without `exec`).
function optionsAt(command: readonly string[], agent: AgentCli): number | undefined {
  const program = programWord(command)?.index;
  const calls = agent.calls;
  if (program === undefined || !calls) return undefined;
  const sub = calls.subcommand;
  if (sub && !sub.includes(command[program + 1] ?? '')) return undefined;
  const from = program + 1 + (sub ? 1 : 0);
  const end = command.indexOf('--', from);
  return end < 0 ? from : end;
}
