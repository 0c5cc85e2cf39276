/** Colours for terminal output; every function returns its text untouched when colour is off. */
export interface Style {
  green: (text: string) => string;
  red: (text: string) => string;
  yellow: (text: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

/** A style with or without colour. */
export function createStyle(colour: boolean): Style {
  if (!colour) return { green: plain, red: plain, yellow: plain, dim: plain, bold: plain };
  return { green: sgr(32, 39), red: sgr(31, 39), yellow: sgr(33, 39), dim: sgr(2, 22), bold: sgr(1, 22) };
}

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

// Agents print colours, cursor moves and carriage returns of their own: shown raw
// inside the status line they would wreck it.
// eslint-disable-next-line no-control-regex -- matching terminal escapes is the point
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-_])/g;
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** An agent's output line made safe for one terminal line: no escapes, no control characters (pure). */
export function sanitizeLine(line: string): string {
  return line.replace(ESCAPES, '').replace(CONTROLS, ' ').trim();
}

/** Cut text to `width` characters, marking the cut with an ellipsis (pure). */
export function fitWidth(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}
