import type { Problem } from '../board/board.js';
import { lineOf, parseYaml } from '../board/yaml.js';

/**
 * The line of a front-matter key in a Markdown file, for `file:line` messages: the YAML
 * between the opening `---` and the closing `---` starts on line 2 of the file.
 */
export function frontMatterLocator(text: string): (pointer: string) => number {
  const lines = text.split('\n');
  const close = lines.findIndex((line, i) => i > 0 && /^---\s*$/.test(line));
  const parsed = parseYaml(lines.slice(1, close < 0 ? undefined : close).join('\n'));
  return (pointer) => (parsed.ok ? lineOf(parsed.doc, parsed.lines, pointer) + 1 : 1);
}

/** The first line of the body, after the front-matter's closing `---` (1 when there is no front-matter). */
export function bodyStartLine(text: string): number {
  if (!text.startsWith('---')) return 1;
  const close = text.split('\n').findIndex((line, i) => i > 0 && /^---\s*$/.test(line));
  return close < 0 ? 1 : close + 2;
}

/**
 * Turn an error message of the form `file: …` or `file:line: …` (how every InputError of the
 * supervisor starts) into a problem, keeping its line or using `line` when it has none.
 */
export function problemFrom(message: string, file: string, line?: number): Problem {
  const prefix = `${file}:`;
  if (message.startsWith(prefix)) {
    const match = /^(\d+)?:? /.exec(message.slice(prefix.length));
    if (match) {
      const at = match[1] ? Number(match[1]) : line;
      return { file, ...(at !== undefined && { line: at }), message: message.slice(prefix.length + match[0].length) };
    }
  }
  return { file, ...(line !== undefined && { line }), message };
}
