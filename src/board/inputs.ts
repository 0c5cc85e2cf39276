import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';

/** The inputs an agent receives (seed names, SPEC §2). */
export interface AgentInputs {
  role: string;
  kanban_file: string;
  task_file?: string;
  /** The task the Manager hears about; null when a periodic role's reply is what it hears about. */
  done_task?: string | null;
  tasks?: string[];
  instruction?: string;
  /** The worker's validated reply, passed through untouched to the Manager. */
  result?: Record<string, unknown>;
  /** The Manager's: the periodic role whose reply `result` is (supervisor.periodic). */
  trigger?: string;
  /** A periodic role's: the tasks whose steps completed since its last run, in order. */
  done_tasks?: string[];
  /** The Manager's: the board's recent steps, newest first (history/step-history.ts). */
  history?: unknown[];
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;
const KNOWN: ReadonlySet<string> = new Set([
  'task_file',
  'kanban_file',
  'done_task',
  'tasks',
  'instruction',
  'result',
  'role',
  'trigger',
  'done_tasks',
  'history',
  'prompt',
  'agents',
]);

/** The shipped reference agents (`{{agents}}` in a role file), wherever the package is installed. */
export const AGENTS_DIR = fileURLToPath(new URL('../../dist/reference-agents', import.meta.url));

/** Fill `{{name}}` placeholders from the inputs; an unknown name is a role-file error. Pure. */
export function fillPlaceholders(template: string, values: Record<string, unknown>, where: string): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    if (!KNOWN.has(name))
      throw new InputError(
        `${where}: unknown placeholder {{${name}}}. Use one of ${[...KNOWN].map((k) => `{{${k}}}`).join(', ')}.`,
      );
    const value = values[name];
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
