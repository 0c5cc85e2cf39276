// Agents print colours, cursor moves, window titles, clipboard writes (OSC 52) and bare
// carriage returns. None of it may reach a person's terminal from a message, a path or an
// output line: an escape sequence in an agent's text is hostile input, not formatting.
const ESCAPES = new RegExp(
  String.raw`\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)|[ -/]*[0-~]?)|` +
    // A C1 string ends at its terminator or where another sequence begins: a body that ran on
    // over other introducers would be scanned again from each of them (quadratic on `\x9da` × n).
    String.raw`\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d-\x9f][^\x07\x1b\x9c\x90\x98\x9b\x9d-\x9f]*` +
    String.raw`(?:\x07|\x1b\\|\x9c|$|(?=[\x1b\x90\x98\x9b\x9d-\x9f]))`,
  'g',
);
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Agent text made safe for one terminal line: no escape sequences,
 * no control or bidi characters, line breaks as spaces (pure).
 */
export function cleanLine(text: string): string {
  return text
    .replace(ESCAPES, '')
    .replace(/\r\n|[\r\n\t]/g, ' ')
    .replace(CONTROLS, '')
    .trim();
}

/** Agent text made safe for a terminal or a Markdown log, keeping its line breaks (pure). */
export function cleanBlock(text: string): string {
  return text.replace(ESCAPES, '').replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(CONTROLS, '\uFFFD');
}

// What cleanLine removes but for line breaks and tabs (which it makes spaces: they join nothing).
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const JOINING = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as a terminal would show it (pure): no escape sequences, no control or bidi characters,
 * line breaks and tabs kept. Masking reads this (util/secrets.ts), so a secret split by `\x1b[0m`
 * or a BEL is found whole, as the person would read it once cleaned.
 */
export function withoutControls(text: string): string {
  return text.replace(ESCAPES, '').replace(JOINING, '');
}

/** Cut text to at most `max` characters, marking the cut with an ellipsis (pure). */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return max <= 1 ? chars.slice(0, max).join('') : `${chars.slice(0, max - 1).join('')}…`;
}
