/**
 * Split a hook's command line into argv the way a shell splits words, and nothing more:
 * spaces separate arguments, '…' quotes literally, "…" quotes with \" and \\ escapes, and a
 * backslash outside quotes escapes the next character. No $variables, globs, pipes or
 * redirections: the result is run as argv, never through a shell. Returns the words, or
 * why the text cannot be split (pure).
 */
export function splitWords(text: string): { ok: true; words: string[] } | { ok: false; reason: string } {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word = `${word ?? ''}${c}`;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\'))
        word = `${word ?? ''}${text[++i] as string}`;
      else word = `${word ?? ''}${c}`;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') {
      if (i + 1 >= text.length) return { ok: false, reason: 'ends with a lone backslash' };
      word = `${word ?? ''}${text[++i] as string}`;
    } else {
      word = `${word ?? ''}${c}`;
    }
  }
  if (quote) return { ok: false, reason: `has an unclosed ${quote} quote` };
  if (word !== null) words.push(word);
  if (words.length === 0) return { ok: false, reason: 'is empty' };
  return { ok: true, words };
}
