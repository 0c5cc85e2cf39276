import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { StopSignals } from '../agent/interrupt.js';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import { fencedRoles } from '../board/fenced-roles.js';
import { CommitFailedError } from '../errors.js';
import type { EventLog } from '../events/log.js';
import { appendEntry } from '../log/supervisor-log.js';
import { maskText } from '../util/secrets.js';
import { formatDuration } from '../util/duration.js';
import { commitMessage, commitWarnings, type CommitAbout } from './message.js';
import type { GitRepo } from './find-repo.js';
import { inertCall } from './inert.js';
import { gitSaid, pathList, shownPath } from './porcelain.js';
import { runGit, type GitCall, type GitResult } from './run-git.js';
import { treeStates } from './tree-state.js';

/** The work tree as a step starts: every path that differs from HEAD, with what it holds. */
export interface TreeNote {
  step: number;
  states: Map<string, string>;
}

/** What a run gives its commits: where the board is, how git is bounded, where events and log entries go. */
export interface CommitRun {
  file: string;
  runId: string;
  env: NodeJS.ProcessEnv;
  stop: StopSignals;
  timeoutMs: number;
  graceMs: number;
  events: EventLog;
  now: () => Date;
}

/**
 * One commit per applied step (supervisor.git_commit). A step's commit holds exactly the paths
 * whose content changed between the step's start and its answer being written, so a person's
 * uncommitted change the step never touched stays out of every commit (and in the work tree);
 * a path that was already changed and that the step changed again is committed whole, and its
 * commit and a Warning in supervisor.log.md say so; a repository of its own that the step made
 * is left out, and said so the same way. The commit is built in an index of its own (HEAD plus
 * those paths), so the person's staged changes are neither committed nor lost.
 */
export class StepCommits {
  constructor(
    private readonly repo: GitRepo,
    private readonly run: CommitRun,
  ) {}

  /** Note the work tree as a step starts. */
  async note(step: number): Promise<TreeNote> {
    return { step, states: await this.changed(this.call(step), null) };
  }

  /**
   * Commit what the step changed, once its answer is written; a failure stops
   * the run (exit 6). Resolves with the commit id, or null when nothing changed.
   */
  async commit(note: TreeNote, about: CommitAbout): Promise<string | null> {
    const call = this.call(note.step);
    const now = await this.changed(call, about);
    const changed = [...now].filter(([file, state]) => note.states.get(file) !== state).map(([file]) => file);
    // A folder git lists but does not look into is a repository of its own that the repository does not know:
    // committed, it would become a submodule whose hooks and fsmonitor the next `git status` runs. Left out, and said.
    const leftOut = changed.filter((file) => file.endsWith('/'));
    const paths = changed.filter((file) => !file.endsWith('/'));
    const dirtyBefore = paths.filter((file) => note.states.has(file));
    const id =
      paths.length === 0 ? null : await this.commitPaths(note.step, about, { paths, dirtyBefore, leftOut }, call);
    for (const warning of commitWarnings(about, id, dirtyBefore, leftOut))
      appendEntry(
        path.dirname(this.run.file),
        { time: this.run.now(), kind: 'Warning', agent: about.role, task: about.task, ...warning },
        this.run.events.secrets,
      );
    return id;
  }

