import type { RunRecord } from '../events/fold.js';
import { cleanLine } from '../util/clean-text.js';

/**
 * What to type to review a run's commits (supervisor.git_commit), as `status` and the report
 * show it: one commit is `git show`, several a range from the first one's parent (pure).
 */
export function reviewCommits(commits: NonNullable<RunRecord['commits']>): string {
  // The ids are read from the event log, a file in the board folder: shown cleaned, shortened.
  const short = (id: string) => cleanLine(id).slice(0, 12);
  return commits.count === 1
    ? `git show ${short(commits.last)}`
    : `git log -p ${short(commits.first)}^..${short(commits.last)}`;
}
