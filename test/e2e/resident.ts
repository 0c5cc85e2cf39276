import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import { CLI, events } from '../helpers.js';

/** A resident supervisor (--watch) on the board in `dir`, with plain output, and ways to wait for its events. */
export function resident(dir: string) {
  const child = execa('node', [CLI, 'kanban.yaml', '--watch'], {
    cwd: dir,
    reject: false,
    env: { NO_COLOR: '1' },
    stdin: 'ignore',
    timeout: 60_000,
  });
  /** Resolves once the board's event log holds `count` events matching `match`. */
  const eventually = async (
    match: (event: Record<string, unknown>) => boolean,
    count = 1,
  ): Promise<Record<string, unknown>[]> => {
    for (let waited = 0; waited < 30_000; waited += 100) {
      const found = existsSync(path.join(dir, '.kanban-supervisor/events.jsonl')) ? events(dir).filter(match) : [];
      if (found.length >= count) return found;
      if (child.nodeChildProcess.exitCode !== null)
        throw new Error(`the supervisor ended (${String(child.nodeChildProcess.exitCode)}): ${String(child.stderr)}`);
      await delay(100);
    }
    throw new Error(`no such event; events so far: ${JSON.stringify(events(dir).map((e) => e.type))}`);
  };
  return { child, eventually, waiting: (count = 1) => eventually((e) => e.type === 'waiting', count) };
}
