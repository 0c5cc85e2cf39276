import type { Document } from 'yaml';

/** One task set aside by the Manager (kanban.yaml `parked:`; see src/reference-agents/park.ts). */
export interface ParkedTask {
  task: string;
  question: string;
  /** The run stopped for a person with this task set aside: the next run takes it first. */
  asked?: boolean;
}

/** The `parked:` list as kanban.yaml holds it: entries that are not `{task, question}` are dropped (pure). */
export function parkedList(board: unknown): ParkedTask[] {
  const list = (board as { parked?: unknown } | null)?.parked;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const { task, question, asked } = (entry ?? {}) as Record<string, unknown>;
    if (typeof task !== 'string') return [];
    return [{ task, question: typeof question === 'string' ? question : '', ...(asked === true && { asked }) }];
  });
}

/** The `parked:` list of a parsed kanban.yaml (status, report). */
export function boardParked(doc: Document): ParkedTask[] {
  const node = doc.get('parked') as { toJSON?: () => unknown } | undefined;
  return parkedList({ parked: node?.toJSON?.() });
}
