import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAttempt } from '../../src/agent/attempt.js';
import { buildInvocation } from '../../src/agent/invocation.js';
import { parseRole } from '../../src/board/role.js';
import { OutputStore } from '../../src/log/output-store.js';
import { boardWithTasks, events, makeBoard, read, runCli, SEQUENTIAL_MANAGER, tempDir } from '../helpers.js';
import { fixture, isRunning, processesIn, survivors } from './procs.js';

const AGENT = fixture('acp-agent.mjs');

/** A `protocol: acp` role running the fake ACP agent (test/fixtures/agents/acp-agent.mjs) in `mode`. */
function acpRole(mode: string, record?: string, extra = ''): string {
  const argv = ['node', AGENT, mode, ...(record ? [record] : [])];
  return `---\ncommand: ${JSON.stringify(argv)}\nprotocol: acp\n${extra}---\nDo {{task_file}}.\nThen reply.\n`;
}

/** One attempt of the role in `dir`, run in-process through the attempt's own code (a real agent process). */
async function attempt(dir: string, text: string, limits: { timeoutMs?: number } = {}) {
  const check = parseRole('roles/implementor.md', 'Implementor', text);
  if (!check.role) throw new Error(JSON.stringify(check.problems));
  const invocation = buildInvocation(
    check.role,
    { role: 'Implementor', kanban_file: 'kanban.yaml', task_file: 'tasks/001.md' },
    {
      boardDir: dir,
      env: process.env,
      limits: { timeoutMs: limits.timeoutMs ?? 20_000, idleTimeoutMs: null, killGraceMs: 1_000 },
      tag: `ks1-acptest${Date.now().toString(16)}-1-Implementor`,
      own: ['kanban.yaml', 'supervisor.log.md', 'roles', '.kanban-supervisor'],
    },
  );
  const store = new OutputStore(dir, 'run-1', { runs: 5, bytes: 1e9, attempts: 100 });
  const files = store.open(1, 'Implementor', 1, 'tasks/001.md');
  const stop = { interrupt: new AbortController().signal, force: new AbortController().signal };
  const result = await runAttempt(invocation, files, { stop, dir });
  return { result, invocation };
}

// The pids the fake agent recorded: its own and its grandchild's.
function recordedPids(record: string): number[] {
  return readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { pid?: number; grandchild?: number })
    .flatMap((entry) => [entry.pid ?? [], entry.grandchild ?? []].flat());
}

// The messages the fake agent received, in order (its record file: its pid first, then each line).
function received(record: string): Array<{ method?: string; params?: Record<string, unknown> }> {
  return readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> })
    .filter((message) => message.method !== undefined);
}

