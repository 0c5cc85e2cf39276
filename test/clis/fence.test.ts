import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fake-model-server.mjs';
import { OWNER, reachableByAll } from '../hardening/fenced-users.js';
import { processesIn } from '../hardening/procs.js';
import { events, read, ROOT } from '../helpers.js';
import {
  agentEnv,
  HELLO,
  initBoard,
  installedVersion,
  scriptedModel,
  startSupervisor,
  type AgentCli,
  type SeenPrompt,
} from './harness.js';

// Each agent CLI from the npm registry, run by the supervisor inside the fence its preset declares.
// A checkout (with the CLIs installed in it) or a Node kept under /tmp, as in a CI's mktemp -d
// folder, is hidden by the fence's own /tmp: then it is declared too, so the CLI can be found.
const UNDER_TMP = [ROOT, path.dirname(realpathSync(process.execPath))]
  .map((p) => realpathSync(p))
  .filter((p) => p.startsWith('/tmp/'));
const homes: string[] = [];
afterAll(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

describe.skipIf(!existsSync('/usr/bin/bwrap'))(
  "a real agent CLI inside its preset's fence (sandbox:), pointed at the fake model server",
  () => {
    let server: FakeModelServer | undefined;
    let restore = () => {};
    beforeAll(() => {
      for (const agent of ['claude', 'codex', 'gemini'] as const) installedVersion(agent);
      // The fenced agent may run as another user than the supervisor (the board folder's owner, when root runs it).
      restore = reachableByAll([
        process.execPath,
        path.join(ROOT, 'dist/cli.js'),
        path.join(ROOT, 'test/clis/package.json'),
      ]);
    });
    afterAll(() => restore());
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it.each([
      ['claude', 'with its own files there, gets a copy of them and writes nothing in the home folder', true],
      [
        'claude',
        'on a home where it never ran (no ~/.claude), still works and leaves the home folder as it was; validate warns',
        false,
      ],
      ['codex', 'gets a copy of its own files and writes nothing in the home folder', true],
      ['gemini', 'gets a copy of its own files and writes nothing in the home folder', true],
    ] as Array<[AgentCli, string, boolean]>)(
      '%s runs the init board to completion, writing its file in the board folder; %s',
      async (agent, _what, own) => {
        const seen: SeenPrompt[] = [];
        const where: { dir?: string } = {};
        server = await startFakeModelServer({ mode: 'reply', text: scriptedModel(seen, where) });
        const env = agentEnv(agent, server.url);
        // A home outside /tmp (the fence's /tmp is a fresh one, which would hide a home inside it),
        // with the CLI's offline config.
        const home = mkdtempSync('/var/tmp/ks-cli-home-');
        homes.push(home);
        cpSync(env.HOME as string, home, { recursive: true });
        mkdirSync(path.join(home, '.ssh'));
        writeFileSync(path.join(home, '.ssh/id_rsa'), "the owner's key\n");
        env.HOME = home;
        const dir = await initBoard(agent, env);
        where.dir = dir;
        for (const name of readdirSync(path.join(dir, 'roles'))) {
          const file = path.join(dir, 'roles', name);
          writeFileSync(
            file,
            readFileSync(file, 'utf8').replace(
              /^# (sandbox: \{copy: .*\])\}$/m,
              (_line, start: string) =>
                `${start}${UNDER_TMP.length ? `, read: [${UNDER_TMP.map((p) => JSON.stringify(p)).join(', ')}]` : ''}}`,
            ),
          );
        }
        if (own && agent === 'claude') {
          mkdirSync(path.join(home, '.claude'));
          writeFileSync(path.join(home, '.claude.json'), '{}\n');
        }
        if (process.getuid?.() === 0) {
          // Run by root, a fenced agent runs as the board folder's owner: the board and the home are an ordinary
          // user's.
          chmodSync(path.dirname(dir), 0o755);
          for (const mine of [dir, home]) execFileSync('chown', ['-R', `${OWNER}:${OWNER}`, mine]);
        }
        const before = readdirSync(home).sort();
        const listing = (dir: string) =>
          existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort().join('\n') : '';
        const ownBefore = listing(path.join(home, `.${agent}`));

        const validate = await startSupervisor(['validate', 'kanban.yaml'], env, dir);
        expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
        if (!own)
          expect(validate.stdout + validate.stderr).toMatch(
            /roles\/implementor\.md:\d+: sandbox: the copied path ~\/\.claude does not exist/,
          );
        const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
        expect(run.stdout).toMatch(/Done: the board has no next task \(2 step\(s\)/);
        // The Manager (the shipped one in front of the model) asks no model after an ok reply.
        expect(seen.map((s) => s.role)).toEqual(['Implementor', 'Architect']);
        expect(read(dir, HELLO.file)).toBe(HELLO.content);
        expect(
          events(dir)
            .filter((e) => e.type === 'attempt_finished')
            .map((e) => e.valid),
        ).toEqual([true, true, true, true]);
        // It wrote into a copy of its own files (copy:), thrown away: the user's are as they were, and
        // nothing new beside them in the home folder.
        expect(listing(path.join(home, `.${agent}`))).toBe(ownBefore);
        expect(readdirSync(home).sort()).toEqual(before);
        expect(processesIn(dir)).toEqual([]);
      },
    );
  },
);
