import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type WriteTurn } from '../fixtures/fake-model-server.mjs';
import { startToolModelServer, type ToolTurn } from '../fixtures/fake-model-tools.mjs';
import { processesIn } from '../hardening/procs.js';
import { events, read, ROOT, tempDir } from '../helpers.js';
import {
  agentEnv,
  editBoard,
  HELLO,
  initBoard,
  installedVersion,
  scriptedModel,
  startSupervisor,
  type SeenPrompt,
} from './harness.js';
import { moreBoard, moreEnv, moreModel } from './more-harness.js';

/** The agent CLIs run here over the Agent Client Protocol (protocol: acp), each as the worker. */
export type AcpCli = 'opencode' | 'kilo' | 'copilot' | 'gemini';

// What each CLI's ACP agent says of a 401, as the run's last line must quote it.
const REJECTED: Record<AcpCli, RegExp> = {
  opencode: /invalid x-api-key/,
  kilo: /invalid x-api-key/,
  copilot: /401|Authentication failed/,
  gemini: /API key not valid|401|UNAUTHENTICATED/i,
};

// `opencode acp` took 90 s to reply in a fresh HOME on a machine running 9 processes per core;
// Kilo Code CLI takes three times opencode's time.
const BUDGET: Record<AcpCli, number> = { opencode: 420_000, copilot: 420_000, gemini: 420_000, kilo: 600_000 };

// Gemini CLI has no ACP preset (its headless mode is the better route, docs/agent-clis.md): the role a user would
// write.
function geminiAcpRole(): string {
  const native = readFileSync(path.join(ROOT, 'presets', 'gemini', 'implementor.md'), 'utf8');
  return `---\ncommand: [gemini, --acp]\nprotocol: acp\n---\n${native.replace(/^---\n[\s\S]*?\n---\n/, '')}`;
}

type Mode = 'reply' | 'hang' | 'unauthorized' | 'prose';
type Turn = (request: { body: unknown; index: number; toolResult?: string }) => string | ToolTurn;

// opencode and Kilo ask the model for a session title first (their `run` is told one with --title; ACP is not).
const isTitle = (body: unknown) => /Generate a title for this conversation/.test(JSON.stringify(body));

/**
 * The fake model server the CLI reaches, its environment and a one-task board made as a user makes
 * it (init, the CLI's native preset roles), whose Implementor is the CLI's ACP role
 * (presets/<cli>-acp/implementor.md; Gemini's written here) and whose Manager stays the native preset.
 */
async function setUp(cli: AcpCli, mode: Mode, turn?: (dir: string) => Turn) {
  const seen: SeenPrompt[] = [];
  const where: { dir?: string; planted?: string } = {};
  let server: { url: string; close: () => Promise<void> };
  let env: Record<string, string>;
  let dir: string;
  if (cli === 'gemini') {
    const text = turn ? (request: { body: unknown; index: number }) => turn(where.dir as string)(request) : undefined;
    server = await startFakeModelServer({ mode, text: (text as never) ?? scriptedModel(seen, where) });
    env = agentEnv('gemini', server.url);
    dir = await initBoard('gemini', env);
    writeFileSync(path.join(dir, 'roles', 'implementor.md'), geminiAcpRole());
  } else {
    const scripted = moreModel(cli, seen, where);
    const own: Turn = (request) =>
      isTitle(request.body) ? 'A title' : turn ? turn(where.dir as string)(request) : scripted(request as never);
    server = await startToolModelServer({ mode: mode === 'prose' ? 'reply' : mode, turn: own });
    env = moreEnv(cli, server.url);
    dir = await moreBoard(cli, env);
    writeFileSync(
      path.join(dir, 'roles', 'implementor.md'),
      readFileSync(path.join(ROOT, 'presets', `${cli}-acp`, 'implementor.md')),
    );
  }
  where.dir = dir;
  // One task: the Implementor's (each ACP start-up is slow on a busy machine).
  editBoard(dir, (text) => text.replace(/^ {2}- tasks\/002-review\.md\n/m, ''));
  return { server, env, dir, seen, where };
}

const finished = (dir: string) => events(dir).filter((e) => e.type === 'attempt_finished');
const acpOf = (event: Record<string, unknown> | undefined) =>
  event?.acp as { stopReason?: string; error?: string; permissions: Array<Record<string, unknown>> } | undefined;

/**
 * The opt-in suite of one agent CLI spoken to over ACP (npm run test:clis): the real CLI from npm
 * against the local fake model server, as the worker of a board whose Manager is its native preset.
 */
