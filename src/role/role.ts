import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDuration } from '../util/duration.js';
import { InputError } from '../errors.js';
import { parseFrontMatter } from '../util/front-matter.js';
import { describeErrors, validator } from '../schemas.js';
import type { OutputStrategy } from '../reply/extract.js';

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
  /** The role prompt (file body), placeholders not yet filled. */
  prompt: string;
}

/** `roles/<name>.md`, lower-cased, relative to the board folder. */
export function roleFilePath(name: string): string {
  return path.join('roles', `${name.toLowerCase()}.md`);
}

// The two role files of a step are the same files step after step: a text seen before is
// not parsed again (read, yes: a person's edit between steps still takes effect).
const parsedRoles = new Map<string, { text: string; role: Role }>();

/** Read and check a role file; every problem is an InputError naming the role file and the fix. */
export function loadRole(boardDir: string, name: string, wantedBy: string): Role {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name)) {
    throw new InputError(`${wantedBy}: role "${name}" is not a valid role name. Use letters, digits, - and _ only.`);
  }
  const file = roleFilePath(name);
  let text: string;
  try {
    text = readFileSync(path.join(boardDir, file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new InputError(`${file}: no such role file, but ${wantedBy} needs role ${name}. Create ${file} (see \`kanban-supervisor init\`) or change the role.`);
    }
    throw new InputError(`${file}: cannot be read (${(error as Error).message}).`);
  }
  const key = `${boardDir}\0${name}`;
  const seen = parsedRoles.get(key);
  if (seen?.text === text) return seen.role;
  const role = parseRole(file, name, text);
  if (parsedRoles.size >= 64) parsedRoles.clear(); // many boards in one process (tests): stay small
  parsedRoles.set(key, { text, role });
  return role;
}

/** Parse a role file's text (pure). */
export function parseRole(file: string, name: string, text: string): Role {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) throw new InputError(`${file}:${parsed.line}: ${parsed.message}. ${placeholderHint(text) ?? 'Fix the front-matter between the --- lines.'}`);
  if (!text.startsWith('---')) {
    throw new InputError(`${file}: has no front-matter. Start it with ---, a \`command: [...]\` line and --- (see the README).`);
  }
  const data = parsed.data;
  const validate = validator('role');
  if (!validate(data)) {
    const first = describeErrors(validate.errors, data)[0] ?? 'is invalid';
    throw new InputError(`${file}: front-matter ${first}. ${(first.startsWith('/command/') && placeholderHint(text)) || roleFix(first)}`);
  }
  const timeoutMs = optionalDuration(data.timeout, file, 'timeout');
  const idleTimeoutMs = optionalDuration(data.idle_timeout, file, 'idle_timeout');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries((data.env as Record<string, unknown> | undefined) ?? {})) env[key] = String(value);
  return {
    name,
    file,
    command: data.command as string[],
    stdin: (data.stdin as Role['stdin'] | undefined) ?? 'prompt',
    output: (data.output as OutputStrategy | undefined) ?? 'auto',
    env,
    prompt: parsed.body.replace(/^\n/, ''),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
    ...(typeof data.schema === 'string' && { schema: data.schema }),
  };
}

function optionalDuration(value: unknown, file: string, key: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = parseDuration(value);
  if (ms === null) throw new InputError(`${file}: front-matter /${key} must be a duration like 90s, 20m or 1h30m (got ${JSON.stringify(value)}).`);
  return ms;
}

// In YAML, `{{x}}` unquoted inside a flow list is a nested mapping, not text.
function placeholderHint(text: string): string | undefined {
  return /^command:.*[[,\s=]\{\{/m.test(text) ? 'Quote argv elements that contain {{placeholders}}, e.g. command: [agent, "{{task_file}}"].' : undefined;
}

function roleFix(problem: string): string {
  if (problem.startsWith('/command') || problem.includes('"command"')) return 'Set `command:` to the agent\'s argv as a list, e.g. `command: [claude, -p, --output-format, json]`.';
  if (problem.startsWith('/stdin')) return 'Use `stdin: prompt`, `stdin: json` or `stdin: none`.';
  if (problem.startsWith('/output')) return 'Use `output: auto` unless you need a named strategy.';
  if (problem.startsWith('/env')) return 'Give `env:` as a mapping of names to strings.';
  return 'See the role file format in the README.';
}
