import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT_CODES, ExitCode, outcomeKind } from '../../src/errors.js';
import { jobAfter } from '../docker/kubelet.js';
import { ROOT } from '../helpers.js';

// The one table of exit codes (EXIT_CODES in src/errors.ts) against the code, docs/exit-codes.md
// and both recipes: each must say what the table says.
const text = (name: string) => readFileSync(path.join(ROOT, name), 'utf8');
const expected = (next: string) => EXIT_CODES.filter((row) => row.next === next).map((row) => row.code);

describe('the table of exit codes', () => {
  it('keeps every code the supervisor exits with, each with its outcome', () => {
    expect(ExitCode).toEqual({
      done: 0,
      internal: 1,
      badInput: 2,
      retriesExhausted: 3,
      haltedForHuman: 4,
      guard: 5,
      commitFailed: 6,
      limitWait: 69,
      unwritable: 73,
      outputClosed: 74,
      locked: 75,
      timeLimit: 124,
      sighup: 129,
      sigint: 130,
      sigterm: 143,
    });
    for (const row of EXIT_CODES) expect(outcomeKind(row.code)).toBe(row.outcome);
    expect(outcomeKind(137)).toBe('internal_error');
  });

  it('is the table docs/exit-codes.md shows: each code, its outcome and what comes next', () => {
    const rows = text('docs/exit-codes.md')
      .split('\n')
      .filter((line) => /^\| \d+ \|/.test(line))
      .map((line) => line.split(' | '))
      .map((cells) => ({
        code: Number(cells[0]?.slice(2)),
        outcome: /`(\w+)`/.exec(cells[1] ?? '')?.[1],
        next: cells.at(-1)?.replace(/ \|$/, ''),
      }));
    expect(rows).toEqual(EXIT_CODES.map(({ code, outcome, next }) => ({ code, outcome, next })));
  });

  it("is how the Kubernetes recipe ends its Job: the supervisor's and the push's case lines, then the podFailurePolicy rules in order", () => {
    const job = (parse(text('recipes/kubernetes/cronjob.yaml')) as CronJob).spec.jobTemplate.spec!;
    const pod = job.template.spec!;
    const container = (name: string) => [...(pod.initContainers ?? []), ...pod.containers].find((c) => c.name === name);
    const wrapper = container('supervisor')?.args?.[0] ?? '';
    const push = container('push')?.command?.at(-1) ?? '';
    // The first arm of `case $NAME in A|B) exit …` in a script: the codes it names.
    const arm = (script: string, name: string) =>
      new RegExp(`case \\$${name} in ([\\d|]+)\\)`).exec(script)?.[1]?.split('|').map(Number) ?? [];
    // The supervisor's container exits with an interrupt's code, else 0 (the push runs); the push
    // exits 0 for the codes its first arm names, else with the night's code.
    expect(wrapper).toMatch(/case \$code in [\d|]+\) exit "\$code" ;; esac\n\s*exit 0\n/);
    expect(push).toMatch(/case \$night in [\d|]+\) exit 0 ;; \*\) exit "\$night" ;; esac/);
    const exitCodes = (code: number): Record<string, number> =>
      arm(wrapper, 'code').includes(code)
        ? { fetch: 0, rebase: 0, supervisor: code }
        : { fetch: 0, rebase: 0, supervisor: 0, push: arm(push, 'night').includes(code) ? 0 : code };
    const fate = (code: number, conditions?: string[]) => jobAfter(job, { exitCodes: exitCodes(code), conditions });
    const seen = (result: string) => EXIT_CODES.filter((row) => fate(row.code) === result).map((row) => row.code);
    expect(seen('complete')).toEqual([...expected('done'), ...expected('later')]);
    expect(seen('retried')).toEqual(expected('again'));
    expect(seen('failed')).toEqual(expected('person'));
    // An evicted pod is run again without counting; so is a pod ended by a node drain mid-run.
    expect(fate(ExitCode.sigterm, ['DisruptionTarget'])).toBe('retried, not counted');
    // The evaluation can tell a wrong mapping: a push that passed the night's code on as it is
    // would retry a usage limit in the Job.
    expect(jobAfter(job, { exitCodes: { supervisor: 0, push: ExitCode.limitWait } })).toBe('retried');
  });

  it("is how the GitHub Actions recipe's Outcome step ends its job: it passes done, later and again", () => {
    const workflow = parse(text('recipes/github-actions/nightly.yml')) as {
      jobs: { run: { steps: Array<{ name?: string; run?: string }> } };
    };
    const outcome = workflow.jobs.run.steps.find((s) => s.name === 'Outcome')?.run ?? '';
    const passing = /^\s*([\d|]+)\)/m.exec(outcome)?.[1]?.split('|').map(Number);
    expect(passing).toEqual([...expected('done'), ...expected('later'), ...expected('again')]);
    expect(outcome).toMatch(/^\s*\*\) .*exit 1 ;;$/m);
  });
});
