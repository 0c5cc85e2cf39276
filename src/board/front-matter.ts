import { lineOf, parseYaml } from './yaml.js';

/** A Markdown file's YAML front-matter and body, or why it cannot be read. */
export type FrontMatter =
  | {
      ok: true;
      data: Record<string, unknown>;
      body: string;
      /** Whether the file has front-matter at all. */
      present: boolean;
      /** The front-matter's YAML text, as written (for edits that keep its comments). */
      raw: string;
      /** The file line of the key at a JSON pointer into `data`. */
      lineOf: (pointer: string) => number;
      /** The file line where `body` starts. */
      bodyLine: number;
    }
  | { ok: false; line: number; message: string; fix?: string };

/**
 * Split a Markdown file into YAML front-matter, parsed as kanban.yaml is (alias-bomb-safe), and
 * body; never evaluates code, never throws. The split is gray-matter's, which boards were read
 * with before: after a BOM, `---` opens (`----` does not), the rest of its line names the
 * language, the first line starting with `---` closes, the body starts on the next line.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const present = input.startsWith('---') && input[3] !== '-';
  let matter = '';
  let body = input;
  if (present) {
    let rest = input.slice(3);
    const opening = (rest.split('\n', 1)[0] ?? '').replace(/\r$/, '');
    const language = opening.trim();
    // Only YAML: front-matter in another language (`---js`) is code where other parsers run it.
    if (language && !['yaml', 'yml'].includes(language.toLowerCase())) {
      const shown = language.length > 40 ? `${language.slice(0, 39)}…` : language;
      return {
        ok: false,
        line: 1,
        message: `front-matter in "${shown}" is not accepted; only YAML front-matter (---) is`,
      };
    }
    if (language) rest = rest.slice(opening.length);
    const close = rest.indexOf('\n---');
    // Up to the line break before the closing ---, a Windows one (\r\n) whole.
    matter = close === -1 ? rest : rest.slice(0, close).replace(/\r$/, '');
    body = close === -1 ? '' : rest.slice(close + 4).replace(/^\r?\n?/, '');
  }
  let data: unknown = {};
  // Comments alone are no front-matter to parse. The text starts with the rest of the opening
  // --- line, so its lines are the file's.
  if (matter.replace(/^\s*#[^\n]+/gm, '').trim() !== '') {
    const parsed = parseYaml(matter);
    if (!parsed.ok) return parsed;
    data = parsed.value ?? {};
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, line: 2, message: 'front-matter must be a YAML mapping (key: value lines)' };
  }
  const raw = matter.replace(/^\r?\n/, '');
  return {
    ok: true,
    data: data as Record<string, unknown>,
    body,
    present,
    raw,
    lineOf: locator(raw),
    bodyLine: text.slice(0, text.length - body.length).split('\n').length,
  };
}

// The front-matter's YAML starts on line 2 of the file, after the opening `---`.
function locator(raw: string): (pointer: string) => number {
  let parsed: ReturnType<typeof parseYaml> | undefined;
  return (pointer) => {
    parsed ??= parseYaml(raw);
    return parsed.ok ? lineOf(parsed.doc, parsed.lines, pointer) + 1 : 1;
  };
}
