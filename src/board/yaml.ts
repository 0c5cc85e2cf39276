import { isCollection, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { yamlProblem } from './yaml-problems.js';

/** A parsed YAML text, or the first syntax problem with its line and what to do about it. */
export type ParsedYaml =
  | { ok: true; doc: Document; value: unknown; lines: LineCounter }
  | { ok: false; line: number; message: string; fix?: string };

// An alias bomb (`a: &a [*a, *a, ...]` nested) expands exponentially on toJS();
// yaml refuses past maxAliasCount, which keeps a hostile board from eating memory.
const MAX_ALIAS_COUNT = 100;

/**
 * Parse YAML safely: syntax errors and alias bombs become problems, never exceptions, and the
 * library never prints (its warnings went to the console): what it would warn about is a problem.
 */
export function parseYaml(text: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
    logLevel: 'silent',
  });
  const first = doc.errors[0];
  if (first) return { ok: false, ...yamlProblem(first, text, lines) };
  const key = collectionKey(doc);
  if (key !== undefined) return { ok: false, ...placeholderProblem(text, lines.linePos(key).line) };
  try {
    return { ok: true, doc, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), lines };
  } catch (error) {
    return { ok: false, line: 1, message: `cannot be read as YAML: ${(error as Error).message}` };
  }
}

// Where a mapping or list is used as a key: an unquoted `{{placeholder}}` is a mapping inside a mapping.
function collectionKey(doc: Document): number | undefined {
  let at: number | undefined;
  visit(doc, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return undefined;
      at = pair.key.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return at;
}

function placeholderProblem(text: string, line: number): { line: number; message: string; fix: string } {
  const placeholder = /\{\{[^{}]*\}\}/.exec(text.split('\n')[line - 1] ?? '')?.[0];
  if (!placeholder)
    return {
      line,
      message: 'a mapping ({…}) is used as a key',
      fix: 'Quote the text if it is not meant as YAML, e.g. "{…}".',
    };
  return {
    line,
    message: `${placeholder} is not in quotes, so YAML reads it as a mapping, not as text`,
    fix: `Quote it: "${placeholder}".`,
  };
}

/** The 1-based line where the node at a JSON-pointer-like path starts (the nearest existing parent otherwise). */
export function lineOf(doc: Document, lines: LineCounter, pointer: string): number {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => (/^\d+$/.test(k) ? Number(k) : k));
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = doc.getIn(keys.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
  }
  return 1;
}
