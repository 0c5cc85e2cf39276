/**
 * Whether to colour: only on a terminal, and never when NO_COLOR is set to anything
 * non-empty (https://no-color.org) or `--no-color` was given.
 */
export function wantsColour(isTTY: boolean, env: NodeJS.ProcessEnv, noColorFlag: boolean): boolean {
  return isTTY && !noColorFlag && !env.NO_COLOR && env.TERM !== 'dumb';
}

/** Whether a terminal can take a line redrawn in place: not in CI logs, not a dumb terminal. */
export function wantsLiveLine(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return isTTY && !ci && env.TERM !== 'dumb';
}

/** How progress is shown: a live line on a terminal, plain lines, JSON events, or nothing but the outcome. */
export type ReporterMode = 'live' | 'plain' | 'json' | 'quiet';

/** What decides the mode and colours: the flags and where stdout goes. */
export interface ReporterChoice {
  json?: boolean;
  quiet?: boolean;
  noColor?: boolean;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** `--json` wins, then `--quiet`; otherwise a terminal gets the live line and a pipe or CI plain lines (pure). */
export function reporterMode(choice: ReporterChoice): ReporterMode {
  if (choice.json) return 'json';
  if (choice.quiet) return 'quiet';
  return wantsLiveLine(choice.isTTY, choice.env) ? 'live' : 'plain';
}

/** How progress shows on `out` (stdout, or stderr for `try`) for these flags: the mode, and whether in colour. */
export function showOn(
  out: NodeJS.WriteStream,
  flags: Pick<ReporterChoice, 'json' | 'quiet' | 'noColor' | 'env'>,
): { mode: ReporterMode; colour: boolean; out: NodeJS.WriteStream } {
  const isTTY = out.isTTY === true;
  const mode = reporterMode({ ...flags, isTTY });
  return { mode, colour: mode === 'live' && wantsColour(isTTY, flags.env, flags.noColor === true), out };
}
