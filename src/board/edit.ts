import { isDeepStrictEqual } from 'node:util';
import {
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  stringify,
  type Document,
  type Node,
  type Pair,
  type YAMLSeq,
} from 'yaml';
import type { BoardState } from './read-board.js';
import { parseYaml, type ParsedYaml } from './yaml.js';

/** The fields a Manager answer may change. */
export type BoardChange = Partial<Pick<BoardState, 'current' | 'tasks' | 'phase' | 'sub_phase'>>;

/**
 * Return YAML `text` with only the given top-level fields changed (kanban.yaml, or a task's front-matter). Values are
 * spliced into the original text so comments, key order, unknown keys, quoting and indentation
 * everywhere else stay byte-for-byte as the person wrote them; if the board's shape
 * makes splicing unsafe, the yaml Document is edited and re-rendered instead.
 */
export function editYamlFields(text: string, change: Record<string, unknown>): string {
  return editYamlDocument(text, parseDocument(text, { logLevel: 'silent' }), change).text;
}

/**
 * `editYamlFields` for a text already parsed (`doc`, left unchanged). A splice is checked by
 * parsing its result, and that parse is returned too: on a board of thousands of tasks each
 * parse is the bulk of a step, so a caller that has them need not parse again.
 */
export function editYamlDocument(
  text: string,
  doc: Document,
  change: Record<string, unknown>,
): { text: string; parsed?: ParsedYaml & { ok: true } } {
  const expected = { ...(doc.toJS() as Record<string, unknown>), ...change };
  const spliced = trySplice(text, doc, change);
  if (spliced !== null) {
    const parsed = parseYaml(spliced);
    if (parsed.ok && isDeepStrictEqual(parsed.value, expected)) return { text: spliced, parsed };
  }
  // the yaml library never prints (its warnings reached the console)
  const fresh = parseDocument(text, { logLevel: 'silent' });
  for (const [key, value] of Object.entries(change)) fresh.set(key, value);
  return { text: String(fresh) };
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function trySplice(text: string, doc: Document, change: Record<string, unknown>): string | null {
  if (!isMap(doc.contents) || doc.contents.flow) return null;
  const edits: Edit[] = [];
  const appended: string[] = [];
  for (const [key, value] of Object.entries(change)) {
    const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key) as
      Pair<Node, Node | null> | undefined;
    if (!pair) {
      appended.push(`${key}: ${inline(value)}`);
      continue;
    }
    if (isDeepStrictEqual(pair.value && 'toJSON' in pair.value ? (pair.value as Node).toJSON() : null, value)) continue;
    const edit =
      pair.value && isSeq(pair.value) && Array.isArray(value)
        ? seqEdit(text, pair.value, value)
        : scalarEdit(text, pair, value);
    if (!edit) return null;
    edits.push(edit);
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  if (appended.length) out = `${out}${out.endsWith('\n') || out === '' ? '' : '\n'}${appended.join('\n')}\n`;
  return out;
}

/** A scalar (or any non-sequence) value, rendered on the key's own line. */
function scalarEdit(text: string, pair: Pair<Node, Node | null>, value: unknown): Edit | null {
  const node = pair.value;
  if (node?.range) {
    if (!isScalar(node) && !(isSeq(node) && node.flow)) return null;
    return { start: node.range[0], end: node.range[1], text: inline(value) };
  }
  // `key:` with nothing after it: insert after the colon.
  const keyEnd = (pair.key as Node).range?.[1];
  if (keyEnd === undefined) return null;
  const colon = text.indexOf(':', keyEnd);
  if (colon < 0) return null;
  return { start: colon + 1, end: colon + 1, text: ` ${inline(value)}` };
}

/**
 * A block sequence rewritten item by item. An item that stays keeps its original
 * text, comments included; new items take the first item's indentation.
 */
function seqEdit(text: string, seq: YAMLSeq, values: unknown[]): Edit | null {
  if (!seq.range) return null;
  if (seq.flow) return { start: seq.range[0], end: seq.range[1], text: inline(values) };
  const start = seq.range[0];
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = text.slice(lineStart, start);
  if (indent.trim() !== '') return null;
  const chunks = new Map<string, string[]>();
  let cursor = start;
  let end = start;
  for (const item of seq.items as Node[]) {
    if (!isScalar(item) || !item.range) return null;
    const lineEnd = text.indexOf('\n', item.range[1]);
    const itemEnd = lineEnd < 0 ? text.length : lineEnd;
    const chunk = text.slice(cursor, itemEnd).replace(/^\n?[ \t]*/, '');
    const list = chunks.get(String(item.value)) ?? [];
    list.push(chunk);
    chunks.set(String(item.value), list);
    cursor = itemEnd;
    end = itemEnd;
  }
  if (values.length === 0) return { start, end, text: '[]' };
  const lines = values.map((value) => chunks.get(String(value))?.shift() ?? `- ${inline(value)}`);
  return { start, end, text: lines.join(`\n${indent}`) };
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