  // The commit of `paths`, built in an index of its own; null when they hold nothing new after all.
  private async commitPaths(
    step: number,
    about: CommitAbout,
    { paths, dirtyBefore, leftOut }: Record<'paths' | 'dirtyBefore' | 'leftOut', string[]>,
    call: GitCall,
  ): Promise<string | null> {
    // A name nothing could have planted in advance; git writes it through its own lock file and rename.
    const index = path.join(
      path.dirname(this.run.file),
      '.kanban-supervisor',
      `git-index-${randomBytes(8).toString('hex')}`,
    );
    const staged: GitCall = { ...call, env: { ...call.env, GIT_INDEX_FILE: index } };
    const fail = (what: string, result: GitResult) => this.failed(about, what, result, paths.length);
    try {
      const born = (await runGit(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], call)).code === 0;
      const read = await runGit(['read-tree', born ? 'HEAD' : '--empty'], staged);
      if (read.code !== 0) fail('git read-tree', read);
      const add = await runGit(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], staged, pathList(paths));
      if (add.code !== 0) fail('git add', add);
      const same = born
        ? (await runGit(['diff-index', '--cached', '--quiet', '--no-ext-diff', 'HEAD'], staged)).code === 0
        : (await runGit(['ls-files', '-z'], staged)).stdout === '';
      if (same) return null;
      const done = await runGit(
        ['commit', '-q', '--cleanup=whitespace', '-F', '-'],
        staged,
        Buffer.from(
          maskText(commitMessage(about, dirtyBefore, leftOut, this.run.events.secrets), this.run.events.secrets),
        ),
      );
      if (done.code !== 0 || done.stopped !== null) fail('git commit', done);
      const id = (await runGit(['rev-parse', 'HEAD'], call)).stdout.trim();
      // The person's index catches up with the commit for these paths (and only these).
      const reset = await runGit(
        ['reset', '-q', 'HEAD', '--pathspec-from-file=-', '--pathspec-file-nul'],
        call,
        pathList(paths),
      );
      if (reset.code !== 0) fail(`git reset (after commit ${id.slice(0, 12)} was made)`, reset);
      this.run.events.emit('git_committed', {
        step,
        task: about.task,
        role: about.role,
        commit: id,
        paths: paths.length,
        ...(dirtyBefore.length > 0 && { dirtyBefore: dirtyBefore.map(shownPath) }),
        ...(leftOut.length > 0 && { leftOut: leftOut.map(shownPath) }),
      });
      return id;
    } finally {
      for (const leftover of [index, `${index}.lock`]) rmSync(leftover, { force: true });
    }
  }

  // The work tree's paths and states (tree-state.ts); a git failure stops the run.
  private async changed(call: GitCall, about: CommitAbout | null): Promise<Map<string, string>> {
    const states = await treeStates(this.repo.top, this.repo.board, call);
    if (!(states instanceof Map)) this.failed(about, states.what, states.result, 0);
    return states;
  }

  // Pinned to the repository found at the start, inert (inert.ts); whether a role is fenced is read again each time.
  private call(step: number): GitCall {
    const tag = agentTag({ board: this.run.file, run: this.run.runId, step, role: 'git' }, this.run.env[TAG_VARIABLE]);
    const board = path.dirname(this.run.file);
    const bounds = { cwd: this.repo.top, env: this.run.env, timeoutMs: this.run.timeoutMs, graceMs: this.run.graceMs };
    return inertCall(
      { ...bounds, tag, stop: this.run.stop },
      board,
      this.repo.program,
      this.repo,
      fencedRoles(board).length > 0,
    );
  }

  // A run told to stop stops with its own reason; else one Halt entry and exit 6 with git's words.
  // `about` null: the work tree was being noted as a step started, before its agent ran.
  private failed(about: CommitAbout | null, what: string, result: GitResult, paths: number): never {
    if (result.stopped === 'interrupted' && this.run.stop.interrupt.aborted)
      throw this.run.stop.interrupt.reason as Error;
    const board = path.basename(this.run.file);
    const why =
      result.stopped === 'timeout'
        ? `${what} ran longer than supervisor.git_timeout (${formatDuration(this.run.timeoutMs)}) and was stopped ` +
          `with everything it started${what === 'git commit' ? ' (a hook that hangs?)' : ''}`
        : result.startError !== undefined
          ? `${what} could not start (${result.startError})`
          : `${what} exited ${String(result.code)}: ${gitSaid(result.stderr, result.stdout)}`;
    const issue = about
      ? `The commit of step ${about.step} (${about.task}: ${about.role}` +
        `${paths > 0 ? `, ${paths} path(s)` : ''}) failed: ${why}`
      : `Noting the work tree as a step started failed: ${why}`;
    const after = about
      ? `${board} is as the step wrote it and the step's changes are left uncommitted in the work tree`
      : 'no agent of the step has run';
    appendEntry(
      path.dirname(this.run.file),
      {
        time: this.run.now(),
        kind: 'Halt',
        agent: 'kanban-supervisor',
        task: about?.task ?? board,
        issue,
        action: `Stopping (exit 6); ${after}`,
      },
      this.run.events.secrets,
    );
    const fix = about
      ? 'fix what git says and commit them yourself (git add, then git commit, which runs the hooks again)'
      : 'fix what git says';
    throw new CommitFailedError(`${issue}. ${after.charAt(0).toUpperCase()}${after.slice(1)}: ${fix}, then run again.`);
  }
}
