import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers.js';

const DIR = path.join(ROOT, 'test', 'fixtures', 'recorded');

/** One case of test/fixtures/recorded/recordings.json: what a real CLI printed, and when. */
export interface Recording {
  cli: 'claude' | 'codex' | 'gemini';
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The argv the CLI was run with (the preset's flags). */
  command: string[];
  /** When the CLI was started. */
  startedAt: Date;
  /** When it ended: the `now` a classifier is called with. */
  endedAt: Date;
  /** The TZ it ran in, if one was set. */
  timeZone: string;
  /** The fake server's options: mode, resetSeconds, … */
  server: { mode: string; resetSeconds?: number };
}

interface Entry {
  cli: Recording['cli'];
  stdout: string;
  stderr: string | null;
  exitCode: number | null;
  ms: number;
  recordedAt: string;
  env: Record<string, string>;
  argv: string[];
  server: Recording['server'];
}

/** Read a recorded file of test/fixtures/recorded. */
export function recordedFile(name: string): string {
  return readFileSync(path.join(DIR, name), 'utf8');
}

/** A case recorded by test/fixtures/recorded/record.mjs, by name. */
export function recording(name: string): Recording {
  const entries = JSON.parse(recordedFile('recordings.json')) as Record<string, Entry>;
  const entry = entries[name];
  if (!entry) throw new Error(`no recording named ${name} in recordings.json`);
  const startedAt = new Date(entry.recordedAt);
  return {
    cli: entry.cli,
    stdout: recordedFile(entry.stdout),
    stderr: entry.stderr ? recordedFile(entry.stderr) : '',
    exitCode: entry.exitCode,
    command: entry.argv,
    startedAt,
    endedAt: new Date(startedAt.getTime() + entry.ms),
    timeZone: entry.env.TZ ?? 'UTC',
    server: entry.server,
  };
}
