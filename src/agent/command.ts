import { InputError } from '../errors.js';
import { findProgram } from '../util/process.js';
import type { Invocation } from './invocation.js';

// Linux refuses any single argv or environment string longer than this (MAX_ARG_STRLEN).
const MAX_ARG_BYTES = 128 * 1024;

/**
 * Check that the agent's command exists and is executable, and that its argv and
 * environment can be passed to it, before the first attempt: these are configuration
 * errors (exit 2) naming the command and the role file, not something retries can fix.
 */
export function checkCommand(
  invocation: Pick<Invocation, 'file' | 'cwd' | 'env' | 'roleFile' | 'role'> & { args?: readonly string[] },
): void {
  checkStrings(invocation);
  const found = findProgram(invocation.file, invocation.env, invocation.cwd);
  if ('problem' in found)
    throw new InputError(
      `${invocation.roleFile}: the ${invocation.role} command "${invocation.file}" ${found.problem}. ` +
        `Install it, or fix \`command:\` in ${invocation.roleFile}.`,
    );
}

/**
 * Why the system refused to start an agent whose command passed checkCommand, as a
 * configuration error; undefined when the failure may pass (out of processes or memory)
 * and is worth a retry like any other invalid output.
 */
export function startProblem(
  invocation: Pick<Invocation, 'file' | 'roleFile' | 'role'>,
  code: string | undefined,
): InputError | undefined {
  const reason = START_FAILURES[code ?? ''];
  if (!reason) return undefined;
  return new InputError(
    `${invocation.roleFile}: the ${invocation.role} command "${invocation.file}" could not be started: ${reason}.`,
  );
}

const START_FAILURES: Record<string, string> = {
  ENOENT: 'the program, or the interpreter on its #! line, does not exist. Fix the #! line or `command:`',
  EACCES: 'permission denied (the program or its #! interpreter is not executable). chmod +x it or fix `command:`',
  ENOEXEC: 'it is not a program this system can run. Add a #! line or fix `command:`',
  ENOTDIR: 'a folder in its path is a file. Fix `command:`',
  ELOOP: 'its path loops through symlinks. Fix `command:`',
  ENAMETOOLONG: 'its path is too long. Fix `command:`',
  ERR_INVALID_ARG_VALUE: 'an argument or environment value holds a NUL byte. Fix `command:` or `env:`',
  E2BIG:
    'its arguments and environment are too large for the system. ' +
    'Give big inputs on stdin (`stdin: prompt` or `stdin: json`), not as {{placeholders}} in `command:`',
};

function checkStrings(
  invocation: Pick<Invocation, 'file' | 'env' | 'roleFile' | 'role'> & { args?: readonly string[] },
): void {
  const where = `${invocation.roleFile}: the ${invocation.role} command`;
  const argv = [invocation.file, ...(invocation.args ?? [])];
  argv.forEach((arg, i) => {
    if (arg.includes('\0'))
      throw new InputError(
        `${where} has a NUL byte in argument ${i}, which no program can receive. ` +
          `Remove it from \`command:\` or the input it comes from.`,
      );
    if (Buffer.byteLength(arg) >= MAX_ARG_BYTES) {
      throw new InputError(
        `${where} has an argument of ${Buffer.byteLength(arg)} bytes (argument ${i}); ` +
          `the system refuses more than ${MAX_ARG_BYTES - 1}. ` +
          `Give big inputs on stdin (\`stdin: prompt\` or \`stdin: json\`), not as {{placeholders}} in \`command:\`.`,
      );
    }
  });
  for (const [key, value] of Object.entries(invocation.env)) {
    if (key.includes('\0') || value.includes('\0'))
      throw new InputError(
        `${where} would get a NUL byte in environment variable ${key.replace(/\0/g, '\\0')}, ` +
          `which no program can receive. Fix \`env:\` in ${invocation.roleFile}.`,
      );
    if (Buffer.byteLength(key) + Buffer.byteLength(value) + 1 >= MAX_ARG_BYTES) {
      throw new InputError(
        `${where} would get an environment variable ${key} of ${Buffer.byteLength(value)} bytes; ` +
          `the system refuses more than ${MAX_ARG_BYTES - 2 - key.length}. ` +
          `Shorten it in \`env:\` of ${invocation.roleFile} or in the environment.`,
      );
    }
  }
}
