#!/usr/bin/env node
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommand, type Options } from './args.js';
import type { RunFlags } from './commands/run.js';
import { guardOutput } from './run/stop.js';

const COMMON: Options = { help: { type: 'boolean', short: 'h' }, 'no-color': { type: 'boolean' } };
const SETTINGS: Options = { 'max-retries': { type: 'string' }, timeout: { type: 'string' } };
const FLAGS: Record<string, Options> = {
  run: {
    ...SETTINGS,
    'max-steps': { type: 'string' },
    once: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    // and the capabilities' own (capabilityFlags): read only when a command needs them.
  },
  init: { agent: { type: 'string' }, force: { type: 'boolean' }, from: { type: 'string' } },
  status: { json: { type: 'boolean' } },
  validate: {},
  report: {
    json: { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    runs: { type: 'string' },
    all: { type: 'boolean' },
    watch: { type: 'boolean' },
    port: { type: 'string' },
  },
  logs: {
    task: { type: 'string' },
    step: { type: 'string' },
    run: { type: 'string' },
    role: { type: 'string' },
    attempt: { type: 'string' },
    stdout: { type: 'boolean' },
    stderr: { type: 'boolean' },
    follow: { type: 'boolean', short: 'f' },
    try: { type: 'boolean' },
    raw: { type: 'boolean' },
  },
  try: {
    ...SETTINGS,
    instruction: { type: 'string' },
    task: { type: 'string' },
    result: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  },
  version: {},
  help: {},
};

type Values = Record<string, string | boolean | string[] | undefined>;

/** The flags capabilities add to `run` (each declared in its folder's surface.ts), and their examples. */
async function capabilityFlags(): Promise<{ options: Options; examples: Record<string, string> }> {
  const { CAPABILITIES } = await import('./run/capability-list.js');
  const flags = CAPABILITIES.flatMap((capability) => capability.flags ?? []);
  return {
    options: Object.fromEntries(
      flags.map(({ name, type, multiple }) => [name, { type, ...(multiple && { multiple }) }]),
    ),
    examples: Object.fromEntries(flags.flatMap(({ name, example }) => (example ? [[name, example]] : []))),
  };
}

/** Parse argv, run one command, print its outcome or error, and return the exit code. Only here are errors printed. */
export async function main(argv: string[]): Promise<number> {
  const first = argv[0];
  const alias: Record<string, string> = { '--version': 'version', '-v': 'version', '--help': 'help', '-h': 'help' };
  const named = first === undefined ? undefined : (alias[first] ?? (Object.hasOwn(FLAGS, first) ? first : undefined));
  const verb = named ?? 'run';
  const rest = named ? argv.slice(1) : argv;
  try {
    // `kanban-supervisor stauts` would otherwise be read as a board named "stauts".
    if (!named && first !== undefined) await refuseMistypedCommand(first);
    // `run` takes the capabilities' flags too; another command reads them only to name the one that has an option.
    const capabilities = verb === 'run' ? await capabilityFlags() : undefined;
    const options = { ...COMMON, ...FLAGS[verb], ...capabilities?.options };
    const every = async () => ({
      ...FLAGS,
      run: { ...FLAGS.run, ...(capabilities ?? (await capabilityFlags())).options },
    });
    const { values, positionals } = await parseCommand(verb, rest, options, every, capabilities?.examples);
    if (values.help) return print(await helpOf(verb));
    return await dispatch(verb, values, positionals);
  } catch (error) {
    return report(error);
  }
}

async function dispatch(verb: string, values: Values, positionals: string[]): Promise<number> {
  switch (verb) {
    case 'help':
      return help(positionals);
    case 'version':
      await noMore(verb, positionals, 0, 'takes no arguments');
      return print(`${version()}\n`);
    case 'init': {
      const { init, nextSteps } = await import('./commands/init.js');
      await noMore(verb, positionals, 1, 'takes one folder');
      const dir = positionals[0] ?? '.';
      const agent = (values.agent ?? 'shell') as Parameters<typeof init>[0]['agent'];
      const from = values.from as string | undefined;
      return print(
        nextSteps(dir, agent, init({ dir, agent, force: values.force === true, ...(from !== undefined && { from }) })),
      );
    }
    case 'try': {
      const { tryRole } = await import('./commands/try.js');
      await noMore(verb, positionals, 2, 'takes a role and one board (a kanban.yaml or its folder)');
      if (positionals[0] === undefined) {
        const { runnable } = await import('./util/self-command.js');
        throw await (
          await import('./args.js')
        ).usage(verb, `try needs the role to run, e.g. \`${runnable('try Implementor --instruction "Say hello"')}\`.`);
      }
      return tryRole({ role: positionals[0], file: await board(positionals[1]), flags: values });
    }
    default:
      break;
  }
  await noMore(verb, positionals, 1, 'takes one board (a kanban.yaml or its folder)');
  const file = await board(positionals[0]);
  switch (verb) {
    case 'status': {
      const [{ status }, { formatStatus }] = await Promise.all([
        import('./commands/status.js'),
        import('./commands/status-text.js'),
      ]);
      const report = status({ file });
      return print(values.json ? `${JSON.stringify(report)}\n` : formatStatus(report));
    }
    case 'validate': {
      const { validate, formatValidation } = await import('./commands/validate.js');
      const result = await validate({ file });
      print(formatValidation(result, process.cwd()));
      return result.problems.length ? 2 : 0;
    }
    case 'report': {
      const { report, reportScope } = await import('./commands/report.js');
      if (values.watch === true || values.port !== undefined) {
        const { serveReport } = await import('./commands/report-live.js');
        const { watch, out, port } = values;
        return await serveReport({ file, watch, out, port, ...reportScope(values.runs, values.all) });
      }
      if (values.json === true) {
        const { reportJson } = await import('./commands/report.js');
        return print(`${JSON.stringify(reportJson(file, reportScope(values.runs, values.all)))}\n`);
      }
      const written = report({
        file,
        ...(typeof values.out === 'string' && { out: values.out }),
        ...reportScope(values.runs, values.all),
      });
      const left = written.olderLeftOut
        ? ` (the last ${written.runs}; older runs are left out, --all shows every run)`
        : '';
      return print(
        `Wrote ${path.relative(process.cwd(), written.out)}: ${written.runs} run(s)${left}, ` +
          `${written.attempts} attempt(s)` +
          (written.carried
            ? `, with the files it links in ${path.relative(process.cwd(), written.carried)} (keep them together)`
            : '') +
          `. Open it in a browser: ${pathToFileURL(written.out).href}\n`,
      );
    }
    case 'logs': {
      const { logsCommand } = await import('./commands/logs.js');
      return logsCommand({ file, flags: values });
    }
    default: {
      const { runCommand } = await import('./commands/run.js');
      return runCommand(file, values as RunFlags);
    }
  }
}

// `help`, `help <command>`; an unknown command is a mistake (exit 2), not the general help.
async function help(positionals: string[]): Promise<number> {
  const { mainHelp } = await import('./help.js');
  await noMore('help', positionals, 1, 'takes one command');
  const wanted = positionals[0];
  if (wanted === undefined) return print(mainHelp());
  if (Object.hasOwn(FLAGS, wanted)) return print(await helpOf(wanted));
  const { closest } = await import('./util/suggest.js');
  const guess = closest(wanted, Object.keys(FLAGS));
  throw await (
    await import('./args.js')
  ).usage(
    'main',
    `there is no command "${wanted}".${guess ? ` Did you mean ${guess}?` : ''} Commands: ` +
      `${Object.keys(FLAGS).join(', ')}.`,
  );
}

// A command's --help; run's lists the capabilities' flags and settings, so it loads their list.
async function helpOf(verb: string): Promise<string> {
  const { commandHelp } = await import('./help.js');
  const capabilities = verb === 'run' ? (await import('./run/capability-list.js')).CAPABILITIES : [];
  return commandHelp(verb, process.env, capabilities);
}

async function board(arg: string | undefined): Promise<string> {
  return (await import('./board/locate.js')).locateBoard(arg);
}

// A stray word is refused by name, with what the command takes.
async function noMore(verb: string, positionals: string[], max: number, takes: string): Promise<void> {
  const extra = positionals[max];
  if (extra === undefined) return;
  throw await (
    await import('./args.js')
  ).usage(verb, `unexpected argument "${extra}": ${verb} ${takes}. Remove "${extra}".`);
}

async function refuseMistypedCommand(first: string): Promise<void> {
  if (first.startsWith('-') || existsSync(first)) return;
  const guess = (await import('./util/suggest.js')).closest(first, Object.keys(FLAGS));
  if (guess)
    throw await (await import('./args.js')).usage('main', `unknown command "${first}". Did you mean ${guess}?`);
}

async function report(error: unknown): Promise<number> {
  const [{ SupervisorError }, { failedOutcome, outcomeLine }] = await Promise.all([
    import('./errors.js'),
    import('./progress/outcome.js'),
  ]);
  if (error instanceof SupervisorError) {
    process.stderr.write(`${outcomeLine(failedOutcome(error))}\n`);
    return error.exitCode;
  }
  process.stderr.write(
    `kanban-supervisor: internal error (a bug in kanban-supervisor ${version()}, not in your board): ` +
      `${(error as Error)?.stack ?? String(error)}\n` +
      'Please report it with the command you ran and this message.\n',
  );
  return 1;
}

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

// A reader that went away (74) or a lost terminal (129) is no crash (stop.ts); `run` also stops its agent first.
guardOutput(process);
cacheCompiledCode();
process.exitCode = supportedNode(process.versions.node)
  ? await main(process.argv.slice(2))
  : tooOld(process.versions.node);

// Whether this Node.js is one the package supports (package.json engines: 22 or later).
function supportedNode(version: string): boolean {
  return Number(version.split('.')[0]) >= 22;
}

// Older lines fail deep inside a dependency with a message that names neither Node nor the fix.
function tooOld(version: string): number {
  process.stderr.write(
    `kanban-supervisor: needs Node.js 22 or later (this is ${version}). Install Node.js 22 or 24 and run it again.\n`,
  );
  return 2;
}

/**
 * Keep compiled modules between runs (Node 22.1+; NODE_DISABLE_COMPILE_CACHE=1: off). Node runs
 * the cache as code: it lives beside the code, as trusted, used only by the owner of dist/ (not
 * by root running a user's install), never in the board folder.
 */
function cacheCompiledCode(): void {
  const dist = import.meta.dirname;
  if (statSync(dist).uid === process.getuid?.()) module.enableCompileCache?.(path.join(dist, '.compile-cache'));
}
