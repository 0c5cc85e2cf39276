import { closeSync } from 'node:fs';
import path from 'node:path';
import { isAttemptOf } from '../events/fold.js';
import { attemptEnd, type AttemptEnd, type AttemptRecord } from '../events/records.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import type { ReadOf } from '../events/parse.js';
import { EventTail } from '../events/follow-events.js';
import { AgentText, type Output } from './copy-stream.js';
import { stdoutSink, transcriptCli } from './transcript.js';
import type { OutputPlace } from './places.js';
import { attemptFiles, copyNew, openOutput } from './print.js';

/** What following needs from outside: where to write each stream, whether the run still goes, and the clock. */
export interface FollowIO {
  /** Where the agent's stdout goes; left out (with `--stderr`), it is not read. */
  stdout?: Output;
  stderr?: Output;
  /** Whether the supervisor running the attempt is still alive. */
  alive: () => boolean;
  sleep: (ms: number) => Promise<void>;
  pollMs?: number;
  /** Its stdout as the agent wrote it, not as its known CLI's transcript. */
  raw?: boolean;
}

/**
 * Tail a running attempt: its stdout (a known CLI's as its transcript, unless `raw`) to our stdout and its stderr to
 * our stderr as the agent writes them, until the event log records the attempt's end (returned, as the fold has it), or
 * its supervisor is gone without recording one (undefined). `from` is the size of the event log when the attempt
 * was found unfinished: its end can only come after. Each file is held open once found, so the
 * rename of a failed attempt's files (`.failed.out`) loses nothing.
 */
export async function followAttempt(
  boardDir: string,
  a: AttemptRecord,
  place: OutputPlace,
  from: number,
  io: FollowIO,
  capabilityEvents: readonly CapabilityEvents[],
): Promise<AttemptEnd | undefined> {
  const files = attemptFiles(a, place);
  const cli = transcriptCli(a, io.raw === true);
  const streams = (['stdout', 'stderr'] as const).flatMap((which) => {
    const out = io[which];
    return out
      ? [
          {
            file: files[which] as string,
            fd: undefined as number | undefined,
            out,
            text: which === 'stdout' ? stdoutSink(out, cli) : new AgentText(out),
          },
        ]
      : [];
  });
  const events = new EventTail(path.join(boardDir, place.events), from, capabilityEvents);
  try {
    for (;;) {
      // Alive first: once the supervisor is gone, everything it wrote is in the log.
      const alive = io.alive();
      const ended = events.find(
        (event): event is ReadOf<'attempt_finished'> => event.type === 'attempt_finished' && isAttemptOf(a, event),
      );
      for (const stream of streams) {
        stream.fd ??= openOutput(path.join(boardDir, stream.file));
        // A file the agent began after the last look was renamed when the attempt failed.
        if (stream.fd === undefined && ended)
          stream.fd = openOutput(path.join(boardDir, stream.file.replace(/\.(out|err)$/, '.failed.$1')));
        if (stream.fd !== undefined) await copyNew(stream.fd, stream.text);
      }
      if (ended || !alive || streams.some((stream) => !stream.out.open)) {
        for (const stream of streams) await stream.text.end(false);
        return ended && attemptEnd(ended);
      }
      await io.sleep(io.pollMs ?? 250);
    }
  } finally {
    events.close();
    for (const stream of streams) if (stream.fd !== undefined) closeSync(stream.fd);
  }
}
