import path from 'node:path';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import type { Capability, OpenCapability } from '../loop/context.js';
import { gitSettings } from './settings.js';
import type { StepCommits, TreeNote } from './step-commits.js';

/**
 * `supervisor.git_commit` (SPEC §5c, "Reviewable"): every applied step one commit in the board's
 * repository — the repository and git's identity checked as the run starts, the work tree noted
 * as each step starts, the commit made once the Manager's answer is written. Never pushes. git
 * (and execa) is loaded only then: a board with nothing to run starts without it.
 */
export const gitCommits: OpenCapability = (kind): Capability | undefined => {
  if (kind !== 'run') return undefined;
  let commits: StepCommits | undefined;
  let runId = '';
  let note: TreeNote | undefined;
  return {
    async runStarted({ ctx, settings }) {
      const { gitCommit, gitTimeoutMs } = gitSettings(settings.supervisor);
      if (!gitCommit) return;
      const [{ findRepo }, { StepCommits }] = await Promise.all([
        import('./find-repo.js'),
        import('./step-commits.js'),
      ]);
      const { board, world, events } = ctx;
      runId = ctx.runId;
      const run = {
        file: board.file,
        runId,
        env: world.env,
        stop: world.stop,
        timeoutMs: gitTimeoutMs,
        graceMs: settings.killGraceMs,
        events,
        now: () => world.clock.now(),
      };
      const found = await findRepo(board.file, {
        cwd: board.dir,
        env: world.env,
        timeoutMs: run.timeoutMs,
        graceMs: run.graceMs,
        tag: agentTag({ board: board.file, run: runId, step: 0, role: 'git' }, world.env[TAG_VARIABLE]),
        stop: world.stop,
      });
      // No repository (or no git) is one warning: the run goes on without commits.
      if ('off' in found)
        events.emit('warning', {
          file: path.basename(board.file),
          message: `supervisor.git_commit is on, but ${found.off}: the run goes on without commits.`,
        });
      else commits = new StepCommits(found.repo, run);
    },
    async stepStarted(step, settings) {
      note = gitSettings(settings.supervisor).gitCommit ? await commits?.note(step) : undefined;
    },
    async answerWritten(step) {
      // A failure stops the run (exit 6).
      if (note?.step === step.step) await commits?.commit(note, { ...step, runId });
    },
  };
};
