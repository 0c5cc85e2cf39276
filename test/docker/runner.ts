import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

// The `run:` steps of a GitHub Actions workflow, run here as a GitHub-hosted Linux runner runs
// them: each step's script in a file given to `bash -e` (the default shell when a step names
// none), the workflow's env then the step's, `${{ … }}` replaced before the step starts, and the
// step's outputs read back from the file $GITHUB_OUTPUT names.

export interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  if?: string;
  with?: Record<string, unknown>;
}

export interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, { steps: Step[]; outputs?: Record<string, string> }>;
}

/**
 * `${{ a.b.c }}` from `context`, and `${{ a.b || c.d }}`: the first that is not empty, as GitHub
 * reads it. A name the context lacks is an error, so that a new expression in the workflow is
 * noticed by the test, not replaced by nothing.
 */
export function substitute(text: string, context: Record<string, unknown>): string {
  return text.replace(/\$\{\{\s*([\w.-]+(?:\s*\|\|\s*[\w.-]+)*)\s*\}\}/g, (_, expression: string) => {
    const values = expression.split('||').map((name) => {
      const value = name
        .trim()
        .split('.')
        .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], context);
      if (value === undefined) throw new Error(`the workflow's \${{ ${name.trim()} }} is not in the test's context`);
      return String(value);
    });
    return values.find(Boolean) ?? values.at(-1)!;
  });
}

/** A job's step by its name. */
export function step(workflow: Workflow, job: string, name: string): Step {
  const found = workflow.jobs[job]?.steps.find((s) => s.name === name);
  if (!found?.run) throw new Error(`the workflow has no run step "${name}" in job ${job}`);
  return found;
}

/** Run one `run:` step in `cwd`; `runner` holds the variables a runner sets (RUNNER_TEMP, GITHUB_REF_NAME…). */
export async function runStep(
  workflow: Workflow,
  run: Step,
  options: { cwd: string; context: Record<string, unknown>; runner: Record<string, string> },
) {
  const dir = mkdtempSync(path.join(options.runner.RUNNER_TEMP ?? '/tmp', 'step-'));
  try {
    const script = path.join(dir, 'script.sh');
    const output = path.join(dir, 'output');
    writeFileSync(script, substitute(run.run ?? '', options.context));
    writeFileSync(output, '');
    const stepEnv = Object.fromEntries(
      Object.entries(run.env ?? {}).map(([key, value]) => [key, substitute(String(value), options.context)]),
    );
    const result = await execa('bash', ['-e', script], {
      cwd: options.cwd,
      env: { ...options.runner, ...workflow.env, ...stepEnv, GITHUB_OUTPUT: output, GITHUB_WORKSPACE: options.cwd },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 120_000,
    });
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, outputs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