export function acpCliSuite(cli: AcpCli): void {
  describe(`the real ${cli} over the Agent Client Protocol (protocol: acp), pointed at the fake model server`, () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await close?.();
      close = undefined;
    });
    // `--version` alone took over its 30 s on a machine running 10 processes per core: asked again then.
    beforeAll(() => {
      for (let tries = 1; ; tries++) {
        try {
          return void installedVersion(cli);
        } catch (error) {
          if (tries === 3 || !/ETIMEDOUT/.test(String(error))) throw error;
        }
      }
    }, 120_000);

    it(
      `a board to the end: ${cli}'s ACP Implementor writes a file, the policy allowing it; the native Manager finishes`,
      async () => {
        const { server, env, dir } = await setUp(cli, 'reply');
        close = server.close;
        const validate = await startSupervisor(['validate', 'kanban.yaml'], env, dir);
        expect(validate.exitCode, validate.stdout + validate.stderr).toBe(0);
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
        expect(run.stdout).toMatch(/Done: the board has no next task \(1 step\(s\)/);
        expect(read(dir, HELLO.file)).toBe(HELLO.content);
        const [worker, manager] = finished(dir);
        expect([worker?.role, worker?.valid, manager?.role, manager?.valid]).toEqual([
          'Implementor',
          true,
          'Manager',
          true,
        ]);
        // The worker spoke ACP (its turn ended with a stop reason); the Manager ran as its native preset.
        expect(acpOf(worker)?.stopReason).toBe('end_turn');
        expect(acpOf(manager)).toBeUndefined();
        // Where the CLI asked before writing, the policy allowed the write in the board folder.
        for (const asked of acpOf(worker)?.permissions ?? []) expect(asked).toMatchObject({ allowed: true });
        expect(processesIn(dir)).toEqual([]);
      },
      BUDGET[cli],
    );

    it(
      'garbage: a reply without a JSON object is invalid output, exit 3, the board unchanged',
      async () => {
        const { server, env, dir } = await setUp(cli, 'prose', () => () => 'I looked at the task and it is done.');
        close = server.close;
        editBoard(dir, (text) => text.replace('  max_retries: 3\n', '  max_retries: 0\n'));
        const board = read(dir, 'kanban.yaml');
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(3);
        expect(run.stderr).toMatch(/Implementor gave no valid reply for tasks\/001-example\.md in 1 attempt\(s\)/);
        expect(read(dir, 'kanban.yaml')).toBe(board);
        expect(acpOf(finished(dir)[0])?.stopReason).toBe('end_turn');
        expect(processesIn(dir)).toEqual([]);
      },
      BUDGET[cli],
    );

    it(
      'a hang: the model never answers; at the timeout session/cancel, then the group is killed, nothing left',
      async () => {
        const { server, env, dir } = await setUp(cli, 'hang');
        close = server.close;
        editBoard(dir, (text) =>
          text.replace('  max_retries: 3\n  timeout: 30m\n', '  max_retries: 0\n  timeout: 150s\n  kill_grace: 2s\n'),
        );
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(3);
        expect(run.stderr).toMatch(/the last one timed out after 2m30s and was killed with SIG(TERM|KILL)/);
        expect(finished(dir).map((e) => e.end)).toEqual(['timeout']);
        expect(processesIn(dir)).toEqual([]);
      },
      BUDGET[cli],
    );

    it(
      "a 401 from the model API: exit 2 at once, the last line quoting the agent's words",
      async () => {
        const { server, env, dir } = await setUp(cli, 'unauthorized');
        close = server.close;
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(2);
        const last = run.stderr.trim().split('\n').at(-1) as string;
        expect(last).toMatch(new RegExp(`cannot work until someone logs in .*${REJECTED[cli].source}`, 'i'));
        expect(finished(dir).map((e) => [e.role, e.failure])).toEqual([['Implementor', 'login']]);
        expect(processesIn(dir)).toEqual([]);
      },
      BUDGET[cli],
    );

    it(
      'a permission request answered by the policy: a write outside the board folder is refused, never made',
      async () => {
        const outside = path.join(tempDir('ks-outside-'), 'outside.txt');
        const write = (dir: string, file: string): ToolTurn | WriteTurn =>
          cli === 'gemini'
            ? { write: { file, content: 'x\n' } }
            : cli === 'copilot'
              ? { tool: { name: 'create', input: { path: file, file_text: 'x\n' } } }
              : { tool: { name: 'write', input: { filePath: file, content: 'x\n' } } };
        const reply = '```json\n{"status": "ok", "message": "tried"}\n```';
        const { server, env, dir } = await setUp(cli, 'reply', (board) => (request) => {
          if (/"Task just worked on|You are the Manager/.test(JSON.stringify(request.body)))
            return scriptedModel([], {})(request as never) as string;
          return request.toolResult === undefined ? (write(board, outside) as ToolTurn) : reply;
        });
        close = server.close;
        editBoard(dir, (text) => text.replace('  max_retries: 3\n', '  max_retries: 0\n'));
        const run = await startSupervisor(['kanban.yaml'], env, dir, BUDGET[cli] - 10_000);
        // Told no, an agent may carry on to its reply (opencode) or end its turn without one (Copilot CLI).
        expect([0, 3], `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toContain(run.exitCode);
        expect(existsSync(outside)).toBe(false);
        // Refused for its path (an edit naming it), or for its kind (opencode asks `external_directory`, kind other).
        const asked = acpOf(finished(dir)[0])?.permissions ?? [];
        // Gemini CLI (0.61.0) asks nothing for a path outside its workspace (the board folder): it does not write it.
        if (cli === 'gemini') return void expect(asked).toEqual([]);
        const refused = asked.filter((entry) => entry.allowed === false);
        expect(refused.length, JSON.stringify(asked)).toBeGreaterThan(0);
        expect(JSON.stringify(refused)).toContain(path.dirname(outside));
        expect(asked.filter((entry) => entry.allowed === true)).toEqual([]);
      },
      BUDGET[cli],
    );
  });
}
