import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, Scalar, stringify, visit, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { parseYaml } from './yaml.js';

/** A splice that only replaced values on lines of their own, and how to move the parse along. */
export interface LineSplice {
  text: string;
  /** Make `doc` the parse of `text`: shift its ranges and set the new values. Call once the text is written. */
  moveDoc: () => void;
}

interface ScalarEdit {
  node: Scalar;
  start: number;
  end: number;
  token: string;
  value: string | null;
}

/**
 * The usual step changes `current` (and maybe `phase` / `sub_phase`) and gives back the task
 * list as it was. Then each new value replaces one single-line scalar of a top-level key at
 * column 0, and parsing that one line, comment and all, shows what the whole text would: a
 * node without anchor or tag, on a line of its own, is read the same whatever surrounds it.
 * On a board of thousands of tasks this saves parsing the whole text again every step.
 *
 * `values` are the current values of the fields (the board as parsed into `doc`). Returns
 * null when any field needs more than that; the caller then edits the general way.
 */
export function spliceScalarLines(text: string, doc: Document, values: Record<string, unknown>, change: Record<string, unknown>): LineSplice | null {
  const map = doc.contents;
  if (!isMap(map) || map.flow) return null;
  const edits: ScalarEdit[] = [];
  for (const [key, value] of Object.entries(change)) {
    if (Object.hasOwn(values, key) && isDeepStrictEqual(values[key], value)) continue;
    if (value !== null && (typeof value !== 'string' || /[\r\n]/.test(value))) return null;
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node | null> | undefined;
    const edit = pair && scalarLineEdit(text, pair, key, value);
    if (!edit) return null;
    edits.push(edit);
  }
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const edit of edits) {
    out += text.slice(cursor, edit.start) + edit.token;
    cursor = edit.end;
  }
  out += text.slice(cursor);
  return { text: out, moveDoc: () => moveDoc(doc, edits) };
}

function scalarLineEdit(text: string, pair: Pair<Node, Node | null>, key: string, value: string | null): ScalarEdit | null {
  const node = pair.value;
  const keyStart = (pair.key as Node).range?.[0];
  if (!isScalar(node) || !node.range || node.anchor || node.tag || keyStart === undefined) return null;
  if (node.type !== Scalar.PLAIN && node.type !== Scalar.QUOTE_DOUBLE && node.type !== Scalar.QUOTE_SINGLE) return null;
  const [start, end] = node.range;
  if (keyStart !== 0 && text[keyStart - 1] !== '\n') return null;
  if (text.slice(keyStart, end).includes('\n')) return null;
  const token = stringify(value, { lineWidth: 0 }).trimEnd();
  if (token.includes('\n')) return null;
  const lineEnd = text.indexOf('\n', end);
  const line = text.slice(keyStart, start) + token + text.slice(end, lineEnd < 0 ? text.length : lineEnd);
  const parsed = parseYaml(line);
  if (!parsed.ok || !isDeepStrictEqual(parsed.value, { [key]: value })) return null;
  return { node, start, end, token, value };
}

// Positions after an edit move by the length the edits before them added or removed. The
// top-level keys and values, which the next splice reads, move at once; the thousands of nodes
// inside them (task list items) only when something needs them: see settleDoc.
const pending = new WeakMap<Document, ScalarEdit[][]>();

function moveDoc(doc: Document, edits: ScalarEdit[]): void {
  const map = doc.contents as YAMLMap<Node, Node | null>;
  for (const pair of map.items) {
    shiftNode(pair.key, [edits]);
    if (pair.value) shiftNode(pair.value, [edits]);
  }
  shiftNode(map, [edits]);
  if (doc.range) doc.range = shiftRange(doc.range, [edits]);
  pending.set(doc, [...(pending.get(doc) ?? []), edits]);
  for (const edit of edits) {
    edit.node.value = edit.value;
    edit.node.source = edit.value ?? 'null';
    edit.node.type = edit.token.startsWith('"') ? Scalar.QUOTE_DOUBLE : edit.token.startsWith("'") ? Scalar.QUOTE_SINGLE : Scalar.PLAIN;
  }
}

/** Bring every node of a document moved by spliceScalarLines to its text (before using nested ranges). Returns it. */
export function settleDoc(doc: Document): Document {
  const batches = pending.get(doc);
  if (!batches) return doc;
  pending.delete(doc);
  const map = doc.contents as YAMLMap<Node, Node | null>;
  const moved = new Set<unknown>([map, ...map.items.flatMap((pair) => [pair.key, pair.value])]);
  visit(doc, {
    Node(_, node) {
      if (!moved.has(node)) shiftNode(node, batches);
    },
  });
  return doc;
}

function shiftNode(node: unknown, batches: ScalarEdit[][]): void {
  const withRange = node as { range?: [number, number, number] | null };
  if (withRange?.range) withRange.range = shiftRange(withRange.range, batches);
}

function shiftRange(range: [number, number, number], batches: ScalarEdit[][]): [number, number, number] {
  return range.map((pos) => {
    let moved = pos;
    for (const edits of batches) {
      let delta = 0;
      for (const edit of edits) if (edit.end <= moved) delta += edit.token.length - (edit.end - edit.start);
      moved += delta;
    }
    return moved;
  }) as [number, number, number];
}
