import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PROSE_TEXT,
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../fixtures/fake-model-server.mjs';
import { processesIn, survivors } from '../hardening/procs.js';
import { agentFor } from '../../src/agents/index.js';
import { CLI, events, read } from '../helpers.js';
import {
  agentEnv,
  editBoard,
  modelOnEveryStep,
  HELLO,
  initBoard,
  installedVersion,
  scriptedModel,
  startSupervisor,
  startSupervisorOnTerminal,
  watchProcesses,
  type AgentCli,
  type SeenPrompt,
} from './harness.js';

/** How each CLI shows up in the process table while it runs. */
const PROCESSES: Record<AgentCli, RegExp[]> = {
  // A native binary, run directly.
  claude: [/^claude -p /],
  // A Node shim that becomes the native musl binary (process.execve, Node 22.15 and later).
  codex: [/vendor\/x86_64-unknown-linux-musl\/bin\/codex exec /],
  // Node, which re-launches itself with a bigger heap as its child.
  gemini: [/^node \S+\/\.bin\/gemini --prompt=/, /node --max-old-space-size=\d+ \S+\/\.bin\/gemini --prompt=/],
};

// What the shipped role file turns into for this task: the body with its placeholders filled.
function expectedPrompt(dir: string, role: string, values: Record<string, string>): string {
  const body = read(dir, `roles/${role}.md`).replace(/^---\n[\s\S]*?\n---\n/, '');
  return body.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] as string);
}