describe('protocol: acp, one attempt against a real process speaking ACP on its stdio', () => {
  it('sends initialize, session/new in the board folder and one session/prompt; the reply is the message text', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'record.jsonl');
    const { result } = await attempt(dir, acpRole('reply', record));
    expect(result.end).toBe('exited');
    expect(result.stdout).toBe('Done. {"status":"ok","message":"Do tasks/001.md."}');
    expect(result.usage).toEqual({ costUsd: 0.02 });
    expect(result.acp).toEqual({ stopReason: 'end_turn', permissions: [] });
    const messages = received(record);
    expect(messages.map((m) => m.method)).toEqual(['initialize', 'session/new', 'session/prompt']);
    // No file-system or terminal capability is offered; no MCP server unless the role declares one.
    expect(messages[0]?.params).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    expect(messages[1]?.params).toEqual({ cwd: dir, mcpServers: [] });
    expect(messages[2]?.params).toEqual({
      sessionId: 'session-1',
      prompt: [{ type: 'text', text: 'Do tasks/001.md.\nThen reply.\n' }],
    });
  });

  it('hands the session the MCP servers the role declares', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'record.jsonl');
    const servers = 'mcp_servers: [{name: docs, command: /usr/bin/docs-mcp, args: [--stdio], env: {TOKEN: x}}]\n';
    await attempt(dir, acpRole('reply', record, servers));
    expect(received(record)[1]?.params).toEqual({
      cwd: dir,
      mcpServers: [
        { name: 'docs', command: '/usr/bin/docs-mcp', args: ['--stdio'], env: [{ name: 'TOKEN', value: 'x' }] },
      ],
    });
  });

  it('a hang: session/cancel at the timeout, then the group is killed; nothing is left', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'record.jsonl');
    const { result } = await attempt(dir, acpRole('hang', record), { timeoutMs: 1_500 });
    expect(result.end).toBe('timeout');
    expect(result.killedWith).toMatch(/^SIG(TERM|KILL)$/);
    expect(received(record).map((m) => m.method)).toEqual([
      'initialize',
      'session/new',
      'session/prompt',
      'session/cancel',
    ]);
    expect(await survivors(recordedPids(record))).toEqual([]);
  });

  it('answers permission requests by the default policy: a write in the board folder allowed, one outside refused', async () => {
    const dir = tempDir();
    const { result } = await attempt(dir, acpRole('permission'));
    expect(result.stdout).toBe('{"status":"ok","message":"inside.txt=allowed outside.txt=refused"}');
    expect(read(dir, 'inside.txt')).toBe('written\n');
    expect(existsSync('/etc/outside.txt')).toBe(false);
    expect(result.acp?.permissions).toEqual([
      { tool: `Write ${dir}/inside.txt`, kind: 'edit', allowed: true, why: 'inside the board folder' },
      {
        tool: 'Write /etc/outside.txt',
        kind: 'edit',
        allowed: false,
        why: '/etc/outside.txt is outside the board folder',
      },
    ]);
  });

  it("a role's policy without edit refuses even the write in the board folder", async () => {
    const dir = tempDir();
    const { result } = await attempt(dir, acpRole('permission', undefined, 'permissions: {allow: [read]}\n'));
    expect(result.stdout).toBe('{"status":"ok","message":"inside.txt=refused outside.txt=refused"}');
    expect(existsSync(path.join(dir, 'inside.txt'))).toBe(false);
    expect(result.acp?.permissions.map((p) => p.why)).toEqual([
      "kind edit is not in the role's permissions.allow",
      "kind edit is not in the role's permissions.allow",
    ]);
  });

  it("a JSON-RPC error quoting the model API's 401 is a login failure in the agent's words", async () => {
    const dir = tempDir();
    const { result } = await attempt(dir, acpRole('rejected'));
    expect(result.failure).toMatchObject({
      kind: 'login',
      cli: 'acp-agent',
      detail: expect.stringMatching(/401.*invalid x-api-key/),
    });
    expect(result.stderrTail).toMatch(/^ACP session\/prompt failed \(JSON-RPC -32603\): Internal error: 401 /m);
  });

  it("ACP's auth_required answer to session/new is a login failure", async () => {
    const { result } = await attempt(tempDir(), acpRole('auth'));
    expect(result.failure).toMatchObject({ kind: 'login', detail: 'Authentication required' });
  });

  it('an agent that dies before its turn ends gives no reply and no failure kind (a format retry)', async () => {
    const { result } = await attempt(tempDir(), acpRole('dies'));
    expect(result.stdout).toBe('starting');
    expect(result.failure).toBeUndefined();
    expect(result.stderrTail).toMatch(/ACP session\/prompt failed/);
  });

  it('an agent that stays after its turn is stopped a moment later; its reply stands', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'record.jsonl');
    const { result } = await attempt(dir, acpRole('stays', record));
    expect(result.end).toBe('exited');
    expect(result.stdout).toMatch(/"status":"ok"/);
    expect(result.durationMs).toBeLessThan(10_000);
    expect(await survivors(recordedPids(record))).toEqual([]);
  });

  it('what the agent started and left behind is swept with it', async () => {
    const dir = tempDir();
    const record = path.join(dir, 'record.jsonl');
    const { result } = await attempt(dir, acpRole('leftover', record));
    expect(result.end).toBe('exited');
    const pids = recordedPids(record);
    expect(pids.length).toBe(2);
    expect(await survivors(pids)).toEqual([]);
    expect(pids.filter(isRunning)).toEqual([]);
  });
});

