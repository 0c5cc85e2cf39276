import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { CLI, events } from '../helpers.js';

// What the logs tests share: the attempts of a board, a terminal, and waiting on a child's output.

/** The attempts' events of a board, as written. */
export function finished(dir: string): Array<Record<string, unknown>> {
  return events(dir).filter((e) => e.type === 'attempt_finished');
}

/** Run the CLI under a real pseudo-terminal (util-linux `script`). */
export async function underTerminal(args: string[], cwd: string): Promise<string> {
  const result = await execa('script', ['-qfec', `exec node ${CLI} ${args.join(' ')}`, '/dev/null'], {
    cwd,
    reject: false,
    stdin: 'ignore',
    env: { ...process.env, TERM: 'xterm-256color' },
  });
  return String(result.stdout).replace(/\r\n/g, '\n');
}

/** Resolves once what `child` has printed on its stdout so far satisfies `enough`. */
export function printed(
  child: { stdout: NodeJS.ReadableStream | null },
  enough: (seen: string) => boolean,
): Promise<void> {
  let seen = '';
  return new Promise((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += String(chunk);
      if (enough(seen)) resolve();
    });
  });
}

/** Wait until `check` holds, polling. */
export async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(50);
  }
}