/** The opt-in suite for one real agent CLI, run by `npm run test:clis` (test/clis/README.md). */
export function agentCliSuite(agent: AgentCli): void {
  describe(`the real ${agent} CLI, pointed at the fake model server`, () => {
    let server: FakeModelServer | undefined;
    const serve = async (options: FakeModelServerOptions) => (server = await startFakeModelServer(options));
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    beforeAll(() => {
      installedVersion(agent);
    });

    it(
      `runs a board made by init --agent ${agent} to completion, each role a real ${agent} run, ` +
        `the Implementor writing a file without being asked for permission`,
      async () => {
        const seen: SeenPrompt[] = [];
        const where: { dir?: string } = {};
        const { url } = await serve({ mode: 'reply', text: scriptedModel(seen, where) });
        const env = agentEnv(agent, url);
        const dir = await initBoard(agent, env);
        where.dir = dir;

        const validate = await startSupervisor(['validate', 'kanban.yaml'], env, dir);
        expect(validate.stdout).toMatch(
          /kanban\.yaml: OK — 2 task file\(s\) and 3 role file\(s\) \(Implementor, Architect, Manager\) checked\./,
        );
        expect(validate.exitCode).toBe(0);

        const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
        expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
        expect(run.stdout).toMatch(/Done: the board has no next task \(2 step\(s\)/);
        const board = read(dir, 'kanban.yaml');
        expect(board).toMatch(/^current: null$/m);
        expect(board).toMatch(/^phase: complete$/m);

        // Two real runs of the CLI, each given exactly the filled-in role prompt: the workers'. Their
        // replies are ok, so the Manager (the shipped sequential one in front of the CLI) moves on
        // without a model run.
        expect(seen.map((s) => s.role)).toEqual(['Implementor', 'Architect']);
        const tasks = ['tasks/001-example.md', 'tasks/002-review.md'];
        const [implementor, architect] = seen.map((s) => s.prompt);
        expect(implementor).toBe(
          expectedPrompt(dir, 'implementor', { kanban_file: 'kanban.yaml', task_file: tasks[0] as string }),
        );
        expect(architect).toBe(
          expectedPrompt(dir, 'architect', { kanban_file: 'kanban.yaml', task_file: tasks[1] as string }),
        );
        // The preset's permission flags let the CLI's own file tool write in the board folder.
        expect(read(dir, HELLO.file)).toBe(HELLO.content);
        expect(seen[0]?.toolResult).toBeDefined();
        const accepted = events(dir).filter((e) => e.type === 'attempt_finished');
        expect(accepted.map((e) => [e.role, e.attempt, e.valid, e.via])).toEqual([
          ['Implementor', 1, true, VIA[agent]],
          ['Manager', 1, true, 'whole'],
          ['Architect', 1, true, VIA[agent]],
          ['Manager', 1, true, 'whole'],
        ]);
      },
    );

    it(`hands a worker's blocked reply to the model Manager: ${agent} is run with the Manager's prompt`, async () => {
      const seen: SeenPrompt[] = [];
      const where: { dir?: string } = {};
      const scripted = scriptedModel(seen, where);
      // The Implementor is blocked; the Manager (the model) answers as its prompt asks, escalating.
      await serve({
        mode: 'reply',
        text: (request) => {
          const answer = scripted(request);
          const role = seen.at(-1)?.role;
          if (role === 'Implementor' && typeof answer === 'string')
            return `\`\`\`json\n${JSON.stringify({ status: 'blocked', message: 'Which port?' })}\n\`\`\`\n`;
          if (role === 'Manager')
            return `\`\`\`json\n${JSON.stringify({ status: 'escalate', message: 'Which port? Ask a person.', next_task: 'tasks/001-example.md', tasks: ['tasks/001-example.md'] })}\n\`\`\`\n`;
          return answer;
        },
      });
      const env = agentEnv(agent, url());
      const dir = await initBoard(agent, env);
      where.dir = dir;
      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
      expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(4);
      expect(seen.map((s) => s.role)).toEqual(['Implementor', 'Manager']);
      expect(seen[1]?.prompt).toContain('The reply: {"status":"blocked","message":"Which port?"}');
      expect(run.stderr).toContain('Which port? Ask a person.');
    });

    it('retries a model answering in prose with the same invocation, logs each retry, stops with exit 3', async () => {
      await serve({ mode: 'prose' });
      const env = agentEnv(agent, url());
      const dir = await initBoard(agent, env);
      // Codex's placeholder reply (the strict schema's least) is ok: a model Manager's placeholder is the failure.
      if (agent === 'codex') modelOnEveryStep(dir);
      const before = read(dir, 'kanban.yaml');
      const prose = PROSE[agent];

      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(prose.stderr);
      const log = read(dir, 'supervisor.log.md');
      expect(log.match(/^### \S+ Retry Event$/gm)).toHaveLength(3);
      for (const n of [1, 2, 3])
        expect(log).toContain(
          `**Attempt:** ${n}/3 (attempt ${n}/4 failed; retry ${n} of 3 follows as attempt ${n + 1}/4)`,
        );
      expect(log).toContain(prose.received[0]);
      expect(log).toContain(prose.received[1]);
      expect(log).toContain('**Action:** Rescheduling with exact same parameters');
      const attempts = events(dir).filter((e) => e.type === 'attempt_started');
      expect(attempts.map((e) => e.role)).toEqual([...(agent === 'codex' ? ['Implementor'] : []), ...prose.roles]);
      expect(new Set(attempts.slice(-4).map((e) => e.command)).size).toBe(1);
      expect(read(dir, 'kanban.yaml')).toBe(before);
      expect(generationRequests()).toBe(prose.requests);
    });

    it(
      'kills the CLI and every process it started when the model never answers, at the board timeout, ' +
        'on each attempt, and never gives it the terminal',
      async () => {
        await serve({ mode: 'hang' });
        const env = agentEnv(agent, url());
        const dir = await initBoard(agent, env);
        editBoard(dir, (text) =>
          text.replace('  max_retries: 3\n  timeout: 30m\n', '  max_retries: 1\n  timeout: 10s\n  kill_grace: 2s\n'),
        );

        const started = Date.now();
        const terminal = startSupervisorOnTerminal(['kanban.yaml'], env, dir);
        const processes = await watchProcesses(terminal.pid as number, dir, terminal);
        const run = await terminal;
        const seconds = (Date.now() - started) / 1000;

        expect(run.exitCode, run.stdout).toBe(3);
        expect(run.stdout).toMatch(
          new RegExp(
            String.raw`Implementor gave no valid reply for tasks\/001-example\.md in 2 attempt\(s\); ` +
              String.raw`the last one timed out after 10\.0s and was killed with SIG(TERM|KILL)`,
          ),
        );
        // The CLI got as far as asking the model both times: the wait was on the model, not on start-up.
        expect(generationRequests()).toBe(2);
        expect(
          events(dir)
            .filter((e) => e.type === 'attempt_finished')
            .map((e) => e.end),
        ).toEqual(['timeout', 'timeout']);
        expect(read(dir, 'supervisor.log.md')).toMatch(
          /\*\*Issue:\*\* Invalid output format: Implementor \(.*\) timed out after 10\.0s/,
        );
        expect(seconds).toBeLessThan(2 * (10 + 2) + 15);

        // Every process of both attempts (the CLI, the children named in PROCESSES, whatever they
        // started) is gone, by pid. At least one of each shape per attempt: a child caught between
        // fork and exec still shows its parent's command line.
        const supervisor = processes.filter((p) => p.cmdline.endsWith(`${CLI} kanban.yaml`));
        expect(supervisor).toHaveLength(1);
        const agents = processes.filter((p) => p.pid !== terminal.pid && p.pid !== supervisor[0]?.pid);
        for (const shape of PROCESSES[agent]) {
          expect(
            agents.filter((p) => shape.test(p.cmdline)).length,
            `${shape} in ${JSON.stringify(agents.map((p) => p.cmdline.slice(0, 120)))}`,
          ).toBeGreaterThanOrEqual(2);
        }
        expect(await survivors(agents.map((p) => p.pid))).toEqual([]);
        expect(processesIn(dir)).toEqual([]);
        // The supervisor ran on the terminal; no agent process had it (a login or permission
        // prompt could not reach the person, so it could only wait, until the timeout).
        expect(supervisor[0]?.tty).toBeGreaterThan(0);
        expect(agents.filter((p) => p.tty !== 0)).toEqual([]);
      },
    );

    it(
      'stops at the first attempt with exit 2 and how to log in when nobody is logged in to the CLI, ' +
        'and the --on-halt hook runs',
      async () => {
        await serve({ mode: 'reply' });
        const env = agentEnv(agent, url(), { key: false });
        const dir = await initBoard(agent, env);
        const before = read(dir, 'kanban.yaml');

        const run = await startSupervisor(['kanban.yaml', '--timeout', '60s', '--on-halt', 'touch halted'], env, dir);
        expect(run.exitCode, run.stderr).toBe(2);
        expect(run.stderr).toContain(agentFor([agent]).loginHint);
        const finished = events(dir).filter((e) => e.type === 'attempt_finished');
        expect(finished).toHaveLength(1);
        expect(finished[0]).toMatchObject({ failure: 'login', issue: expect.stringMatching(LOGIN_ISSUE[agent]) });
        expect(read(dir, 'supervisor.log.md')).toMatch(/Halt[\s\S]*Login missing or rejected/);
        expect(read(dir, 'halted')).toBe('');
        expect(read(dir, 'kanban.yaml')).toBe(before);
        expect(generationRequests()).toBe(0);
      },
    );

    it('waits out a usage limit that resets in seconds and completes the board, with no retry spent', async () => {
      const seen: SeenPrompt[] = [];
      const where: { dir?: string } = {};
      await serve({ mode: 'limit', failures: 1, resetSeconds: 3, text: scriptedModel(seen, where) });
      const env = agentEnv(agent, url(), { subscription: true, ownRetries: false });
      const dir = await initBoard(agent, env);
      where.dir = dir;
      const started = Date.now();
      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
      expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
      expect(read(dir, 'kanban.yaml')).toMatch(/^current: null$/m);
      const all = events(dir);
      expect(all.filter((e) => e.type === 'retry')).toEqual([]);
      const wait = all.find((e) => e.type === 'limit_wait');
      expect(wait).toMatchObject({ role: 'Implementor', cli: agent });
      // Claude Code's rate_limit_event gives the reset to the second: the wait is until then (and the
      // 30 s margin), read from that structured signal, not from the minute its words show.
      if (agent === 'claude') {
        const limited = all.find((e) => e.type === 'attempt_finished' && e.failure === 'usage_limit');
        const signal = read(dir, String(limited?.stdoutFile))
          .split('\n')
          .find((line) => line.includes('"rate_limit_event"'));
        const resetsAt = (JSON.parse(String(signal)) as { rate_limit_info: { resetsAt: number } }).rate_limit_info
          .resetsAt;
        expect(Date.parse(String(wait?.until))).toBe(resetsAt * 1000 + 30_000);
      }
      expect(all.filter((e) => e.type === 'limit_resumed')).toHaveLength(1);
      expect(all.filter((e) => e.type === 'attempt_finished').map((e) => [e.role, e.failure ?? e.valid])).toEqual([
        ['Implementor', 'usage_limit'],
        ['Implementor', true],
        ['Manager', true],
        ['Architect', true],
        ['Manager', true],
      ]);
      // It waited for the reset (Claude and Codex show it to the minute), not a whole timeout.
      expect(Date.now() - started).toBeLessThan(150_000);
    });

    it('stops with exit 5 once the budget is reached, the spend in the message', async () => {
      await serve({ mode: 'reply', text: scriptedModel([], {}), usage: { input: 40_000, output: 500 } });
      const env = agentEnv(agent, url());
      const dir = await initBoard(agent, env);
      // Claude Code prices its runs ($0.2125 a call here); the others report tokens only. Each Claude
      // call is handed --max-budget-usd: what is left of the run's budget (claude.test.ts: a worker
      // stopped at its share).
      const budget = agent === 'claude' ? ['--max-cost', '0.3'] : [];
      if (agent !== 'claude')
        editBoard(dir, (text) => text.replace('  max_retries: 3\n', '  max_retries: 3\n  max_tokens: 1000\n'));
      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s', ...budget], env, dir);
      expect(run.exitCode, run.stderr).toBe(5);
      expect(run.stderr).toMatch(
        agent === 'claude'
          ? /Stopped: this run's agents have spent \$[\d.]+, [\d.]+k tokens, reaching max_cost_usd \(\$0\.3\)/
          : /Stopped: this run's agents have spent [\d.]+k tokens, reaching max_tokens \(1000\)/,
      );
      // Checked between steps: the worker's paid reply reached the Manager, whose answer is written. The
      // Manager's turn after an ok reply costs nothing (no model run), so Claude's $0.30 is reached in the
      // second step, whose worker is handed what is left and stops at it.
      expect(events(dir).filter((e) => e.type === 'attempt_finished')).toHaveLength(agent === 'claude' ? 3 : 2);
      expect(events(dir).find((e) => e.type === 'attempt_finished')?.usage).toMatchObject({
        inputTokens: expect.any(Number),
      });
    });

    const url = () => (server as FakeModelServer).url;
    // Model turns asked for; Claude's HEAD probe and Gemini's schema-bound router call are not turns.
    const generationRequests = () =>
      (server as FakeModelServer).requests.filter((r) =>
        /^POST \/(v1\/messages|v1\/responses|v1beta\/models\/[^:]+:streamGenerateContent)/.test(r),
      ).length;
  });
}

// Where a valid reply was found: Claude Code's structured_output and Codex's final message, both held
// to the reply schema the preset hands them (cli_schema: true); Gemini CLI's text, which takes none.
const VIA: Record<AgentCli, string> = { claude: 'claude', codex: 'codex > whole', gemini: 'gemini > fenced' };

// A model answering in prose. Claude Code asks it once more to call its StructuredOutput tool (two
// model requests a run), then ends with the prose as its result. Codex's API holds the answer to the
// schema, so a model with nothing to say gives the smallest object it allows: a schema-valid
// placeholder. The Implementor's goes to the Manager as it is (the supervisor never judges content);
// the Manager's names a next task ("fake") not in its task list, which the supervisor's own check
// refuses: a format question, retried like prose.
const PROSE: Record<AgentCli, { stderr: RegExp; received: [string, string]; roles: string[]; requests: number }> = {
  claude: inProse('claude', 8),
  codex: {
    stderr: new RegExp(
      String.raw`Manager gave no valid reply for tasks\/001-example\.md in 4 attempt\(s\); ` +
        String.raw`the last one replied in the wrong format: \/next_task "fake" is not in \/tasks`,
    ),
    received: ['"next_task": "fake"', '"message": "fake"'],
    roles: Array(4).fill('Manager') as string[],
    requests: 5,
  },
  gemini: inProse('gemini', 4),
};

// The Implementor's four runs in prose, the prose's start and end in the log (a stream may carry
// the text in pieces: Gemini CLI's message deltas).
function inProse(agent: AgentCli, requests: number): (typeof PROSE)[AgentCli] {
  return {
    stderr: new RegExp(
      `Implementor gave no valid reply for tasks/001-example\\.md in 4 attempt\\(s\\); ` +
        `the last one printed no JSON reply object .*\\(in the ${agent} result text\\)`,
    ),
    received: [PROSE_TEXT.slice(0, 24), PROSE_TEXT.slice(-24)],
    roles: Array(4).fill('Implementor') as string[],
    requests,
  };
}

// Each CLI's own words for a missing login, as the supervisor reports them.
const LOGIN_ISSUE: Record<AgentCli, RegExp> = {
  claude: /reported an error as Claude Code: Not logged in/,
  codex: /reported an error as codex: Missing environment variable: `OPENAI_API_KEY`/,
  gemini: new RegExp(
    String.raw`printed nothing on stdout \(exit code 41\); stderr: When using Gemini API, ` +
      String.raw`you must specify the GEMINI_API_KEY environment variable`,
  ),
};
