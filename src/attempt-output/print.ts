import { closeSync, fstatSync, readSync } from 'node:fs';
import { openRegular } from '../fs/safe-read.js';
import path from 'node:path';
import { attemptFileBase } from '../log/output-store.js';
import { formatDuration } from '../util/duration.js';
import { cleanLine } from '../util/clean-text.js';
import { localStamp } from '../util/time.js';
import type { AttemptRecord } from '../events/records.js';
import { AgentText, type Output, type TextSink } from './copy-stream.js';
import { stdoutSink, transcriptCli } from './transcript.js';
import type { OutputPlace } from './places.js';

const CHUNK = 64 * 1024;

/** Which of an attempt's streams to print: both under headings, or one alone as its bytes. */
export type Streams = 'both' | 'stdout' | 'stderr';

/** Whether an attempt with no end recorded is still running, or its supervisor stopped during it. */
export type Unfinished = 'running' | 'stopped';

/** The heading line of an attempt: who, what, which run, step and attempt, and how it ended (pure). */
export function describeAttempt(a: AttemptRecord, unfinished: Unfinished): string {
  const who = a.manager ? `${a.role} after ${a.task}` : `${a.role} on ${a.task}`;
  const where =
    `run ${a.run}, step ${a.step}, attempt ${a.attempt} of ${a.of}` +
    `${a.rerun ? ` (run again ${a.rerun} time(s) after a usage limit or a service error)` : ''}`;
  return cleanLine(`${who} · ${where} · started ${localStamp(a.start)} · ${describeEnd(a, unfinished)}`);
}

/** The files of an attempt's two streams, board-relative: as its end recorded them, else as its run is writing them. */
export function attemptFiles(a: AttemptRecord, place: OutputPlace): { stdout?: string; stderr?: string } {
  if (a.finished) {
    // The log is a file in the board folder, which agents can write: only a name in the output folder is read.
    const inside = (file: unknown): file is string =>
      typeof file === 'string' && file.startsWith(`${place.runs}/`) && !file.split('/').includes('..');
    const { stdoutFile, stderrFile } = a.finished;
    return { ...(inside(stdoutFile) && { stdout: stdoutFile }), ...(inside(stderrFile) && { stderr: stderrFile }) };
  }
  const base = `${place.runs}/${a.run}/${attemptFileBase(a.step, a.role, a.attempt, a.task, a.rerun)}`;
  return { stdout: `${base}.out`, stderr: `${base}.err` };
}

/**
 * Print an attempt's stdout and stderr as its files hold them now:
 * a known CLI's stdout as its transcript, unless `raw`.
 */
export async function printAttempt(
  boardDir: string,
  a: AttemptRecord,
  place: OutputPlace,
  streams: Streams,
  unfinished: Unfinished,
  out: Output,
  raw: boolean,
): Promise<void> {
  const files = attemptFiles(a, place);
  const cli = transcriptCli(a, raw);
  if (streams === 'both') await out.write(`${describeAttempt(a, unfinished)}\n`);
  for (const which of ['stdout', 'stderr'] as const) {
    if (streams !== 'both' && streams !== which) continue;
    const file = files[which];
    const fd = file === undefined ? undefined : openOutput(path.join(boardDir, file));
    try {
      if (streams === 'both')
        await out.write(
          `${heading(which, file, fd, a.finished !== undefined, which === 'stdout' ? shownAs(a.cli, raw) : '')}\n`,
        );
      if (fd !== undefined)
        await copy(fd, which === 'stdout' ? stdoutSink(out, cli) : new AgentText(out), streams === 'both');
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

/**
 * Open an attempt's output file for reading, never through a symlink;
 * undefined when it is not there (yet, or any more).
 */
export function openOutput(file: string): number | undefined {
  try {
    // follow: false — a symlink an agent left in place of its own output file is not read through.
    return openRegular(file, file, { follow: false })?.fd;
  } catch {
    return undefined;
  }
}

/**
 * Pass what `fd` holds from its current position on to `text`,
 * in chunks, never all of it in memory; returns the bytes read.
 */
export async function copyNew(fd: number, text: TextSink): Promise<number> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  let total = 0;
  for (let got = readSync(fd, chunk, 0, CHUNK, null); got > 0; got = readSync(fd, chunk, 0, CHUNK, null)) {
    await text.push(Buffer.from(chunk.subarray(0, got)));
    total += got;
  }
  return total;
}

async function copy(fd: number, text: TextSink, ownLine: boolean): Promise<void> {
  await copyNew(fd, text);
  await text.end(ownLine);
}

function heading(
  which: string,
  file: string | undefined,
  fd: number | undefined,
  finished: boolean,
  shown: string,
): string {
  if (file === undefined) return `==> ${which}: empty (the agent printed nothing there, so there is no file) <==`;
  // The name comes from events.jsonl, a file in the board folder: cleaned like any text shown.
  file = cleanLine(file);
  if (fd === undefined)
    return `==> ${which}: ${file} is not there ${
      finished
        ? '(removed by the retention limits: supervisor.keep_runs, keep_bytes, keep_attempts)'
        : '(nothing printed yet)'
    } <==`;
  return `==> ${which}: ${file} (${fstatSync(fd).size} bytes)${shown} <==`;
}

/** What a known CLI's stdout is shown as, and how to see the other ('' for any other command). */
export function shownAs(cli: string | undefined, raw: boolean): string {
  if (transcriptCli({ cli }, false) === undefined) return '';
  return raw ? ` · as written (without --raw: ${cli}'s text)` : ` · ${cli}'s text (--raw: as written)`;
}

/** How an attempt ended, from its attempt_finished event, or why it has no end (pure). */
export function describeEnd(a: Pick<AttemptRecord, 'finished'>, unfinished: Unfinished): string {
  const f = a.finished;
  if (!f)
    return unfinished === 'running'
      ? 'running now'
      : 'unfinished: its supervisor stopped during it (no end was recorded)';
  const how =
    f.end === 'exited' ? (f.signal ? `killed by ${String(f.signal)}` : `exit ${String(f.exitCode)}`) : String(f.end);
  const verdict = f.valid === true ? `replied ${String(f.status)}` : `no valid reply: ${String(f.issue ?? f.end)}`;
  return cleanLine(`${verdict} (${how}, ${formatDuration(Number(f.durationMs))})`);
}
