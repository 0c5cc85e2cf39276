import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tail } from '../../src/agent/bounded-tail.js';
import { boardWithTasks, events, fixtureRole, read, runCli } from '../helpers.js';

/** Run a one-task board whose Implementor is `agent`; `extra` is role front-matter, `body` the prompt. */
async function runWorker(agent: string, args: string[], extra: string, body?: string, flags: string[] = []) {
  const roleFile = fixtureRole(agent, args, extra);
  const dir = boardWithTasks(1, {
    'roles/implementor.md': body === undefined ? roleFile : roleFile.replace(/Do \{\{task_file\}\}\.\n$/, body),
  });
  const result = await runCli(['kanban.yaml', ...flags], { cwd: dir });
  const worker = events(dir).find((e) => e.type === 'attempt_finished' && e.role === 'Implementor') as Record<
    string,
    unknown
  >;
  return { dir, result, worker };
}

// More than a pipe holds (64 KiB) many times over, so the supervisor is still writing when the agent stops reading.
const BIG_PROMPT = `${'Read all of this carefully. '.repeat(48 * 1024)}\n`;

describe('agent output and input the supervisor must survive', () => {
  it('takes the reply of an agent that closes stdin without reading a > 1 MiB prompt (EPIPE)', async () => {
    const { result, worker } = await runWorker('closes-stdin-unread.mjs', [], 'stdin: prompt\n', BIG_PROMPT);
    expect(Buffer.byteLength(BIG_PROMPT)).toBeGreaterThan(1024 * 1024);
    expect(result.exitCode).toBe(0);
    expect(worker).toMatchObject({ end: 'exited', valid: true, status: 'ok' });
  });

  it('takes the reply of an agent that exits before reading a > 1 MiB prompt', async () => {
    const { result, worker } = await runWorker('exits-before-reading.mjs', [], 'stdin: prompt\n', BIG_PROMPT);
    expect(result.exitCode).toBe(0);
    expect(worker).toMatchObject({ end: 'exited', valid: true });
  });

  it('finds a reply after binary, invalid UTF-8 and NUL bytes, and keeps them exactly in the attempt log', async () => {
    const { dir, result, worker } = await runWorker('prints-binary.mjs', [], 'stdin: none\n');
    expect(result.exitCode).toBe(0);
    expect(worker).toMatchObject({ valid: true, via: 'last-line', stdoutBytes: 256 * 1024 + 45 });
    const log = readFileSync(path.join(dir, worker.stdoutFile as string));
    expect(log.length).toBe(256 * 1024 + 45);
    const pattern = [0x00, 0xff, 0x80, 0xc3, 0x7b, 0x0a, 0x1b, 0xfe]; // as prints-binary.mjs writes them
    expect([...log.subarray(0, 16)]).toEqual(Array.from({ length: 16 }, (_, i) => pattern[(i * 7919) % 8]));
  });

  it('judges binary output with no reply as invalid output, logged readably, and retries it', async () => {
    const { dir, result } = await runWorker('prints-binary.mjs', ['only'], 'stdin: none\n', undefined, [
      '--max-retries',
      '1',
    ]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/the last one printed no JSON reply object/);
    expect(events(dir).filter((e) => e.type === 'retry')).toHaveLength(1);
    const log = read(dir, 'supervisor.log.md');
    expect(log).toMatch(/\*\*Received:\*\*\n```+\n\(last 4000 characters of 262144 bytes of stdout\)\n/);
    // eslint-disable-next-line no-control-regex -- no NUL, escape or other control byte reaches the log a person reads
    expect(log).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });

  it('takes a reply whose last line never ends, printed in pieces', async () => {
    const { result, worker } = await runWorker('no-final-newline.mjs', [], 'stdin: none\n');
    expect(result.exitCode).toBe(0);
    expect(worker).toMatchObject({ valid: true, via: 'last-line' });
  });

  it('finds the reply after 64 MiB of chatter, keeping all of it on disk and only the tail in memory', async () => {
    const bytes = 64 * 1024 * 1024;
    const { dir, result, worker } = await runWorker('prints-1gb.mjs', [String(bytes)], 'stdin: none\n');
    expect(result.exitCode).toBe(0);
    expect(worker).toMatchObject({ valid: true, stdoutBytes: bytes + 43 });
    expect(statSync(path.join(dir, worker.stdoutFile as string)).size).toBe(bytes + 43);
  });

  it('says a reply that began before the kept tail was cut, when an agent prints one 8 MiB line', async () => {
    const { result } = await runWorker('hostile-reply.mjs', ['huge'], 'stdin: none\n', undefined, [
      '--max-retries',
      '0',
    ]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(
      /only the last 4096 KiB of its 8388637 bytes of stdout were searched; the reply must come last/,
    );
  });

  it('retries a reply 200,000 levels deep, or holding a raw NUL byte, as invalid output without crashing', async () => {
    const [deep, nul] = await Promise.all([
      runWorker('hostile-reply.mjs', ['deep'], 'stdin: none\n', undefined, ['--max-retries', '0']),
      runWorker('hostile-reply.mjs', ['raw-nul'], 'stdin: none\n', undefined, ['--max-retries', '0']),
    ]);
    expect(deep.result.exitCode).toBe(3);
    expect(deep.result.stderr).toMatch(/replied in the wrong format: the reply nests deeper than 64 levels/);
    expect(nul.result.exitCode).toBe(3);
    expect(nul.result.stderr).toMatch(/printed no JSON reply object/);
  });

  it('hands a 2 MiB reply and one with __proto__ keys to the Manager as data, polluting nothing', async () => {
    const [big, proto] = await Promise.all([
      runWorker('hostile-reply.mjs', ['big'], 'stdin: none\n'),
      runWorker('hostile-reply.mjs', ['proto'], 'stdin: none\n'),
    ]);
    expect(big.result.exitCode).toBe(0);
    expect(proto.result.exitCode).toBe(0);
    expect(proto.worker).toMatchObject({ valid: true, status: 'ok' });
  });
});

describe('the bounded tail', () => {
  it('keeps exactly the last bytes however the output is cut into chunks, one byte at a time included', () => {
    const tail = new Tail(1000);
    const all: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const chunk = Buffer.alloc(1 + (i % 3 === 0 ? 0 : (i * 37) % 300), i % 251);
      tail.push(chunk);
      all.push(...chunk);
    }
    expect(tail.total).toBe(all.length);
    expect(tail.truncated).toBe(true);
    const expected = Buffer.from(all.slice(-1000)).toString('utf8');
    expect(tail.text()).toBe(expected);
  });

  it('keeps everything, untruncated, while under the limit', () => {
    const tail = new Tail(1 << 20);
    tail.push(Buffer.from('hello '));
    tail.push(Buffer.from('world'));
    expect(tail.text()).toBe('hello world');
    expect(tail.truncated).toBe(false);
  });
});
