import { maskText } from '../util/secrets.js';
import { cleanBlock, cleanLine, shorten } from '../util/text.js';
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
 * Manager's answer, the step, the run and the next task, and a note for every path that already
 * had uncommitted changes before the step. Agent text is cleaned of control characters and secrets.
 */
export function commitMessage(about: CommitAbout, dirtyBefore: readonly string[] = []): string {
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
  if (dirtyBefore.length > 0) {
    body.push(
      '',
      'These paths had uncommitted changes before this step, and the step changed them again; this commit holds both:',
    );
    for (const file of dirtyBefore) body.push(`  ${cleanLine(shownPath(file))}`);
  }
  return `${subject}\n\n${body.join('\n')}\n`;
}

// A reply's message as clean text, secrets masked; what is not a string is shown as JSON.
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return maskText(cleanBlock(typeof value === 'string' ? value : JSON.stringify(value))).trim();
}
