import path from 'node:path';
import { fencedWrites } from '../board/fenced-writes.js';
import { writtenPart } from '../board/outside-writes.js';
import { InputError } from '../errors.js';
import { findProgram } from '../util/process.js';
import { cleanBlock } from '../util/clean-text.js';
import type { Outcome } from '../progress/outcome.js';
import { splitWords } from './split-words.js';

/** A command to run when a run ends (`--on-complete` / `--on-halt`), already split into argv. */
export interface Hook {
  flag: '--on-complete' | '--on-halt';
  argv: [string, ...string[]];
  /** The program as found when the run started (absolute): what is run, not looked up again on PATH. */
  program: string;
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

/**
 * Parse a hook's command line and check its program exists, so a typo fails before the run, not
 * hours later. When a role of the board is fenced, a hook whose program — or the script it gives
 * an interpreter (`sh ./notify.sh`) — lies where a fenced agent can write is refused: the hook runs
 * unfenced, after the agents. `env`'s PATH is already without the folders a fenced agent can
 * write (`removed`, named when the program is not found).
 */
export function parseHook(
  flag: Hook['flag'],
  text: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  removed: readonly string[] = [],
): Hook {
  const split = splitWords(text);
  if (!split.ok)
    throw new InputError(
      `${flag} ${JSON.stringify(text)} ${split.reason}. Give the command and its arguments, e.g. ` +
        `${flag} "notify-send 'board halted'".`,
    );
  const argv = split.words as [string, ...string[]];
  const found = findProgram(argv[0], env, cwd);
  if ('problem' in found)
    throw new InputError(
      `${flag}: the command "${argv[0]}" ${found.problem}` +
        (removed.length ? ` (without ${removed.join(', ')}: a fenced agent can write there)` : '') +
        `. Install it or fix the ${flag} command (it is run as argv, not through a shell).`,
    );
  const writes = fencedWrites(cwd, env);
  const written = writes && writtenPart(argv, found.file, cwd, writes);
  if (written) {
    const what = written.what === 'script' ? `the script ${written.word} (run by ${argv[0]})` : argv[0];
    const moved = argv.map((word) => (word === written.word ? `$HOME/bin/${path.basename(word)}` : word)).join(' ');
    throw new InputError(
      `${flag}: ${what} lies in ${written.place}, where a fenced agent (${writes.roles.join(', ')}) can write, ` +
        `and hooks run unfenced. Move it to a folder no fenced agent can write and give its full path, ` +
        `e.g. ${flag} "${moved}".`,
    );
  }
  return { flag, argv, program: found.file };
}

/**
 * The KANBAN_* variables a hook gets, on top of the supervisor's own environment (pure). The
 * message is cleaned as for a terminal: a hook that prints or mails it must not pass on an
 * agent's escape sequences (an OSC 52 clipboard write).
 */
export function hookEnv(outcome: Outcome, context: HookContext, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...base,
    KANBAN_OUTCOME: outcome.kind,
    KANBAN_EXIT_CODE: String(outcome.exitCode),
    KANBAN_MESSAGE: cleanBlock(outcome.message),
    KANBAN_FILE: context.file,
    KANBAN_RUN: context.run,
    KANBAN_STEPS: String(context.steps),
    KANBAN_TASK: context.task,
  };
}
