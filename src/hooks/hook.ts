import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { Outcome } from '../progress/outcome.js';
import { splitWords } from './words.js';

/** A command to run when a run ends (`--on-complete` / `--on-halt`), already split into argv. */
export interface Hook {
  flag: '--on-complete' | '--on-halt';
  argv: [string, ...string[]];
}

/** Where the run stood when it ended, for the hook's environment. */
export interface HookContext {
  /** Absolute path of kanban.yaml; the hook runs in its folder. */
  file: string;
  run: string;
  steps: number;
  /** The task of the last step started, or '' if none started. */
  task: string;
}

/** Parse a hook's command line and check its program exists, so a typo fails before the run, not hours later. */
export function parseHook(flag: Hook['flag'], text: string, cwd: string, env: NodeJS.ProcessEnv): Hook {
  const split = splitWords(text);
  if (!split.ok)
    throw new InputError(
      `${flag} ${JSON.stringify(text)} ${split.reason}. Give the command and its arguments, e.g. ${flag} "notify-send 'board halted'".`,
    );
  const argv = split.words as [string, ...string[]];
  const problem = programProblem(argv[0], cwd, env);
  if (problem)
    throw new InputError(
      `${flag}: the command "${argv[0]}" ${problem}. Install it or fix the ${flag} command (it is run as argv, not through a shell).`,
    );
  return { flag, argv };
}

/** The KANBAN_* variables a hook gets, on top of the supervisor's own environment (pure). */
export function hookEnv(outcome: Outcome, context: HookContext, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...base,
    KANBAN_OUTCOME: outcome.kind,
    KANBAN_EXIT_CODE: String(outcome.exitCode),
    KANBAN_MESSAGE: outcome.message,
    KANBAN_FILE: context.file,
    KANBAN_RUN: context.run,
    KANBAN_STEPS: String(context.steps),
    KANBAN_TASK: context.task,
  };
}

// Like a shell's lookup: a name with a slash is a path (from the board folder), else PATH is searched.
function programProblem(file: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const candidates = file.includes('/')
    ? [path.resolve(cwd, file)]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return null;
      }
    } catch {
      // not here, or not executable: keep looking
    }
  }
  return file.includes('/') ? `does not exist or is not executable (looked in ${cwd})` : 'was not found on PATH';
}
