import path from 'node:path';
import { SupervisorError } from '../errors.js';
import { failedOutcome, finishedOutcome, outcomeLine, printOutcome, type Outcome } from '../progress/outcome.js';
import { showOn } from '../progress/style.js';
import { createStyle } from '../util/style.js';
import type { RunIO } from '../loop/context.js';
import { CAPABILITIES, openCapabilities } from '../run/capability-list.js';
import { supervise } from '../run/supervise.js';
import { settingsFlags } from './flags.js';

/** The flags of `kanban-supervisor run`, as cli.ts parsed them. */
export interface RunFlags {
  'max-retries'?: string;
  'max-steps'?: string;
  timeout?: string;
  once?: boolean;
  'dry-run'?: boolean;
  json?: boolean;
  quiet?: boolean;
  'no-color'?: boolean;
  /** The capabilities' own (--watch, --max-cost, --notify…), by name: each reads its own. */
  [flag: string]: unknown;
}

/**
 * `kanban-supervisor run`: turn flags into options, run the board (run/supervise.ts), print the
 * outcome in one place, and tell the run's capabilities (the hooks, the notifications) how it
 * ended; returns the exit code. A bug is rethrown for cli.ts once all that is done.
 */
export async function runCommand(
  file: string,
  flags: RunFlags,
  io: RunIO = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const settings = settingsFlags(flags, CAPABILITIES);
  if (flags['dry-run']) {
    const [{ dryRun }, { formatDryRun }] = await Promise.all([import('./dry-run.js'), import('./dry-run-text.js')]);
    const plan = await dryRun(file, { ...flags, ...settings }, io.env);
    // The text lines are the JSON's keys in words: the JSON has the keys only.
    io.stdout.write(flags.json ? `${JSON.stringify({ ...plan, capabilityLines: undefined })}\n` : formatDryRun(plan));
    return 0;
  }
  const show = showOn(io.stdout, { json: flags.json, quiet: flags.quiet, noColor: flags['no-color'], env: io.env });
  // Each capability reads its own flags by name (--watch, --on-complete…).
  const options = { file, flags: { ...flags, ...settings }, io, show };
  // A flag a capability cannot take (a hook not found, --watch with --once) stops here, before anything.
  const capabilities = await openCapabilities('run', options);
  let outcome: Outcome;
  let bug: unknown;
  let nothingToRun = false;
  try {
    const result = await supervise(options, capabilities);
    outcome = finishedOutcome(result, file, capabilities.summary());
    nothingToRun = result.runId === null;
  } catch (error) {
    outcome = failedOutcome(error, file, capabilities.summary());
    if (!(error instanceof SupervisorError)) bug = error;
  }
  if (bug === undefined) printOutcome(outcome, show.mode, createStyle(show.colour), io);
  await capabilities.runEnded({ outcome, line: outcomeLine(outcome), file: path.resolve(file), nothingToRun });
  if (bug !== undefined) throw bug;
  return outcome.exitCode;
}
