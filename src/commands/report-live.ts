import { createHash } from 'node:crypto';
import { closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { readBoard } from '../board/read-board.js';
import { isInside, normalPath, resolveInBoard } from '../board/paths.js';
import { InputError } from '../errors.js';
import { EVENTS, rotatedFile } from '../event-types.js';
import { openRegular } from '../fs/safe-read.js';
import { procTarget } from '../fs/real-dir.js';
import { renderReport } from '../report/html.js';
import { serveLive, type LiveSource } from '../report/live-server.js';
import { readPageParts } from './report.js';
import { CAPABILITY_EVENTS } from '../run/capability-list.js';
import { boardTasks, lockStatus } from './status.js';

/** What `report --watch` serves. */
export interface LiveOptions {
  file: string;
  /** `--watch`, `--out`: checked to be given as they can be. */
  watch?: unknown;
  out?: unknown;
  /** The port asked for (`--port`); 0 or none: a free one. */
  port?: unknown;
  runs?: number;
  all?: boolean;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
// The attempts' output files: the only files of the state folder the page links to.
const OUTPUTS = '.kanban-supervisor/runs/';

/**
 * `kanban-supervisor report --watch`: serve the page on 127.0.0.1 while a run goes on, made afresh
 * from the board and its event log whenever they change; the open page reloads itself within about
 * a second of a new event. Reads only, takes no lock. Runs until Ctrl-C, SIGTERM or SIGHUP, then
 * closes every connection and returns 0.
 */
export async function serveReport(
  options: LiveOptions,
  io: { stdout: NodeJS.WritableStream; signals: NodeJS.EventEmitter } = { stdout: process.stdout, signals: process },
): Promise<number> {
  if (options.watch !== true)
    throw new InputError('--port is the port of the live page: add --watch, or leave --port out to write the page.');
  if (options.out !== undefined)
    throw new InputError('--out writes the page to a file; --watch serves it and writes nothing: pass one of them.');
  const port = portOf(options.port);
  const board = readBoard(path.resolve(options.file)); // a board that cannot be read is refused before serving
  const server = await serveLive(liveSource(board.file, board.dir, options), port);
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  for (const signal of SIGNALS) io.signals.on(signal, stop);
  io.stdout.write(
    `Serving the board and its runs live on ${server.url} (127.0.0.1 only). Open it in a browser: ` +
      'it follows the run as it goes. Ctrl-C stops serving, not the run.\n',
  );
  const signal = await stopped;
  for (const s of SIGNALS) io.signals.off(s, stop);
  await server.close();
  io.stdout.write(`Stopped serving (${signal}).\n`);
  return 0;
}

function portOf(port: unknown): number {
  if (port === undefined) return 0;
  const n = Number(port);
  if (!/^\d+$/.test(String(port)) || n > 65535)
    throw new InputError(
      `--port must be a port number from 1 to 65535, or 0 for a free one (got ${JSON.stringify(port)}).`,
    );
  return n;
}

// The page and the files it links, read afresh at each request.
function liveSource(file: string, dir: string, options: LiveOptions): LiveSource {
  const scope = { ...(options.runs !== undefined && { runs: options.runs }), ...(options.all && { all: true }) };
  return {
    version: () => {
      const stats = [EVENTS, rotatedFile(EVENTS)].map((name) => statOf(path.join(dir, name)));
      const seen = [...stats, statOf(file), lockStatus(file).state].join('|');
      return createHash('sha256').update(seen).digest('hex').slice(0, 20);
    },
    page: (version, link) => {
      const parts = readPageParts(file, scope);
      const context = {
        file,
        outDir: dir,
        generated: new Date(),
        ...parts,
        link,
        live: { version },
        capabilityEvents: CAPABILITY_EVENTS,
      };
      return renderReport(parts.runs, context);
    },
    open: (relative) => openLinked(file, dir, relative),
  };
}

function statOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return '-';
  }
}

// A task of the board (its work log) or an attempt's output file, opened without blocking, and
// only if the open file is really inside the board folder (no link led elsewhere); else undefined.
function openLinked(file: string, dir: string, relative: string): number | undefined {
  const wanted = normalPath(relative);
  const output = wanted.startsWith(OUTPUTS);
  if (!output && !boardTasks(readBoard(file)).some((task) => normalPath(task) === wanted)) return undefined;
  const where = resolveInBoard(dir, wanted);
  if (!where.ok) return undefined;
  try {
    const opened = openRegular(where.absolute, wanted, { follow: !output });
    if (!opened) return undefined;
    const real = procTarget(opened.fd);
    if (real === undefined || isInside(dir, real)) return opened.fd;
    closeSync(opened.fd);
  } catch {
    // not readable, or not a regular file: not served
  }
  return undefined;
}
