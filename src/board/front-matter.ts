import matter from 'gray-matter';
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

class FrontMatterProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly fix?: string,
  ) {
    super(message);
  }
}

const refuse = (language: string) => () => {
  throw new FrontMatterProblem(`front-matter in "${language}" is not accepted; only YAML front-matter (---) is`, 1);
};

// gray-matter evaluates `---js` front-matter as code with its default engines. Every engine
// but YAML refuses, and YAML goes through the same alias-bomb-safe parser as kanban.yaml.
const ENGINES = {
  yaml: (text: string): object => {
    // gray-matter cuts the YAML at the closing `---`, leaving a Windows line end's \r on the last value.
    const parsed = parseYaml(text.replace(/\r$/, ''));
    // The text starts with the rest of the opening --- line: its lines are the file's.
    if (!parsed.ok) throw new FrontMatterProblem(parsed.message, parsed.line, parsed.fix);
    return (parsed.value ?? {}) as object;
  },
  js: refuse('js'),
  javascript: refuse('javascript'),
  coffee: refuse('coffee'),
  json: refuse('json'),
  toml: refuse('toml'),
};

/**
 * Split a Markdown file into YAML front-matter and body with gray-matter, the one
 * front-matter parser of the project. Never evaluates code, never throws.
 */
export function parseFrontMatter(text: string): FrontMatter {
  // The language as gray-matter reads it (after a BOM, the rest of the opening line), so no
  // spelling of it (`--- JS`, `---javascript `) reaches an engine. `----` opens nothing.
  const language = /^\uFEFF?---(?!-)([^\r\n]*)/.exec(text)?.[1]?.trim();
  if (language && !['yaml', 'yml'].includes(language.toLowerCase())) {
    const shown = language.length > 40 ? `${language.slice(0, 39)}…` : language;
    return {
      ok: false,
      line: 1,
      message: `front-matter in "${shown}" is not accepted; only YAML front-matter (---) is`,
    };
  }
  // gray-matter fails on an empty file; it holds no front-matter and an empty body.
  if (text === '') return { ok: true, data: {}, body: '', present: false, raw: '', lineOf: () => 1, bodyLine: 1 };
  try {
    // Passing options also keeps gray-matter from caching the result in a module-level map.
    const file = matter(text, { engines: ENGINES, language: 'yaml' });
    const data = file.data as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return { ok: false, line: 2, message: 'front-matter must be a YAML mapping (key: value lines)' };
    }
    const raw = file.matter.replace(/^\r?\n/, '');
    const head = text.slice(0, Math.max(0, text.lastIndexOf(file.content)));
    return {
      ok: true,
      data: data as Record<string, unknown>,
      body: file.content,
      present: language !== undefined,
      raw,
      lineOf: locator(raw),
      bodyLine: head.split('\n').length,
    };
  } catch (error) {
    if (error instanceof FrontMatterProblem && !closed(text)) return neverClosed(error.line);
    if (error instanceof FrontMatterProblem)
      return {
        ok: false,
        line: error.line,
        message: error.message,
        ...(error.fix !== undefined && { fix: error.fix }),
      };
    return { ok: false, line: 1, message: `front-matter cannot be read: ${(error as Error).message.split('\n')[0]}` };
  }
}

// Whether the opening --- has a closing one, as gray-matter looks for it: a later line starting with ---.
function closed(text: string): boolean {
  return text.replace(/^\uFEFF/, '').indexOf('\n---', 3) !== -1;
}

// Without its closing ---, front-matter runs to the end of the file: YAML fails on the Markdown, at `line`.
function neverClosed(line: number): FrontMatter {
  return {
    ok: false,
    line,
    message: 'the front-matter opened by --- on line 1 is never closed, so the text below it is read as YAML',
    fix: 'Close it: add a line --- after its last key, before this line.',
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
