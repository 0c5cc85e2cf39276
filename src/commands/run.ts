import path from 'node:path';
import { requireDuration } from '../util/duration.js';
import { InputError, SupervisorError } from '../errors.js';
import type { Hook, HookContext } from '../hooks/hook.js';
import type { EventListener } from '../log/events.js';
import { failedOutcome, finishedOutcome, type Outcome } from '../progress/outcome.js';
import { printOutcome, reporterFor } from '../progress/reporter.js';
import type { SettingsFlags } from '../settings.js';
import { supervise } from '../supervise.js';
import { Stopper, writeIfOpen } from '../stop.js';
import { formatSpend, Spend } from '../spend.js';
import type { Usage } from '../reply/usage.js';

/** The flags of `kanban-supervisor run`, as cli.ts parsed them. */
export interface RunFlags {
  'max-retries'?: string;
  'max-steps'?: string;
  'max-cost'?: string;
  timeout?: string;
  once?: boolean;
  watch?: boolean;
  'dry-run'?: boolean;
  json?: boolean;
  quiet?: boolean;
  'no-color'?: boolean;
  'on-complete'?: string;
  'on-halt'?: string;
}

/** Where the command talks: the process's streams and environment by default. */
export interface RunIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/**
 * `kanban-supervisor run`: turn flags into options, show progress, print the outcome in one
 * place, run the --on-complete / --on-halt hook; returns the exit code. Internal errors are
 * rethrown for cli.ts to report as bugs.
 */
export async function runCommand(file: string, flags: RunFlags, io: RunIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const settings = settingsFlags(flags);
  if (flags['dry-run']) {
    const { dryRun, formatDryRun } = await import('./dry-run.js');
    const plan = dryRun({ file, ...settings, env: io.env });
    io.stdout.write(flags.json ? `${JSON.stringify(plan)}\n` : formatDryRun(plan));
    return 0;
  }
  const boardDir = path.dirname(path.resolve(file));
  const hooks = await parseHooks(flags, boardDir, io.env);
  const { mode, reporter } = reporterFor({ json: flags.json === true, quiet: flags.quiet === true, noColor: flags['no-color'] === true }, io.stdout, io.env);
  const context: HookContext = { file: path.resolve(file), run: '', steps: 0, task: '' };
  const spend = new Spend();
  const track: EventListener = (event) => {
    if (event.type === 'run_started') context.run = event.run;
    if (event.type === 'step_started') Object.assign(context, { steps: event.step, task: event.task });
    if (event.type === 'attempt_finished') spend.add(event.usage as Usage | undefined);
  };

  let outcome: Outcome;
  let bug: unknown;
  const stopper = new Stopper();
  const unwatch = stopper.watchOutput(io);
  try {
    const result = await supervise({ file, ...settings, once: flags.once === true, watch: flags.watch === true, listeners: [track, reporter.event], onLine: reporter.line, env: io.env, stopper });
    outcome = finishedOutcome(result, file, formatSpend(spend.total));
  } catch (error) {
    outcome = failedOutcome(error, file, formatSpend(spend.total));
    if (!(error instanceof SupervisorError)) bug = error;
  } finally {
    reporter.close();
  }
  if (bug === undefined) printOutcome(outcome, mode, reporter, io);
  const hook = outcome.exitCode === 0 ? hooks.complete : hooks.halt;
  if (hook) {
    const { runHook } = await import('../hooks/hook.js');
    const warning = await runHook(hook, outcome, context, io.env);
    if (warning) writeIfOpen(io.stderr, `kanban-supervisor: warning: ${warning}\n`);
  }
  unwatch();
  if (bug !== undefined) throw bug;
  return outcome.exitCode;
}

// hooks/hook.js is loaded only when a hook is given, like dry-run.js for --dry-run: each module
// a run loads is start-up time.
async function parseHooks(flags: RunFlags, boardDir: string, env: NodeJS.ProcessEnv): Promise<{ complete?: Hook; halt?: Hook }> {
  if (flags['on-complete'] === undefined && flags['on-halt'] === undefined) return {};
  const { parseHook } = await import('../hooks/hook.js');
  return {
    ...(flags['on-complete'] !== undefined && { complete: parseHook('--on-complete', flags['on-complete'], boardDir, env) }),
    ...(flags['on-halt'] !== undefined && { halt: parseHook('--on-halt', flags['on-halt'], boardDir, env) }),
  };
}

function settingsFlags(flags: RunFlags): SettingsFlags {
  return {
    ...(flags['max-retries'] !== undefined && { maxRetries: integerFlag('--max-retries', flags['max-retries'], 0) }),
    ...(flags['max-steps'] !== undefined && { maxSteps: integerFlag('--max-steps', flags['max-steps'], 1) }),
    ...(flags.timeout !== undefined && { timeoutMs: requireDuration(flags.timeout, '--timeout') }),
    ...(flags['max-cost'] !== undefined && { maxCostUsd: dollarsFlag(flags['max-cost']) }),
  };
}

function dollarsFlag(value: string): number {
  const n = Number(value.replace(/^\$/, ''));
  if (!(n > 0) || !Number.isFinite(n)) throw new InputError(`--max-cost must be an amount of US dollars above 0, like 5 or 2.50 (got ${JSON.stringify(value)}).`);
  return n;
}

function integerFlag(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InputError(`${name} must be a whole number >= ${min} (got ${JSON.stringify(value)}).`);
  return n;
}
