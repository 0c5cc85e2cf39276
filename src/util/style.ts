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
