import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findAttempt, type AttemptFilter, type Search } from '../attempt-output/find.js';
import { followAttempt } from '../attempt-output/follow.js';
import { Output } from '../attempt-output/copy-stream.js';
import { RUN_PLACE, TRY_PLACE, type OutputPlace } from '../attempt-output/places.js';
import { describeAttempt, describeEnd, printAttempt, shownAs, type Streams } from '../attempt-output/print.js';
import { realBoardPath } from '../board/locate.js';
import { CAPABILITY_EVENTS } from '../run/capability-list.js';
import { boardSecrets } from '../board/secret-values.js';
import { InputError } from '../errors.js';
import type { AttemptRecord } from '../events/records.js';
import { integerFlag } from './flags.js';
import { isAlive } from '../util/process.js';
import { runnable, shellWord } from '../util/self-command.js';
import { lockStatus } from './status.js';

/** The flags of `logs`, as cli.ts parsed them. */
export interface LogsFlags {
  task?: string | boolean;
  step?: string | boolean;
  run?: string | boolean;
  role?: string | boolean;
  attempt?: string | boolean;
  stdout?: string | boolean;
  stderr?: string | boolean;
  follow?: string | boolean;
  try?: string | boolean;
  raw?: string | boolean;
}

/** Where `logs` writes: the process's streams by default. */
export interface LogsIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Whose secret values are masked in what agents printed (board/secret-values.ts); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * `kanban-supervisor logs`: print what an agent printed in one attempt (the last, or the last
 * of a task, step, run or role), or follow the running one until it ends. Reads only.
 */
export async function logsCommand(
  options: { file: string; flags: LogsFlags },
  io: LogsIO = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { flags } = options;
  if (flags.stdout && flags.stderr)
    throw new InputError(
      `--stdout and --stderr each print one stream alone; give one of them, or neither for both under headings. ` +
        `See \`${runnable('logs --help')}\`.`,
    );
  const file = realBoardPath(options.file);
  const dir = path.dirname(file);
  const place = flags.try ? TRY_PLACE : RUN_PLACE;
  const filter = filterOf(flags);
  const search = findAttempt(dir, place.events, filter, CAPABILITY_EVENTS);
  const found = search.attempt;
  if (!found) throw new InputError(nothingFound(search, filter, place, options.file));
  const alive = aliveCheck(file, found, place === TRY_PLACE);
  const running = !found.finished && alive();
  const streams: Streams = flags.stdout ? 'stdout' : flags.stderr ? 'stderr' : 'both';
  const secrets = boardSecrets(dir, io.env ?? process.env);
  const out = new Output(io.stdout, io.stdout.isTTY === true, secrets);
  const halt = search.haltedBy;
  if (halt) {
    const board = options.file === 'kanban.yaml' ? '' : ` ${shellWord(options.file)}`;
    io.stderr.write(
      `The Manager halted the run (status ${halt.finished?.status ?? '?'}) on this reply of ${found.role}; ` +
        `the Manager's own output: ` +
        `${runnable(`logs${board} --run ${halt.run} --step ${halt.step} --role Manager`)}\n`,
    );
  }
  if (!flags.follow || !running) {
    if (flags.follow)
      io.stderr.write(
        `No attempt is running now${found.finished ? '' : ' (its supervisor stopped during the last one)'}; ` +
          `here is the last one${Object.keys(filter).length ? ' that matches' : ''}.\n`,
      );
    await printAttempt(dir, found, place, streams, running ? 'running' : 'stopped', out, flags.raw === true);
    return 0;
  }
  io.stderr.write(
    `Following ${describeAttempt(found, 'running')}` +
      `${streams === 'stderr' ? '' : shownAs(found.cli, flags.raw === true)}. Ctrl-C stops following, not the run.\n`,
  );
  const err = new Output(io.stderr, io.stderr.isTTY === true, secrets);
  const ended = await followAttempt(
    dir,
    found,
    place,
    search.size,
    {
      ...(streams !== 'stderr' && { stdout: out }),
      ...(streams !== 'stdout' && { stderr: err }),
      alive,
      sleep: (ms) => sleep(ms),
      raw: flags.raw === true,
    },
    CAPABILITY_EVENTS,
  );
  io.stderr.write(`The attempt ended: ${describeEnd({ ...found, ...(ended && { finished: ended }) }, 'stopped')}.\n`);
  return 0;
}

function filterOf(flags: LogsFlags): AttemptFilter {
  const text = (name: keyof LogsFlags) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  const [task, step, run, role, attempt] = [text('task'), text('step'), text('run'), text('role'), text('attempt')];
  return {
    ...(task !== undefined && { task }),
    ...(step !== undefined && { step: integerFlag('--step', step, 1) }),
    ...(attempt !== undefined && { attempt: integerFlag('--attempt', attempt, 1) }),
    ...(run !== undefined && { run }),
    ...(role !== undefined && { role }),
  };
}

// Whether the supervisor that runs `found` is alive: a board run holds the board's lock (its
// owner's pid is the run's); a `try` takes no lock, so its pid is asked directly.
function aliveCheck(file: string, found: AttemptRecord, tried: boolean): () => boolean {
  const pid = runPid(found.run);
  if (pid === undefined) return () => false;
  if (tried) return () => isAlive(pid);
  return () => {
    const lock = lockStatus(file);
    return (lock.state === 'running' || lock.state === 'elsewhere') && lock.pid === pid;
  };
}

// The pid of the supervisor that made a run: run ids end with it (util/time.ts).
function runPid(run: string): number | undefined {
  const pid = /-(\d+)$/.exec(run)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

// "Nothing matches", said with what there is and what to run instead.
function nothingFound(search: Search, filter: AttemptFilter, place: OutputPlace, board: string): string {
  const arg = board === 'kanban.yaml' ? '' : ` ${shellWord(board)}`;
  if (!search.anyEvents) {
    const first =
      place === TRY_PLACE ? runnable(`try Implementor${arg} --instruction "Say hello"`) : runnable(arg.trim());
    return (
      `${place.events}: no attempts recorded yet, so there is no output to show. ` +
      `${place === TRY_PLACE ? 'Try a role first' : 'Run the board first'}: ${first}`
    );
  }
  if (filter.step !== undefined) {
    const run = filter.run ?? search.lastRun;
    const had = search.steps.length
      ? `; it has steps ${Math.min(...search.steps)} to ${Math.max(...search.steps)}`
      : '';
    if (!filter.role || !search.steps.includes(filter.step))
      return `run ${run} has no attempt in step ${filter.step}${had}. Pick one of those, or another run with --run ID.`;
  }
  const what = [
    filter.attempt !== undefined && `number ${filter.attempt}`,
    filter.task && `on ${filter.task}`,
    filter.role && `by ${filter.role}`,
    filter.step !== undefined && `in step ${filter.step}`,
    filter.run && `of run ${filter.run}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `no attempt ${what} in ${place.events}. See which tasks ran and how: ${runnable(`status${arg}`)}`;
}
