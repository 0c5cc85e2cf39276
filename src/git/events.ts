import type { EventFields, StepPlace } from '../event-types.js';
import type { CapabilityEvents } from '../events/capability-events.js';
import { str, type Checks } from '../events/parse.js';
import { esc } from '../report/attempt-row.js';
import { cleanLine } from '../util/clean-text.js';

declare module '../event-types.js' {
  interface EventFields {
    /** A step's changes committed (supervisor.git_commit). */
    git_committed: StepPlace & { commit: string; paths: number; dirtyBefore?: string[]; leftOut?: string[] };
  }
}
declare module '../events/parse.js' {
  interface EventChecks {
    git_committed: typeof COMMITTED;
  }
}
declare module '../events/fold.js' {
  interface RunRecord {
    /** Its steps' commits (supervisor.git_commit): how many, the first and the last commit id. */
    commits?: { count: number; first: string; last: string };
  }
}

const COMMITTED = { commit: str } satisfies Checks<EventFields['git_committed']>;

/** The step commits' event, its line, and the run's commits in `status` and the report. */
export const gitEvents = {
  types: {
    git_committed: {
      checks: COMMITTED,
      line: (event, style) =>
        `  ${style.dim(`committed ${event.commit.slice(0, 12)} (${event.paths} path${event.paths === 1 ? '' : 's'})`)}`,
      live: () => ({ line: true }),
      fold: (event, { run }) => {
        // Newest first: the first one seen is the run's last commit.
        run.commits = {
          count: (run.commits?.count ?? 0) + 1,
          first: event.commit,
          last: run.commits?.last ?? event.commit,
        };
      },
    },
  },
  status: (run) => run.commits && `committed: ${run.commits.count} step(s), ${reviewCommits(run.commits)}`,
  report: (run) =>
    run.commits ? ` · committed: ${run.commits.count} step(s), <code>${esc(reviewCommits(run.commits))}</code>` : '',
} satisfies CapabilityEvents;

/**
 * What to type to review a run's commits (supervisor.git_commit), as `status` and the report
 * show it: one commit is `git show`, several a range from the first one's parent (pure).
 */
export function reviewCommits(commits: { count: number; first: string; last: string }): string {
  // The ids are read from the event log, a file in the board folder: shown cleaned, shortened.
  const short = (id: string) => cleanLine(id).slice(0, 12);
  return commits.count === 1
    ? `git show ${short(commits.last)}`
    : `git log -p ${short(commits.first)}^..${short(commits.last)}`;
}
