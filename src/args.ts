import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError } from './errors.js';

/** The options of one command, as node:util's parseArgs takes them. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** A command's arguments once parsed and checked. */
export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

// A value to show in "needs a value, e.g. …" for each option that takes one.
const EXAMPLES: Record<string, string> = {
  'max-retries': '2',
  'max-steps': '100',
  timeout: '20m',
  agent: 'claude',
  from: 'backlog',
  out: 'report.html',
  task: 'tasks/001-example.md',
  step: '3',
  run: '2026-01-31T21-04-05-123Z-4242',
  role: 'Manager',
  attempt: '1',
  instruction: `"Say hello"`,
  result: `'{"status":"ok","message":"done"}'`,
};

/**
 * Parse one command's arguments. parseArgs runs loose and the tokens are checked here, so
 * that every mistake gets words of ours and a fix, not node's ("argument is ambiguous"):
 * an unknown option (with the closest one, or the command that has it), an option missing
 * its value, a value given to a switch.
 */
export async function parseCommand(
  verb: string,
  args: string[],
  options: Options,
  /** Every command's options, read only to say which command has an unknown one. */
  everyCommand: () => Promise<Record<string, Options>>,
  /** Examples of the capabilities' flags (their surface.ts), beside the ones here. */
  examples: Record<string, string> = {},
): Promise<Parsed> {
  const { values, positionals, tokens } = parseArgs({
    args,
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const shown = token.rawName;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!spec) throw await unknownOption(verb, shown, options, everyCommand);
    if (spec.type === 'boolean' && token.value !== undefined) {
      throw await usage(verb, `${shown} takes no value (got ${shown}=${token.value}). Write ${shown} alone.`);
    }
    if (spec.type !== 'string') continue;
    const example = `${shown} ${examples[token.name] ?? EXAMPLES[token.name] ?? 'VALUE'}`;
    if (token.value === undefined) throw await usage(verb, `${shown} needs a value, e.g. ${example}.`);
    // `--timeout --once`: the next word was taken as the value, but it is an option.
    if (!token.inlineValue && /^--?[A-Za-z]/.test(token.value)) {
      throw await usage(
        verb,
        `${shown} needs a value, but the next word is the option ${token.value}. ` +
          `Put the value right after it (${example}); a value that starts with - is written ${shown}=-VALUE.`,
      );
    }
  }
  return { values: values as Parsed['values'], positionals };
}

/** An InputError ending with where to read more: `See \`npx kanban-supervisor run --help\`.` */
export async function usage(verb: string, message: string): Promise<InputError> {
  const { runnable } = await import('./util/self-command.js');
  return new InputError(`${message} See \`${runnable(`${verb === 'main' ? '' : `${verb} `}--help`)}\`.`);
}

async function unknownOption(
  verb: string,
  shown: string,
  options: Options,
  everyCommand: () => Promise<Record<string, Options>>,
): Promise<InputError> {
  const { closest } = await import('./util/suggest.js');
  const known = Object.keys(options).map((k) => `--${k}`);
  const guess = shown.startsWith('--') ? closest(shown, known) : undefined;
  const name = shown.replace(/^--?/, '');
  const every = await everyCommand();
  const owner = Object.keys(every).find((other) => other !== verb && Object.hasOwn(every[other] as Options, name));
  const { runnable } = await import('./util/self-command.js');
  const elsewhere = !guess && owner ? ` ${shown} is an option of \`${runnable(owner)}\`.` : '';
  return usage(verb, `unknown option ${shown} for ${verb}.${guess ? ` Did you mean ${guess}?` : elsewhere}`);
}
