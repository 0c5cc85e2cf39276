import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { StopSignals } from '../agent/interrupt.js';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import { CommitFailedError } from '../errors.js';
import type { EventLog } from '../events/log.js';
import { appendEntry } from '../log/supervisor-log.js';
import { formatDuration } from '../util/duration.js';
import { commitMessage, type CommitAbout } from './message.js';
import type { GitRepo } from './open.js';
import { gitEnv, gitSaid, isRunOutput, parseStatus, pathList, shownPath } from './porcelain.js';
import { runGit, type GitCall, type GitResult } from './run-git.js';
import { pathState } from './tree-state.js';

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
 * commit and a Warning in supervisor.log.md say so. The commit is built in an index of its own
 * (HEAD plus those paths), so the person's staged changes are neither committed nor lost.
 */
export class StepCommits {
  constructor(
    private readonly repo: GitRepo,
    private readonly run: CommitRun,
  ) {}

  /** Note the work tree as a step starts. */
  async note(step: number): Promise<TreeNote> {
    return { step, states: await this.changed(this.call(step)) };
  }

  /** Commit what the step changed, once its answer is written; a failure stops the run (exit 6). Resolves with the commit id, or null when nothing changed. */
  async commit(note: TreeNote, about: CommitAbout): Promise<string | null> {
    const call = this.call(note.step);
    const now = await this.changed(call);
    const paths = [...now].filter(([file, state]) => note.states.get(file) !== state).map(([file]) => file);
    if (paths.length === 0) return null;
    const dirtyBefore = paths.filter((file) => note.states.has(file));
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
        ? (await runGit(['diff-index', '--cached', '--quiet', 'HEAD'], staged)).code === 0
        : (await runGit(['ls-files', '-z'], staged)).stdout === '';
      if (same) return null;
      const done = await runGit(
        ['commit', '-q', '--cleanup=whitespace', '-F', '-'],
        staged,
        Buffer.from(commitMessage(about, dirtyBefore)),
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
        step: note.step,
        task: about.task,
        role: about.role,
        commit: id,
        paths: paths.length,
        ...(dirtyBefore.length > 0 && { dirtyBefore: dirtyBefore.map(shownPath) }),
      });
      if (dirtyBefore.length > 0) this.warnDirty(about, id, dirtyBefore);
      return id;
    } finally {
      for (const leftover of [index, `${index}.lock`]) rmSync(leftover, { force: true });
    }
  }

  // Every path git sees changed against HEAD (tracked or not, not ignored), but the supervisor's own output, with what it holds.
  private async changed(call: GitCall): Promise<Map<string, string>> {
    const status = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], {
      ...call,
      env: { ...call.env, GIT_OPTIONAL_LOCKS: '0' },
    });
    if (status.code !== 0 || status.stopped !== null) this.failed(null, 'git status', status, 0);
    const files = parseStatus(status.stdout).filter((file) => !isRunOutput(file, this.repo.board));
    return new Map(files.map((file) => [file, pathState(this.repo.top, file)]));
  }

  private call(step: number): GitCall {
    const tag = agentTag({ board: this.run.file, run: this.run.runId, step, role: 'git' }, this.run.env[TAG_VARIABLE]);
    return {
      cwd: this.repo.top,
      env: gitEnv(this.run.env),
      timeoutMs: this.run.timeoutMs,
      graceMs: this.run.graceMs,
      tag,
      stop: this.run.stop,
    };
  }

  // A run told to stop stops with its own reason; else one Halt entry and exit 6 with git's words.
  // `about` null: the work tree was being noted as a step started, before its agent ran.
  private failed(about: CommitAbout | null, what: string, result: GitResult, paths: number): never {
    if (result.stopped === 'interrupted' && this.run.stop.interrupt.aborted)
      throw this.run.stop.interrupt.reason as Error;
    const board = path.basename(this.run.file);
    const why =
      result.stopped === 'timeout'
        ? `${what} ran longer than supervisor.git_timeout (${formatDuration(this.run.timeoutMs)}) and was stopped with everything it started (a hook that hangs?)`
        : result.startError !== undefined
          ? `${what} could not start (${result.startError})`
          : `${what} exited ${String(result.code)}: ${gitSaid(result.stderr, result.stdout)}`;
    const issue = about
      ? `The commit of step ${about.step} (${about.task}: ${about.role}, ${paths} path(s)) failed: ${why}`
      : `Noting the work tree as a step started failed: ${why}`;
    const after = about
      ? `${board} is as the step wrote it and the step's changes are left uncommitted in the work tree`
      : 'no agent of the step has run';
    appendEntry(path.dirname(this.run.file), {
      time: this.run.now(),
      kind: 'Halt',
      agent: 'kanban-supervisor',
      task: about?.task ?? board,
      issue,
      action: `Stopping (exit 6); ${after}`,
    });
    const fix = about
      ? 'fix what git says and commit them yourself (git add, then git commit, which runs the hooks again)'
      : 'fix what git says';
    throw new CommitFailedError(`${issue}. ${after.charAt(0).toUpperCase()}${after.slice(1)}: ${fix}, then run again.`);
  }

  private warnDirty(about: CommitAbout, id: string, files: string[]): void {
    const list = files.map(shownPath).join(', ');
    const issue = `${list} had uncommitted changes before step ${about.step}, and the step changed them again: commit ${id.slice(0, 12)} holds both the earlier changes and the step's`;
    appendEntry(path.dirname(this.run.file), {
      time: this.run.now(),
      kind: 'Warning',
      agent: about.role,
      task: about.task,
      issue,
      action: 'Committed; the commit message lists these paths',
    });
  }
}
