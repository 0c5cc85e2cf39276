import { closeSync, openSync } from 'node:fs';

// What a process ends with when it was interrupted (SIGHUP, SIGINT, SIGTERM).
const INTERRUPTED = new Set([129, 130, 143]);

/**
 * At the edge (cli.ts): a reader that went away (`status | head -1`) is no crash: what is left
 * to print is dropped and the exit code says so (74). A lost terminal (EIO, with its SIGHUP)
 * ends as the interrupt it is (129), whatever failed to print after. And a terminal that is
 * gone is not restored at exit: Node resets the settings of a tty it started on as it exits,
 * and a reset of a hung-up tty fails (EIO) — some Node releases abort on that (SIGABRT, a core
 * file). Pointing fds 0–2 at /dev/null first makes Node skip them (it restores only the very
 * file it started with).
 */
export function guardOutput(proc: NodeJS.Process): void {
  const lost = { terminal: false };
  for (const stream of [proc.stdout, proc.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EIO') lost.terminal = true;
      if (INTERRUPTED.has(Number(proc.exitCode))) return;
      proc.exitCode = lost.terminal ? 129 : 74;
    });
  }
  // No SIGHUP listener here: it would keep a command that does not handle one from ending.
  proc.on('exit', (code) => {
    if (lost.terminal || code === 129) for (const fd of [0, 1, 2]) detach(fd);
  });
}

// close() then open() reuses the lowest free fd: this very one.
function detach(fd: number): void {
  try {
    closeSync(fd);
    openSync('/dev/null', fd === 0 ? 'r' : 'w');
  } catch {
    // nothing left to protect
  }
}
