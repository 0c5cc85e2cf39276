import path from 'node:path';
import { gitEvents } from './events.js';
import { agentTag, TAG_VARIABLE } from '../agent/tag.js';
import { InputError } from '../errors.js';
import type { CapabilitySurface, DryRunAsk } from '../loop/context.js';
import { gitSettings } from './settings.js';

/** `supervisor.git_commit` and `git_timeout`: one commit per applied step (capability.ts). */
export const gitSurface = {
  name: 'git',
  events: gitEvents,
  open: async (kind, options) => (await import('./capability.js')).gitCommits(kind, options),
  settings: gitSettings,
  async dryRun(ask) {
    if (!ask.next || !gitSettings(ask.settings.supervisor).gitCommit) return undefined;
    const warnings: string[] = [];
    const git = await gitPlan(ask, warnings);
    const line = git.commits
      ? `Commits: the step, once the Manager's answer is written, ` +
        `would be one commit in ${git.repository ?? ''} (supervisor.git_commit; never pushed).`
      : `Commits: none (supervisor.git_commit is on, but ${git.why ?? 'there is no repository'}).`;
    return { key: 'git', value: git, lines: [line], warnings };
  },
} satisfies CapabilitySurface;

/** With supervisor.git_commit: whether each step would be a commit, and where (null: none, `why` says). */
export interface GitPlan {
  commits: boolean;
  repository: string | null;
  why?: string;
}

// As a run's start finds the repository (find-repo.ts); a missing identity is a warning here, as a missing command is.
async function gitPlan({ file, env, settings }: DryRunAsk, warnings: string[]): Promise<GitPlan> {
  const call = {
    cwd: path.dirname(file),
    env,
    timeoutMs: gitSettings(settings.supervisor).gitTimeoutMs,
    graceMs: settings.killGraceMs,
    tag: agentTag({ board: file, run: '<dry-run>', step: 0, role: 'git' }, env[TAG_VARIABLE]),
  };
  try {
    // git and execa are loaded only when the board commits: most boards' --dry-run needs neither.
    const { findRepo } = await import('./find-repo.js');
    const found = await findRepo(file, call);
    return 'off' in found
      ? { commits: false, repository: null, why: found.off }
      : { commits: true, repository: found.repo.top };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    warnings.push(`${error.message} A run would stop here with exit 2.`);
    return { commits: false, repository: null, why: 'a run would stop before any agent: see the warning above' };
  }
}
