import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Line } from '../../src/events/line.js';
import { fieldPeeker, parseEvent, parseEvents } from '../../src/events/parse.js';
import { eventTable } from '../../src/events/capability-events.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { BackwardLines } from '../../src/events/read-backwards.js';
import { NewestFirst, withStore } from '../../src/events/event-files.js';
import { tempDir } from '../helpers.js';

// The capabilities' event types are read as each one says.
const CHECKS = eventTable(CAPABILITY_EVENTS).checks;

/** What the reader must give: the file split on LF, a CR before it dropped, empty and over-long lines left out. */
function reference(bytes: Buffer, maxLineBytes = Infinity): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start <= bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    const body = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    if (body > start && end - start <= maxLineBytes) lines.push({ text: bytes.toString('utf8', start, body), start });
    if (nl < 0) break;
    start = nl + 1;
  }
  return lines;
}

function withFile<T>(content: Buffer | string, read: (fd: number, size: number) => T): T {
  const file = path.join(tempDir('ks-read-'), 'events.jsonl');
  const bytes = Buffer.from(content);
  writeFileSync(file, bytes);
  const fd = openSync(file, 'r');
  try {
    return read(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
}

function backwards(
  content: Buffer | string,
  options: ConstructorParameters<typeof BackwardLines>[2] = {},
): { lines: Line[]; reader: BackwardLines } {
  return withFile(content, (fd, size) => {
    const reader = new BackwardLines(fd, size, options);
    return { lines: [...reader], reader };
  });
}

describe('reading events.jsonl by lines', () => {
  it('gives the lines newest first, each with its byte offset, however the chunk edges fall', () => {
    const text = 'first line\nsecond\n\nthird, after an empty one\n';
    for (const chunkBytes of [1, 2, 3, 5, 7, 11, 64]) {
      const { lines, reader } = backwards(text, { chunkBytes });
      expect(lines).toEqual(reference(Buffer.from(text)).reverse());
      expect(reader.reachedStart).toBe(true);
    }
    expect(backwards(text).lines.map((l) => l.start)).toEqual([19, 11, 0]);
  });

  it('decodes a multi-byte character cut by a chunk edge whole', () => {
    const text = 'é€𝄞\n{"issue":"…½ 中文 🎉"}\nlast 𝄞 line\n';
    for (let chunkBytes = 1; chunkBytes <= 9; chunkBytes++) {
      expect(backwards(text, { chunkBytes }).lines.map((l) => l.text)).toEqual([
        'last 𝄞 line',
        '{"issue":"…½ 中文 🎉"}',
        'é€𝄞',
      ]);
    }
  });

  it('drops the CR of CRLF line ends', () => {
    expect(backwards('a\r\nb\r\n', { chunkBytes: 2 }).lines.map((l) => l.text)).toEqual(['b', 'a']);
  });

  it('gives nothing for an empty file, and the last line of a file with no final newline', () => {
    const empty = backwards('');
    expect(empty.lines).toEqual([]);
    expect(empty.reader.reachedStart).toBe(true);
    expect(backwards('one\ntwo', { chunkBytes: 3 }).lines).toEqual([
      { text: 'two', start: 4 },
      { text: 'one', start: 0 },
    ]);
  });

  it('stops at limitBytes from the end, dropping the line cut there, and says it did not reach the start', () => {
    const { lines, reader } = backwards('aaaa\nbbbb\ncccc\n', { limitBytes: 7, chunkBytes: 4 });
    expect(lines).toEqual([{ text: 'cccc', start: 10 }]);
    expect(reader.reachedStart).toBe(false);
    expect(reader.read).toBe(7);
  });

  it('reads only as far back as the caller iterates', () => {
    const text = `${'x'.repeat(100)}\n`.repeat(100);
    withFile(text, (fd, size) => {
      const reader = new BackwardLines(fd, size, { chunkBytes: 256 });
      for (const line of reader) if (line.start < size - 300) break;
      expect(reader.read).toBeLessThanOrEqual(512);
      expect(reader.reachedStart).toBe(false);
    });
  });

  it('skips a line longer than maxLineBytes without holding it', () => {
    const text = `ok 1\n${'\0'.repeat(5000)}\nok 2\n${'y'.repeat(300)}`;
    expect(backwards(text, { chunkBytes: 64, maxLineBytes: 256 }).lines.map((l) => l.text)).toEqual(['ok 2', 'ok 1']);
  });

  it('agrees with a plain split on any content and chunk size (fast-check)', () => {
    const piece = fc.constantFrom('a', 'é', '€', '𝄞', '\n', '\r\n', '\r', '{"x":1}', ' ');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 40 }),
        (pieces, chunkBytes, maxLineBytes) => {
          const bytes = Buffer.from(pieces.join(''));
          const expected = reference(bytes, maxLineBytes);
          expect(backwards(bytes, { chunkBytes, maxLineBytes }).lines).toEqual([...expected].reverse());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('reading the store: events.jsonl, then the rotated events.1.jsonl', () => {
  function store(newer: string, older?: string): string {
    const dir = tempDir('ks-store-');
    mkdirSync(path.join(dir, '.kanban-supervisor'));
    writeFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), newer);
    if (older !== undefined) writeFileSync(path.join(dir, '.kanban-supervisor/events.1.jsonl'), older);
    return dir;
  }
  const read = (dir: string, limitBytes?: number) =>
    withStore(dir, (files) => {
      const lines = new NewestFirst(files, { limitBytes, chunkBytes: 3 });
      return {
        texts: [...lines].map((l) => l.text),
        read: lines.read,
        bytes: lines.bytes,
        reachedStart: lines.reachedStart,
      };
    });

  it('gives the lines of both files newest first, and says it read them all', () => {
    expect(read(store('c\nd\n', 'a\nb\n'))).toEqual({
      texts: ['d', 'c', 'b', 'a'],
      read: 8,
      bytes: 8,
      reachedStart: true,
    });
    expect(read(store('c\nd\n'))).toEqual({ texts: ['d', 'c'], read: 4, bytes: 4, reachedStart: true });
  });

  it(
    'counts limitBytes across both files, and a limit spent ' +
      'at the end of the newer file has not reached the start',
    () => {
      expect(read(store('c\nd\n', 'aa\nbb\n'), 8)).toEqual({
        texts: ['d', 'c', 'bb'],
        read: 8,
        bytes: 10,
        reachedStart: false,
      });
      expect(read(store('c\nd\n', 'a\nb\n'), 4)).toEqual({ texts: ['d', 'c'], read: 4, bytes: 8, reachedStart: false });
    },
  );

  it('is no history when neither file is there', () => {
    expect(read(tempDir('ks-store-'))).toBeUndefined();
  });
});

describe('parsing event lines', () => {
  const event = {
    time: '2026-01-02T03:04:05.000Z',
    type: 'step_started',
    run: 'r1',
    step: 1,
    role: 'Implementor',
    task: 'tasks/a.md',
  };

  it('skips a line torn by a crash, and keeps an event the next run appended to it', () => {
    const whole = JSON.stringify(event);
    expect(parseEvent(whole.slice(0, 40), CHECKS)).toBeUndefined();
    expect(parseEvent(`${whole.slice(0, 40)}${whole}`, CHECKS)).toEqual(event);
    expect([
      ...parseEvents(
        [{ text: whole }, { text: '{"time":"2026-01-0' }, { text: 'garbage' }, { text: '[1,2]' }, { text: whole }],
        CHECKS,
      ),
    ]).toHaveLength(2);
  });

  it('keeps an unknown type as an unknown event, passes unknown fields through, and refuses objects that are not events', () => {
    const unknown = { time: event.time, type: 'unknown', run: 'r1', named: 'resumed' };
    expect(parseEvent(JSON.stringify({ ...event, type: 'resumed', resetAt: 'soon' }), CHECKS)).toEqual(unknown);
    expect(parseEvent(JSON.stringify({ ...event, resetAt: 'soon' }), CHECKS)).toMatchObject({
      type: 'step_started',
      resetAt: 'soon',
    });
    expect(parseEvent(JSON.stringify({ type: 'done', run: 'r1' }), CHECKS)).toBeUndefined();
    expect(parseEvent('null', CHECKS)).toBeUndefined();
  });

  it("checks each line against its type's fields: a field it needs missing or mistyped makes it unknown", () => {
    const named = { time: event.time, type: 'unknown', run: 'r1', named: 'step_started' };
    const { step: _step, ...noStep } = event;
    expect(parseEvent(JSON.stringify(noStep), CHECKS)).toEqual(named);
    expect(parseEvent(JSON.stringify({ ...event, step: '1' }), CHECKS)).toEqual(named);
    expect(parseEvent(JSON.stringify({ ...event, role: null }), CHECKS)).toEqual(named);
    // An optional field of another type is left out; the event is kept.
    expect(parseEvent(JSON.stringify({ ...event, trigger: 7 }), CHECKS)).toEqual(event);
    expect(parseEvent(JSON.stringify({ ...event, trigger: 'Reviewer' }), CHECKS)).toEqual({
      ...event,
      trigger: 'Reviewer',
    });
    const finished = { ...event, type: 'attempt_finished', attempt: 1, end: 'exited', durationMs: 5, valid: true };
    expect(parseEvent(JSON.stringify({ ...finished, usage: { costUsd: 'free' } }), CHECKS)).toEqual(finished);
    expect(parseEvent(JSON.stringify({ ...finished, usage: { costUsd: 0.5 } }), CHECKS)).toEqual({
      ...finished,
      usage: { costUsd: 0.5 },
    });
  });

  it('never throws, whatever a line holds (fast-check)', () => {
    const head = fc.record({
      time: fc.string(),
      type: fc.constantFrom('step_started', 'attempt_finished', 'done', 'x'),
      run: fc.string(),
    });
    fc.assert(
      fc.property(fc.jsonValue(), head, fc.dictionary(fc.string(), fc.jsonValue()), (value, h, fields) => {
        parseEvent(JSON.stringify(value), CHECKS);
        const event = parseEvent(JSON.stringify({ ...fields, ...h }), CHECKS);
        expect(event?.run).toBe(h.run);
      }),
    );
  });

  it('peeks at a top-level string field only when it can be sure', () => {
    const task = fieldPeeker('task');
    const peekString = (text: string, key: string) => (key === 'task' ? task : fieldPeeker(key))(text);
    const line = JSON.stringify({ ...event, issue: 'said "task":"tasks/b.md"' });
    expect(peekString(line, 'task')).toBe('tasks/a.md');
    expect(peekString(line, 'type')).toBe('step_started');
    expect(
      peekString(JSON.stringify({ time: 't', type: 'x', run: 'r', nested: { task: 'b' }, task: 'a' }), 'task'),
    ).toBeUndefined();
    expect(peekString(JSON.stringify({ ...event, task: 'tasks/"quoted".md' }), 'task')).toBeUndefined();
    expect(peekString(JSON.stringify({ ...event, task: null }), 'task')).toBeUndefined();
    expect(
      peekString(JSON.stringify({ time: 't', type: 'x', run: 'r', issue: 'an issue about "task": things' }), 'task'),
    ).toBeUndefined();
  });
});
