import { Lexer, type LineCounter, type YAMLError } from 'yaml';

/** A YAML syntax problem in plain words: the line it starts on, what is wrong, and what to do. */
export interface YamlProblem {
  line: number;
  message: string;
  /** What to do, when more is known than "fix the syntax". */
  fix?: string;
}

// The lexer's markers for structure it found; they are not characters of the text.
const MARKERS = new Set(['\u0002', '\u0018', '\u001f', '\uFEFF']);

/**
 * A yaml library error as a person can act on it (pure): the line where the trouble starts (an
 * unclosed quote is reported by the library at the end of the file, where it gave up looking),
 * and the library's wording replaced, for the mistakes people make, by what to do.
 */
export function yamlProblem(error: YAMLError, text: string, lines: LineCounter): YamlProblem {
  const at = lines.linePos(error.pos[0]).line;
  const libraryWords = error.message.split('\n')[0] ?? 'YAML syntax error';
  switch (error.code) {
    case 'MISSING_CHAR': {
      const quote = /closing (["'])/.exec(libraryWords)?.[1];
      if (!quote) break;
      const start = openingQuote(text, error.pos[0], quote);
      const line = start === undefined ? at : lines.linePos(start).line;
      return {
        line,
        message: `a ${quote === '"' ? 'double' : 'single'} quote opened here is never closed`,
        fix: `Close it with ${quote} at the end of the value, or remove it.`,
      };
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
      // A `- item` where a key was expected: a list item out of line with the items above it.
      if (/^\s*-(\s|$)/.test(lineText(text, at))) return misplacedItem(text, at);
      return (
        misindentedKey(text, at) ?? {
          line: at,
          message: 'a value holds ": " (a colon and a space), which YAML reads as another key',
          fix: 'Quote the value, e.g. title: "Fix: the login page".',
        }
      );
    case 'MULTILINE_IMPLICIT_KEY':
      return (
        misindentedKey(text, at) ?? {
          line: at,
          message: 'a key runs over more than one line (often a value with ": " in it, or a missing colon)',
          fix: 'Quote the value, or put the colon after the key.',
        }
      );
    case 'BAD_INDENT': {
      const found = misindentedKey(text, at - 1);
      if (found) return found;
      break;
    }
    case 'DUPLICATE_KEY':
      return { line: at, message: 'this key is given twice in the same mapping', fix: 'Keep one of them.' };
    case 'TAB_AS_INDENT':
      return { line: at, message: 'a tab is used for indentation', fix: 'Indent with spaces.' };
  }
  // yaml reports nesting deeper than its parser's stack as a stack overflow; say what it means.
  if (/call stack/i.test(libraryWords))
    return { line: at, message: 'nests too deeply to read (thousands of levels of [ or {)' };
  return { line: at, message: libraryWords.replace(/\.$/, '') };
}

function lineText(text: string, line: number): string {
  return text.split('\n', line)[line - 1] ?? '';
}

const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;

// A list item indented otherwise than the item above it is read as a key outside that list.
function misplacedItem(text: string, at: number): YamlProblem {
  const lines = text.split('\n', at);
  const here = indentOf(lines[at - 1] ?? '');
  const above = lines
    .slice(0, at - 1)
    .reverse()
    .find((line) => /^\s*-(\s|$)/.test(line));
  const want = above === undefined ? undefined : indentOf(above);
  const spaces = (n: number) => `${n} space${n === 1 ? '' : 's'}`;
  return {
    line: at,
    message:
      want === undefined || want === here
        ? 'this list item is not indented under the key it belongs to, so YAML reads it as outside the list'
        : `this list item is indented ${spaces(here)} and the item above it ${spaces(want)}, ` +
          'so YAML reads it as outside that list',
    fix:
      want === undefined || want === here
        ? 'Indent every item of a list alike, under its key.'
        : `Indent it like the items above: ${spaces(want)} before the "-".`,
  };
}

const KEY_LINE = /^( *)([\w.-]+):( |$)/;

// A `key: value` line indented otherwise than the key above it (e.g. under supervisor:): YAML reads
// one more deeply indented as part of the value above (a value holding ": "), one less deeply
// as a mapping out of line. Named as what it is, with the indent to use.
function misindentedKey(text: string, at: number): YamlProblem | undefined {
  const lines = text.split('\n');
  const above = KEY_LINE.exec(lines[at - 1] ?? '');
  const nextAt = lines.findIndex((line, i) => i >= at && line.trim() !== '' && !line.trimStart().startsWith('#'));
  const next = nextAt < 0 ? undefined : KEY_LINE.exec(lines[nextAt] ?? '');
  if (!above || !next) return undefined;
  const want = above[1]?.length ?? 0;
  const here = next[1]?.length ?? 0;
  if (here === want) return undefined;
  const spaces = (n: number) => `${n} space${n === 1 ? '' : 's'}`;
  return {
    line: nextAt + 1,
    message:
      `${next[2]} is indented ${spaces(here)} and ${above[2]} above it ${spaces(want)}, so YAML reads it as ` +
      (here > want ? `part of ${above[2]}'s value` : 'out of line with the keys above'),
    fix: `Indent it like ${above[2]}: ${spaces(want)}.`,
  };
}

// Where the quoted value that is still open at `end` starts: the last quoted token that runs up to it.
function openingQuote(text: string, end: number, quote: string): number | undefined {
  let offset = 0;
  let found: number | undefined;
  for (const token of new Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    if (offset > end) break;
    if (token.startsWith(quote) && offset + token.length >= end) found = offset;
    offset += token.length;
  }
  return found;
}
