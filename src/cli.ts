#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { RunFlags } from './commands/run.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const COMMON: Options = { help: { type: 'boolean', short: 'h' }, 'no-color': { type: 'boolean' } };
const FLAGS: Record<string, Options> = {
  run: {
    'max-retries': { type: 'string' },
    'max-steps': { type: 'string' },
    'max-cost': { type: 'string' },
    timeout: { type: 'string' },
    once: { type: 'boolean' },
    watch: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    'on-complete': { type: 'string' },
    'on-halt': { type: 'string' },
  },
  init: {
    agent: { type: 'string' },
    force: { type: 'boolean' },
  },
  status: { json: { type: 'boolean' } },
  validate: {},
  report: { out: { type: 'string', short: 'o' } },
};

/** Parse argv, run one command, print its outcome or error, and return the exit code. Only here are errors printed. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    const { HELP, commandHelp } = await import('./help.js');
    process.stdout.write(argv[0] === 'help' && argv[1] ? commandHelp(argv[1]) : HELP);
    return argv.length === 0 ? 2 : 0;
  }
  const verb = argv[0] && Object.hasOwn(FLAGS, argv[0]) ? argv[0] : 'run';
  const rest = verb === argv[0] ? argv.slice(1) : argv;
  try {
    if (verb !== argv[0]) await refuseMistypedCommand(argv[0] as string);
    const { values, positionals } = parseArgs({ args: rest, options: { ...COMMON, ...FLAGS[verb] }, allowPositionals: true, strict: true });
    if (values.help) {
      process.stdout.write((await import('./help.js')).commandHelp(verb));
      return 0;
    }
    return await dispatch(verb, values as Record<string, string | boolean | undefined>, positionals);
  } catch (error) {
    return report(error, verb);
  }
}

async function dispatch(verb: string, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  const { InputError } = await import('./errors.js');
  if (verb === 'init') {
    const { init, nextSteps } = await import('./commands/init.js');
    if (positionals.length > 1) throw new InputError(`unexpected argument "${positionals[1]}". init takes one folder; see \`kanban-supervisor init --help\`.`);
    const dir = positionals[0] ?? '.';
    const agent = (values.agent ?? 'shell') as Parameters<typeof init>[0]['agent'];
    process.stdout.write(nextSteps(dir, agent, init({ dir, agent, force: values.force === true })));
    return 0;
  }
  const file = positionals[0];
  if (!file) throw new InputError(`${verb} needs the path of kanban.yaml, e.g. \`kanban-supervisor ${verb === 'run' ? '' : `${verb} `}kanban.yaml\`.`);
  if (positionals.length > 1) throw new InputError(`unexpected argument "${positionals[1]}". Pass one kanban.yaml; see \`kanban-supervisor ${verb} --help\`.`);
  switch (verb) {
    case 'status': {
      const [{ status }, { formatStatus }] = await Promise.all([import('./commands/status.js'), import('./report/status-text.js')]);
      const report = status({ file });
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatStatus(report));
      return 0;
    }
    case 'validate': {
      const { validate, formatValidation } = await import('./commands/validate.js');
      const result = validate({ file });
      process.stdout.write(formatValidation(result, process.cwd()));
      return result.problems.length ? 2 : 0;
    }
    case 'report': {
      const { report } = await import('./commands/report.js');
      const written = report({ file, ...(typeof values.out === 'string' && { out: values.out }) });
      process.stdout.write(`Wrote ${path.relative(process.cwd(), written.out)}: ${written.runs} run(s), ${written.attempts} attempt(s). Open it in a browser: ${pathToFileURL(written.out).href}\n`);
      return 0;
    }
    default: {
      const { runCommand } = await import('./commands/run.js');
      return runCommand(file, values as RunFlags);
    }
  }
}

// `kanban-supervisor stauts kanban.yaml` would otherwise be read as a board named "stauts".
async function refuseMistypedCommand(first: string): Promise<void> {
  if (first.startsWith('-') || existsSync(first)) return;
  const guess = (await import('./util/suggest.js')).closest(first, [...Object.keys(FLAGS), 'help']);
  if (guess) throw new (await import('./errors.js')).InputError(`unknown command "${first}". Did you mean ${guess}? See \`kanban-supervisor --help\`.`);
}

async function report(error: unknown, verb: string): Promise<number> {
  const [{ SupervisorError }, { failedOutcome, outcomeLine }] = await Promise.all([import('./errors.js'), import('./progress/outcome.js')]);
  if (error instanceof SupervisorError) {
    process.stderr.write(`${outcomeLine(failedOutcome(error))}\n`);
    return error.exitCode;
  }
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`kanban-supervisor: ${await argsMessage(error as Error, verb)}\n`);
    return 2;
  }
  process.stderr.write(
    `kanban-supervisor: internal error (a bug in kanban-supervisor ${version()}, not in your board): ${(error as Error)?.stack ?? String(error)}\n` +
      'Please report it with the command you ran and this message.\n',
  );
  return 1;
}

async function argsMessage(error: Error, verb: string): Promise<string> {
  const flag = /'(-{1,2}[^'\s]+)'/.exec(error.message)?.[1];
  if (flag && /Unknown option/.test(error.message)) {
    const known = Object.keys({ ...COMMON, ...FLAGS[verb] }).map((k) => `--${k}`);
    const guess = (await import('./util/suggest.js')).closest(flag.replace(/=.*/, ''), known);
    const owner = Object.keys(FLAGS).find((other) => Object.hasOwn(FLAGS[other] as Options, flag.replace(/^--|=.*$/g, '')));
    const elsewhere = !guess && owner ? ` ${flag.replace(/=.*/, '')} is an option of \`kanban-supervisor ${owner}\`.` : '';
    return `unknown option ${flag} for ${verb}.${guess ? ` Did you mean ${guess}?` : elsewhere} See \`kanban-supervisor ${verb} --help\`.`;
  }
  return `${error.message.split('\n')[0]} See \`kanban-supervisor ${verb} --help\`.`;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

// A reader that went away (`status | head -1`) or a lost terminal is no crash: what is left to
// print is dropped and the exit code says so (74). `run` also stops its agent first (stop.ts).
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => (process.exitCode = 74));
process.exitCode = await main(process.argv.slice(2));
