import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startToolModelServer,
  type ToolModelServer,
  type ToolModelServerOptions,
} from '../fixtures/fake-model-tools.mjs';
import { events, read } from '../helpers.js';
import { editBoard, HELLO, installedVersion, startSupervisor, type MoreCli, type SeenPrompt } from './harness.js';
import { moreBoard, moreEnv, moreModel, plantedFile, promptSent } from './more-harness.js';

// What the CLI's 401 says, as the run's last line must quote it.
const REJECTED: Record<MoreCli, RegExp> = {
  opencode: /invalid x-api-key/,
  kilo: /invalid x-api-key/,
  copilot: /Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+ \(HTTP 401\)/,
};

// The role prompt a run of the board gives, its placeholders filled.
function filled(dir: string, role: string, task: string): string {
  const body = read(dir, `roles/${role}.md`).replace(/^---\n[\s\S]*?\n---\n/, '');
  return body.replaceAll('{{kanban_file}}', 'kanban.yaml').replaceAll('{{task_file}}', task).trimEnd();
}

// Kilo Code CLI takes 10 s a run on an idle machine (three times that on a busy one).
const BUDGET: Record<MoreCli, number> = { opencode: 150_000, copilot: 150_000, kilo: 360_000 };

const finished = (dir: string) => events(dir).filter((e) => e.type === 'attempt_finished');

/**
 * The opt-in suite for an agent CLI with a preset but no adapter (opencode, Copilot CLI, Kilo
 * Code CLI), run by `npm run test:clis` (test/clis/README.md): its preset role files on a board,
 * against the tool-calling fake model server (../fixtures/fake-model-tools.mjs).
 */
export function moreCliSuite(cli: MoreCli, live: Array<[mode: 'limit' | 'overloaded', kind: string, event: string]>) {
  describe(`the real ${cli} CLI with its preset roles, pointed at the fake model server`, () => {
    let server: ToolModelServer | undefined;
    const serve = async (options: ToolModelServerOptions) => (server = await startToolModelServer(options));
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    beforeAll(() => {
      installedVersion(cli);
    });

    it(
      `runs a board with the presets/${cli} roles to the end: a file written with ${cli}'s own tool, ` +
        `${plantedFile(cli) ? 'its own config folder refused, ' : ''}the Manager's bare JSON taken`,
      async () => {
        const seen: SeenPrompt[] = [];
        const where: { dir?: string; planted?: string } = {};
        const { url } = await serve({ turn: moreModel(cli, seen, where) });
        const env = moreEnv(cli, url);
        const dir = await moreBoard(cli, env);
        where.dir = dir;

        const validate = await startSupervisor(['validate', 'kanban.yaml'], env, dir);
        expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
        expect(run.stdout).toMatch(/Done: the board has no next task \(2 step\(s\)/);
        expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);

        // Two model runs, each given the role prompt as it is (on stdin: no quotes or escapes added): the
        // Manager, the shipped one in front of the model, picks the next task itself after an ok reply.
        expect(seen.map((s) => s.role)).toEqual(['Implementor', 'Architect']);
        expect(promptSent(cli, seen[0]?.prompt as string)).toBe(filled(dir, 'implementor', 'tasks/001-example.md'));
        expect(promptSent(cli, seen[1]?.prompt as string)).toBe(filled(dir, 'architect', 'tasks/002-review.md'));
        expect(read(dir, HELLO.file)).toBe(HELLO.content);
        expect(seen[0]?.toolResult).toBeDefined();
        // The preset's permissions keep the agent from writing what the CLI's next run would load.
        const own = plantedFile(cli);
        if (own) {
          expect(existsSync(path.join(dir, own))).toBe(false);
          expect(where.planted).toMatch(/rule which prevents you from using this specific tool call/);
        }
        expect(finished(dir).map((e) => [e.role, e.valid, e.via])).toEqual([
          ['Implementor', true, 'fenced'],
          ['Manager', true, 'whole'],
          ['Architect', true, 'fenced'],
          ['Manager', true, 'whole'],
        ]);
      },
      BUDGET[cli],
    );

    it(
      'stops with exit 2 at a rejected key, the 401 in the last line',
      async () => {
        await serve({ mode: 'unauthorized' });
        const env = moreEnv(cli, (server as ToolModelServer).url);
        const dir = await moreBoard(cli, env);
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, run.stderr).toBe(2);
        const last = run.stderr.trim().split('\n').at(-1) as string;
        expect(last).toMatch(new RegExp(`cannot work until someone logs in .*${REJECTED[cli].source}`));
        expect(finished(dir).map((e) => [e.role, e.failure])).toEqual([['Implementor', 'login']]);
      },
      BUDGET[cli],
    );

    it.each(live)(
      `stops ${cli} at the first answer in mode %s, which it retries by itself until the 30m timeout, ` +
        `then %s (a %s event) and the board finishes`,
      async (mode, kind, event) => {
        const seen: SeenPrompt[] = [];
        const where: { dir?: string } = {};
        await serve({ mode, failures: 1, resetSeconds: 600, turn: moreModel(cli, seen, where) });
        const env = moreEnv(cli, (server as ToolModelServer).url);
        const dir = (where.dir = await moreBoard(cli, env));
        editBoard(dir, (text) =>
          text.replace('  timeout: 30m\n', '  timeout: 30m\n  limit_wait: 1s\n  transient_backoff: 1s\n'),
        );
        const run = await startSupervisor(['kanban.yaml'], env, dir);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
        const [first, second] = finished(dir);
        expect(first).toMatchObject({ role: 'Implementor', end: 'gave-up', failure: kind });
        expect(first?.durationMs).toBeLessThan(30_000);
        expect(second).toMatchObject({ role: 'Implementor', attempt: 1, valid: true });
        expect(events(dir).filter((e) => e.type === event)).toHaveLength(1);
        expect(events(dir).filter((e) => e.type === 'retry')).toEqual([]);
      },
    );
  });
}
