import stringWidth from 'string-width';

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

/** How many terminal columns plain text takes (wide characters and emoji count two). */
export function columnsOf(text: string): number {
  return stringWidth(text);
}

/** Cut plain text to at most `columns` terminal columns, marking the cut with an ellipsis (pure). */
export function fitColumns(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const width = stringWidth(segment);
    if (used + width > columns - 1) break;
    out += segment;
    used += width;
  }
  return columns >= 1 ? `${out}…` : '';
}

/** Keep the end of plain text within `columns` columns, marking the cut at the start (pure). */
export function fitColumnsEnd(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  const segments = [...new Intl.Segmenter().segment(text)].map((s) => s.segment);
  let out = '';
  let used = 0;
  for (let i = segments.length - 1; i >= 0; i--) {
    const width = stringWidth(segments[i] as string);
    if (used + width > columns - 1) break;
    out = `${segments[i] as string}${out}`;
    used += width;
  }
  return `…${out}`;
}
