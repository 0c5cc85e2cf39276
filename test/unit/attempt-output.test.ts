import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findAttempt } from '../../src/attempt-output/find.js';
import { CAPABILITY_EVENTS } from '../../src/run/capability-list.js';
import { AgentText, Output } from '../../src/attempt-output/copy-stream.js';
import { RUN_PLACE } from '../../src/attempt-output/places.js';
import { attemptFiles } from '../../src/attempt-output/print.js';
import { tempDir } from '../helpers.js';

/**
 * A board folder whose events.jsonl holds `runs` runs of `steps` steps, a worker and a Manager attempt each,
 * with long multi-byte messages.
 */
function history(runs: number, steps: number): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, '.kanban-supervisor'));
  const lines: string[] = [];
  const wide = '漢字🙂'.repeat(400); // ~5 KiB a line: a 64 KiB chunk edge falls inside many lines and characters
  for (let r = 1; r <= runs; r++) {
    const run = `2026-01-0${r}T00-00-00-000Z-${100 + r}`;
    for (let step = 1; step <= steps; step++) {
      const task = `tasks/${String(step).padStart(3, '0')}.md`;
      lines.push(JSON.stringify({ type: 'step_started', run, step, role: 'Implementor', task, time: 't' }));
      for (const role of ['Implementor', 'Manager']) {
        const where = {
          run,
          step,
          role,
          task,
          attempt: 1,
          ...(role === 'Manager' && { done_task: task, board: 'kanban.yaml' }),
        };
        lines.push(JSON.stringify({ type: 'attempt_started', ...where, of: 4, time: 't', command: wide }));
        lines.push(
          JSON.stringify({
            type: 'attempt_finished',
            ...where,
            end: 'exited',
            durationMs: 1,
            valid: true,
            status: 'ok',
            stdoutFile: `out-${r}-${step}-${role}`,
            message: wide,
            time: 't',
          }),
        );
      }
    }
  }
  writeFileSync(path.join(dir, '.kanban-supervisor/events.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

describe('findAttempt', () => {
  it('finds the newest matching attempt across chunk edges, with its end, whatever the filter', () => {
    const dir = history(3, 12);
    const find = (filter: Parameters<typeof findAttempt>[2]) =>
      findAttempt(dir, RUN_PLACE.events, filter, CAPABILITY_EVENTS).attempt;
    expect(find({})).toMatchObject({
      run: '2026-01-03T00-00-00-000Z-103',
      step: 12,
      role: 'Manager',
      manager: true,
      finished: { stdoutFile: 'out-3-12-Manager' },
    });
    expect(find({ task: 'tasks/005.md' })).toMatchObject({
      run: '2026-01-03T00-00-00-000Z-103',
      step: 5,
      role: 'Implementor',
      finished: { stdoutFile: 'out-3-5-Implementor' },
    });
    expect(find({ task: 'tasks/005.md', role: 'manager' })).toMatchObject({ step: 5, role: 'Manager' });
    expect(find({ step: 2, role: 'Implementor', run: '2026-01-01T00-00-00-000Z-101' })).toMatchObject({
      run: '2026-01-01T00-00-00-000Z-101',
      step: 2,
      finished: { stdoutFile: 'out-1-2-Implementor' },
    });
    expect(find({ step: 13 })).toBeUndefined();
    expect(findAttempt(dir, RUN_PLACE.events, { step: 13 }, CAPABILITY_EVENTS).steps.sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
  });

  it('skips a line torn by a crash, and an attempt with no end is found unfinished', () => {
    const dir = history(1, 2);
    const where = {
      run: '2026-01-01T00-00-00-000Z-101',
      step: 3,
      role: 'Implementor',
      task: 'tasks/003.md',
      attempt: 1,
    };
    appendFileSync(
      path.join(dir, '.kanban-supervisor/events.jsonl'),
      `${JSON.stringify({ type: 'attempt_started', ...where, of: 4, time: 't' })}\n{"type":"attempt_fin`,
    );
    const found = findAttempt(dir, RUN_PLACE.events, {}, CAPABILITY_EVENTS).attempt;
    expect(found).toMatchObject({ step: 3, task: 'tasks/003.md' });
    expect(found?.finished).toBeUndefined();
  });

  it('reads on into the rotated events.1.jsonl, newest first, and sizes events.jsonl alone', () => {
    const dir = history(2, 3);
    const events = path.join(dir, '.kanban-supervisor/events.jsonl');
    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    const newer = `${lines.slice(-2).join('\n')}\n`;
    writeFileSync(path.join(dir, '.kanban-supervisor/events.1.jsonl'), `${lines.slice(0, -2).join('\n')}\n`);
    writeFileSync(events, newer);
    const search = findAttempt(dir, RUN_PLACE.events, { task: 'tasks/002.md' }, CAPABILITY_EVENTS);
    expect(search.attempt).toMatchObject({
      run: '2026-01-02T00-00-00-000Z-102',
      step: 2,
      role: 'Implementor',
      finished: { stdoutFile: 'out-2-2-Implementor' },
    });
    expect(search.size).toBe(Buffer.byteLength(newer));
    expect(
      findAttempt(
        dir,
        RUN_PLACE.events,
        { run: '2026-01-01T00-00-00-000Z-101', step: 1, role: 'Manager' },
        CAPABILITY_EVENTS,
      ).attempt,
    ).toMatchObject({ step: 1, manager: true });
    renameSync(events, `${events}.gone`);
    expect(findAttempt(dir, RUN_PLACE.events, {}, CAPABILITY_EVENTS)).toMatchObject({
      size: 0,
      attempt: { run: '2026-01-02T00-00-00-000Z-102', step: 3, role: 'Implementor' },
    });
  });

  it('reads an empty or missing log as no history', () => {
    const dir = tempDir();
    expect(findAttempt(dir, RUN_PLACE.events, {}, CAPABILITY_EVENTS)).toEqual({ steps: [], anyEvents: false, size: 0 });
  });
});

describe('attemptFiles', () => {
  it('reads only names inside the output folder from the log, which agents can write', () => {
    const base = {
      run: 'r-1',
      step: 2,
      role: 'Implementor',
      task: 'tasks/a.md',
      attempt: 1,
      of: 4,
      manager: false,
      start: 't',
    };
    const finished = (stdoutFile: string, stderrFile: string) => ({
      ...base,
      finished: { durationMs: 1, end: 'exited', valid: true, stdoutFile, stderrFile },
    });
    expect(
      attemptFiles(finished('.kanban-supervisor/runs/r-1/x.out', '.kanban-supervisor/runs/r-1/x.err'), RUN_PLACE),
    ).toEqual({ stdout: '.kanban-supervisor/runs/r-1/x.out', stderr: '.kanban-supervisor/runs/r-1/x.err' });
    expect(attemptFiles(finished('/etc/passwd', '.kanban-supervisor/runs/../../../etc/shadow'), RUN_PLACE)).toEqual({});
    // Not finished: the names its run is writing.
    expect(attemptFiles(base, RUN_PLACE)).toEqual({
      stdout: '.kanban-supervisor/runs/r-1/000000002-implementor-1-tasks_a.out',
      stderr: '.kanban-supervisor/runs/r-1/000000002-implementor-1-tasks_a.err',
    });
  });
});

describe('AgentText', () => {
  /** Everything `chunks` become on an output that is (or is not) a terminal. */
  async function through(chunks: Buffer[], terminal: boolean): Promise<Buffer> {
    const stream = new PassThrough();
    const got: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => got.push(chunk));
    const text = new AgentText(new Output(stream, terminal));
    for (const chunk of chunks) await text.push(chunk);
    await text.end(false);
    return Buffer.concat(got);
  }

  it('passes bytes through untouched to a pipe, and cleans escapes split between reads on a terminal', async () => {
    const bytes = Buffer.from('a\x1b[31mred\x1b[0m 漢\nb\x1b]0;title\x07\n');
    const cut = [bytes.subarray(0, 3), bytes.subarray(3, 14), bytes.subarray(14)]; // inside an escape and inside 漢
    expect(Buffer.compare(await through(cut, false), bytes)).toBe(0);
    expect((await through(cut, true)).toString()).toBe('ared 漢\nb\n');
  });

  it('on a terminal gives the same text however the stream is cut (property)', async () => {
    const bytes = Buffer.from('x\x1b[1;32mgreen\x1b[0m\r\nünï 🙂\x1b]52;c;AAAA\x07 end\n');
    const whole = (await through([bytes], true)).toString();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 6 }),
        async (cuts) => {
          const edges = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const chunks = edges.slice(1).map((end, i) => bytes.subarray(edges[i], end));
          expect((await through(chunks, true)).toString()).toBe(whole);
        },
      ),
    );
    expect(whole).toBe('xgreen\nünï 🙂 end\n');
  });
});
