import { maskText } from '../util/secrets.js';
import { cleanBlock, cleanLine, shorten } from '../util/clean-text.js';
import { shownPath } from './porcelain.js';

/** What a step's commit is about: the step's task and role, the reply, and the Manager's answer. */
export interface CommitAbout {
  step: number;
  runId: string;
  /** The task file, or kanban.yaml for a periodic role's step. */
  task: string;
  role: string;
  reply: Record<string, unknown>;
  answer: Record<string, unknown>;
  /** The task the answer makes current. */
  next: string | null;
}

// A subject line people can read in `git log --oneline`; the whole message is in the body.
const SUBJECT_MAX = 100;

/**
 * The commit message of a step (pure): `tasks/login.md: Implementor ok — added the login form`,
 * the Manager's status added when it is not ok, then a body with the reply's whole message, the
 * Manager's answer, the step, the run and the next task, a note for every path that already
 * had uncommitted changes before the step, and one for every repository of its own the step made
 * that was left out. Agent text is cleaned of control characters and secrets.
 */
export function commitMessage(
  about: CommitAbout,
  dirtyBefore: readonly string[] = [],
  leftOut: readonly string[] = [],
  secrets: readonly string[] = [],
): string {
  const text = (value: unknown) => shownText(value, secrets);
  const said = text(about.reply.message);
  const status = cleanLine(String(about.reply.status));
  const manager = cleanLine(String(about.answer.status));
  const head = `${cleanLine(about.task)}: ${cleanLine(about.role)} ${status}`;
  const tail = manager === 'ok' ? '' : ` [Manager: ${manager}]`;
  const firstLine = cleanLine(said.split('\n')[0] ?? '');
  const subject =
    firstLine === '' ? `${head}${tail}` : `${shorten(`${head} — ${firstLine}`, SUBJECT_MAX - tail.length)}${tail}`;
  const body = [
    ...(said.includes('\n') || [...firstLine].length > SUBJECT_MAX - head.length - tail.length - 3 ? [said, ''] : []),
    `Manager: ${manager}${text(about.answer.message) === '' ? '' : ` — ${cleanLine(text(about.answer.message))}`}`,
    `Next task: ${about.next === null ? 'none' : cleanLine(about.next)}`,
    `Step: ${about.step}`,
    `Run: ${about.runId}`,
  ];
  listed(
    body,
    dirtyBefore,
    'These paths had uncommitted changes before this step, and the step changed them again; this commit holds both:',
  );
  listed(
    body,
    leftOut,
    'Left out of this commit: git repositories of their own, made during this step, that this repository ' +
      'does not know as submodules (the supervisor does not look into them; add one yourself if it belongs here):',
  );
  return `${subject}\n\n${body.join('\n')}\n`;
}

// A reply's message as clean text, secrets masked before the subject cuts it; what is not a string is shown as JSON.
function shownText(value: unknown, secrets: readonly string[]): string {
  if (value === undefined || value === null) return '';
  return cleanBlock(maskText(typeof value === 'string' ? value : JSON.stringify(value), secrets)).trim();
}

// A heading and its paths, one a line, after a blank line; nothing when there are none.
function listed(body: string[], files: readonly string[], heading: string): void {
  if (files.length > 0) body.push('', heading, ...files.map((file) => `  ${cleanLine(shownPath(file))}`));
}

/** The Warnings of a step's commit (pure): paths it holds with a person's earlier changes, repositories it left out. */
export function commitWarnings(
  about: CommitAbout,
  id: string | null,
  dirtyBefore: readonly string[],
  leftOut: readonly string[],
): Array<{ issue: string; action: string }> {
  const list = (files: readonly string[]) => files.map((file) => cleanLine(shownPath(file))).join(', ');
  const commit = id === null ? '' : `commit ${id.slice(0, 12)}`;
  return [
    ...(id !== null && dirtyBefore.length > 0
      ? [
          {
            issue:
              `${list(dirtyBefore)} had uncommitted changes before step ${about.step}, ` +
              `and the step changed them again: ${commit} holds both the earlier changes and the step's`,
            action: 'Committed; the commit message lists these paths',
          },
        ]
      : []),
    ...(leftOut.length > 0
      ? [
          {
            issue:
              `${list(leftOut)}: made during step ${about.step}, ` +
              `a git repository of its own that the repository does not know as a submodule, ` +
              `left out of ${commit || "the step's commit (nothing else changed: no commit)"}, ` +
              `since the supervisor's git does not look into it`,
            action:
              `Left out${commit && '; the commit message names it'}. ` +
              `Look at it: if it belongs in the repository, add it yourself (git submodule add), else delete it`,
          },
        ]
      : []),
  ];
}
