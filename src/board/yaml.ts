import { LineCounter, parseDocument, type Document } from 'yaml';

/** A parsed YAML text, or the first syntax problem with its line. */
export type ParsedYaml =
  | { ok: true; doc: Document; value: unknown; lines: LineCounter }
  | { ok: false; line: number; message: string };

// An alias bomb (`a: &a [*a, *a, ...]` nested) expands exponentially on toJS();
// yaml refuses past maxAliasCount, which keeps a hostile board from eating memory.
const MAX_ALIAS_COUNT = 100;

/** Parse YAML safely: syntax errors and alias bombs become problems, never exceptions. */
export function parseYaml(text: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line ?? lines.linePos(first.pos[0]).line;
    const message = first.message.split('\n')[0] ?? 'YAML syntax error';
    // yaml reports nesting deeper than its parser's stack as a stack overflow; say what it means.
    return { ok: false, line, message: /call stack/i.test(message) ? 'nests too deeply to read (thousands of levels of [ or {)' : message };
  }
  try {
    return { ok: true, doc, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), lines };
  } catch (error) {
    return { ok: false, line: 1, message: `cannot be read as YAML: ${(error as Error).message}` };
  }
}

/** The 1-based line where the node at a JSON-pointer-like path starts (the nearest existing parent otherwise). */
export function lineOf(doc: Document, lines: LineCounter, pointer: string): number {
  const keys = pointer.split('/').slice(1).map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = doc.getIn(keys.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
  }
  return 1;
}
