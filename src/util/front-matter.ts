import { createRequire } from 'node:module';
import type matterType from 'gray-matter';
import { parseYaml } from '../board/yaml.js';

// gray-matter and js-yaml under it are some forty modules; a run on a finished board, and
// every command that reads no Markdown, never loads them.
let matter: typeof matterType | undefined;
const loadMatter = (): typeof matterType => (matter ??= createRequire(import.meta.url)('gray-matter') as typeof matterType);

/** A Markdown file's YAML front-matter and body, or why it cannot be read. */
export type FrontMatter = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; line: number; message: string };

class FrontMatterProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const refuse = (language: string) => () => {
  throw new FrontMatterProblem(`front-matter in "${language}" is not accepted; only YAML front-matter (---) is`, 1);
};

// gray-matter evaluates `---js` front-matter as code with its default engines.
// Every engine but YAML is replaced by one that refuses, and YAML goes through the
// same alias-bomb-safe parser as kanban.yaml.
const ENGINES = {
  yaml: (text: string): object => {
    const parsed = parseYaml(text);
    if (!parsed.ok) throw new FrontMatterProblem(parsed.message, parsed.line + 1);
    return (parsed.value ?? {}) as object;
  },
  js: refuse('js'),
  javascript: refuse('javascript'),
  coffee: refuse('coffee'),
  json: refuse('json'),
  toml: refuse('toml'),
};

/** Split a Markdown file into front-matter and body; never evaluates code, never throws. */
export function parseFrontMatter(text: string): FrontMatter {
  // Read the language as gray-matter does (after a BOM, the rest of the opening line, trimmed),
  // so no spelling of it (`--- JS`, `---javascript `) reaches an engine; the ENGINES above
  // refuse code in any case. `----` opens no front-matter at all.
  const language = /^\uFEFF?---(?!-)([^\r\n]*)/.exec(text)?.[1]?.trim();
  if (language && !['yaml', 'yml'].includes(language.toLowerCase())) {
    const shown = language.length > 40 ? `${language.slice(0, 39)}…` : language;
    return { ok: false, line: 1, message: `front-matter in "${shown}" is not accepted; only YAML front-matter (---) is` };
  }
  try {
    // An empty options object also turns off gray-matter's module-level cache.
    const file = loadMatter()(text, { engines: ENGINES, language: 'yaml' });
    const data = file.data as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return { ok: false, line: 2, message: 'front-matter must be a YAML mapping (key: value lines)' };
    }
    return { ok: true, data: data as Record<string, unknown>, body: file.content };
  } catch (error) {
    if (error instanceof FrontMatterProblem) return { ok: false, line: error.line, message: error.message };
    return { ok: false, line: 1, message: `front-matter cannot be read: ${(error as Error).message.split('\n')[0]}` };
  }
}