describe('protocol: acp in a run', () => {
  it('retries garbage with the very same messages in a fresh session, then exits 3 with the board unchanged', async () => {
    const dir = boardWithTasks(1, {});
    const record = path.join(dir, 'record.jsonl');
    const board = read(dir, 'kanban.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'roles', 'implementor.md'), acpRole('garbage', record));
    writeFileSync(path.join(dir, 'kanban.yaml'), `${board}supervisor:\n  max_retries: 1\n`);
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/Implementor gave no valid reply for tasks\/001\.md in 2 attempt\(s\)/);
    const lines = readFileSync(record, 'utf8').trim().split('\n');
    // Two agent processes, each told the same three lines, byte for byte.
    const [first, second] = lines
      .join('\n')
      .split(/^\{"pid":\d+\}\n/m)
      .filter(Boolean)
      .map((lines) => lines.trimEnd());
    expect(first).toBe(second);
    expect(first?.split('\n')).toHaveLength(3);
    expect(events(dir).filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(read(dir, 'supervisor.log.md')).toMatch(/Rescheduling with exact same parameters/);
    expect(processesIn(dir)).toEqual([]);
  });

  it("a 401 stops the run with exit 2 and the agent's words; usage and permissions reach the events", async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': acpRole('rejected') });
    const run = await runCli(['kanban.yaml'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/cannot work until someone logs in .*401 .*invalid x-api-key/);

    const ok = boardWithTasks(1, { 'roles/implementor.md': acpRole('permission') });
    expect((await runCli(['kanban.yaml'], { cwd: ok })).exitCode).toBe(0);
    const finished = events(ok).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor');
    expect(finished).toMatchObject({ valid: true, acp: { stopReason: 'end_turn' } });
    expect((finished?.acp as { permissions: unknown[] }).permissions).toHaveLength(2);
  });

  it('--dry-run shows the ACP requests it would send and the policy, and runs nothing', async () => {
    const dir = boardWithTasks(1, { 'roles/implementor.md': acpRole('reply') });
    const run = await runCli(['--dry-run', 'kanban.yaml'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'initialize {"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}',
    );
    expect(run.stdout).toContain(`session/new {"cwd":"${dir}","mcpServers":[]}`);
    expect(run.stdout).toContain(
      'session/prompt {"sessionId":"<the id session/new returns>","prompt":"<prompt, see below>"}',
    );
    expect(run.stdout).toMatch(
      /allowed for read, edit, delete, move, search, think when every path named is in the board folder/,
    );
    expect(run.stdout).toContain('Do tasks/001.md.\nThen reply.\n');
    expect(existsSync(path.join(dir, '.kanban-supervisor'))).toBe(false);
  });

  it('a permission request naming a link out of the board folder is refused', async () => {
    const dir = makeBoard({
      'kanban.yaml': 'current: tasks/001.md\ntasks: [tasks/001.md]\n',
      'tasks/001.md': 'x\n',
      'roles/manager.md': SEQUENTIAL_MANAGER,
    });
    symlinkSync('/etc', path.join(dir, 'etc-link'));
    const { decide, DEFAULT_POLICY } = await import('../../src/acp/policy.js');
    const { realpathSync } = await import('node:fs');
    const place = { boardDir: dir, own: ['kanban.yaml', 'roles'], realpath: realpathSync };
    const ask = (file: string, kind = 'edit') =>
      decide({ kind, title: undefined, paths: [file] }, DEFAULT_POLICY, place);
    expect(ask(path.join(dir, 'etc-link', 'passwd')).allowed).toBe(false);
    expect(ask('etc-link/new-file').why).toMatch(/outside the board folder/);
    expect(ask(path.join(dir, 'src', 'new', 'file.ts')).allowed).toBe(true);
    expect(ask('kanban.yaml').why).toBe("kanban.yaml is the supervisor's own (kanban.yaml)");
    expect(ask('roles/implementor.md', 'read').allowed).toBe(true);
    expect(ask('../elsewhere').allowed).toBe(false);
    expect(decide({ kind: 'execute', title: 'npm test', paths: [] }, DEFAULT_POLICY, place).allowed).toBe(false);
    expect(decide({ kind: undefined, title: 'mystery', paths: [] }, DEFAULT_POLICY, place)).toMatchObject({
      kind: 'other',
      allowed: false,
    });
  });
});
