import { describe, expect, it } from 'vitest';
import type { Failure, FailureContext } from '../../src/agents/adapter.js';
import { agentFor, classifyFailure } from '../../src/agents/index.js';
import { recordedFile, recording } from './recorded.js';

const loginHint = (cli: string) => agentFor([cli]).loginHint as string;
const failureInLine = (line: string, command: string[]) => agentFor(command).failureInLine?.(line, 'stdout');

const SECOND = 1000;

// Each recorded failure (test/fixtures/recorded/NOTES.md) and what it must be read as.
const KINDS: Array<[name: string, kind: Failure['kind']]> = [
  ['claude-429-reset.stream', 'usage_limit'],
  ['claude-429-reset', 'usage_limit'],
  ['claude-429-reset-days.stream', 'usage_limit'],
  ['claude-429-reset-retries.stream', 'usage_limit'],
  ['claude-429-apikey.stream', 'usage_limit'],
  ['claude-429-no-reset.stream', 'transient'],
  ['claude-429-disabled.stream', 'login'],
  ['claude-401.stream', 'login'],
  ['claude-401-oauth.stream', 'login'],
  ['claude-not-logged-in.stream', 'login'],
  ['claude-529.stream', 'transient'],
  ['claude-529-retries.stream', 'transient'],
  ['claude-503.stream', 'transient'],
  ['claude-reply.stream', 'invalid'],
  ['codex-429-reset', 'usage_limit'],
  ['codex-429-reset-plus', 'usage_limit'],
  ['codex-429-reset-days', 'usage_limit'],
  ['codex-429-no-reset', 'usage_limit'],
  ['codex-429-apikey', 'usage_limit'],
  ['codex-429-apikey-retries', 'usage_limit'],
  ['codex-429-disabled', 'login'],
  ['codex-401', 'login'],
  ['codex-no-login-online', 'login'],
  ['codex-no-login', 'transient'],
  ['codex-503', 'transient'],
  ['codex-503-retries', 'transient'],
  ['codex-503-overloaded', 'transient'],
  ['codex-reply', 'invalid'],
  ['codex-tool', 'invalid'],
  ['gemini-429-reset.stream', 'usage_limit'],
  ['gemini-429-reset', 'usage_limit'],
  ['gemini-429-reset-retries.stream', 'usage_limit'],
  ['gemini-429-apikey.stream', 'usage_limit'],
  ['gemini-429-no-reset.stream', 'usage_limit'],
  ['gemini-401.stream', 'login'],
  ['gemini-403-disabled.stream', 'login'],
  ['gemini-no-key.stream', 'login'],
  ['gemini-503.stream', 'transient'],
  ['gemini-503-retries.stream', 'transient'],
  ['gemini-reply.stream', 'invalid'],
  ['gemini-reply', 'invalid'],
];

function classifyRecording(name: string, overrides: Partial<FailureContext> = {}): Failure {
  const r = recording(name);
  return classifyFailure(r, { command: r.command, now: r.endedAt, timeZone: r.timeZone, ...overrides });
}

/** The reset a recording's server announced: resetSeconds after the CLI was started (plus its run time). */
function announced(name: string): { from: number; to: number } {
  const r = recording(name);
  const seconds = (r.server.resetSeconds ?? 0) * SECOND;
  return { from: r.startedAt.getTime() + seconds, to: r.endedAt.getTime() + seconds + SECOND };
}

describe('classifyFailure on what the real CLIs printed', () => {
  it.each(KINDS)('%s is %s', (name, kind) => {
    const failure = classifyRecording(name);
    expect(failure.kind).toBe(kind);
    if (failure.kind !== 'invalid') {
      expect(failure.cli).toBe(recording(name).cli);
      expect(failure.detail.length).toBeGreaterThan(0);
    }
    if (failure.kind === 'login') expect(failure.hint).toContain(loginHint(recording(name).cli));
  });

  it("takes Claude Code's exact reset from the stream's rejected rate_limit_event", () => {
    const failure = classifyRecording('claude-429-reset.stream');
    const event = JSON.parse(
      recordedFile('claude-429-reset.stream.jsonl')
        .split('\n')
        .find((l) => l.includes('"rate_limit_event"')) as string,
    ) as { rate_limit_info: { resetsAt: number } };
    expect(failure).toMatchObject({
      kind: 'usage_limit',
      detail: expect.stringMatching(/^You've hit your session limit · resets \d+:\d\dpm \(Europe\/Vilnius\)$/),
    });
    expect(failure.kind === 'usage_limit' && failure.resetAt?.getTime()).toBe(event.rate_limit_info.resetsAt * SECOND);
  });

  it.each([
    ['claude-429-reset', 'the json result text "resets 7:12pm (Europe/Vilnius)", in the zone it names'],
    ['claude-429-reset-days.stream', 'a reset three days away, "resets Nov 26, 2:07pm (America/Recife)"'],
    ['codex-429-reset', 'Codex\'s "Try again at 7:13 PM." in the local zone'],
    ['codex-429-reset-plus', "the same after a Plus plan's upgrade advice"],
    ['codex-429-reset-days', 'Codex\'s "Try again at Nov 26th, 2026 2:08 PM."'],
    ['gemini-429-reset.stream', 'Gemini CLI\'s "Your quota will reset after 5s" in the stream result'],
    ['gemini-429-reset', 'the same from the -o json error on stderr'],
    ['gemini-429-apikey.stream', 'Gemini\'s "Please retry in 5s"'],
  ])('%s: reads %s, no earlier than the reset and within a minute of it', (name) => {
    const failure = classifyRecording(name);
    const { from, to } = announced(name);
    expect(failure.kind).toBe('usage_limit');
    const resetAt = failure.kind === 'usage_limit' ? (failure.resetAt?.getTime() ?? 0) : 0;
    expect(resetAt).toBeGreaterThanOrEqual(from - SECOND);
    expect(resetAt).toBeLessThanOrEqual(to + 60 * SECOND);
  });

  it("reads a local time in the zone the supervisor passes, not the machine's", () => {
    const vilnius = classifyRecording('codex-429-reset');
    const elsewhere = classifyRecording('codex-429-reset', { timeZone: 'Asia/Tokyo' });
    expect(vilnius.kind === 'usage_limit' && elsewhere.kind === 'usage_limit').toBe(true);
    const [a, b] = [vilnius, elsewhere].map((f) => (f.kind === 'usage_limit' ? (f.resetAt?.getTime() ?? 0) : 0)) as [
      number,
      number,
    ];
    expect(Math.abs(a - b)).toBeGreaterThan(60 * SECOND);
  });

  it.each(['claude-429-no-reset.stream', 'codex-429-no-reset', 'codex-429-apikey', 'gemini-429-no-reset.stream'])(
    '%s: a limit with no reset time has resetAt null',
    (name) => {
      const failure = classifyRecording(name);
      if (failure.kind === 'usage_limit') expect(failure.resetAt).toBeNull();
    },
  );

  it('takes a usage allocation disabled by an admin as needing a person, with what to do', () => {
    expect(classifyRecording('claude-429-disabled.stream')).toMatchObject({
      kind: 'login',
      detail: expect.stringContaining('disabled by your admin'),
      hint: expect.stringContaining('admin'),
    });
  });

  it('reads the old recordings of the json presets the same way', () => {
    const context = (command: string[]) => ({ command, now: new Date(), timeZone: 'UTC' });
    const attempt = (file: string) => ({ stdout: recordedFile(file), stderr: '', exitCode: 1 });
    expect(classifyFailure(attempt('claude-not-logged-in.json'), context(['claude', '-p'])).kind).toBe('login');
    expect(classifyFailure(attempt('claude-timeout.json'), context(['claude', '-p'])).kind).toBe('transient');
    expect(classifyFailure(attempt('claude-prose.json'), context(['claude', '-p'])).kind).toBe('invalid');
    expect(classifyFailure(attempt('codex-not-logged-in.jsonl'), context(['codex', 'exec'])).kind).toBe('login');
    expect(classifyFailure(attempt('codex-prose.jsonl'), context(['codex', 'exec'])).kind).toBe('invalid');
    expect(classifyFailure(attempt('gemini-prose.json'), context(['gemini'])).kind).toBe('invalid');
  });
});

describe('failureInLine: stopping a Codex attempt that cannot succeed at its first sign', () => {
  const lines = (name: string) => recording(name).stdout.split('\n').filter(Boolean);

  it('stops a Codex run without a login at its first 401, not after 10 retries (13 s)', () => {
    const all = lines('codex-no-login-online');
    const first = all.findIndex((l) => failureInLine(l, ['codex', 'exec']) !== undefined);
    expect(first).toBe(2);
    expect(failureInLine(all[first] as string, ['codex', 'exec'])).toMatchObject({
      kind: 'login',
      hint: loginHint('codex'),
    });
  });

  it('stops a Codex run offline when it starts waiting for the network for ever, not at its first reconnect', () => {
    const all = lines('codex-no-login');
    const hits = all.map((l) => failureInLine(l, ['codex', 'exec'])?.kind);
    expect(hits.slice(0, hits.indexOf('transient'))).toEqual(Array(hits.indexOf('transient')).fill(undefined));
    expect(all[hits.indexOf('transient')]).toContain('waiting for network');
  });

  it('lets every line of a Codex run that succeeds pass, and says nothing for other CLIs', () => {
    for (const name of ['codex-reply', 'codex-tool'])
      for (const line of lines(name)) expect(failureInLine(line, ['codex', 'exec'])).toBeUndefined();
    const reconnect =
      '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: ' +
      'failed to lookup address information)"}';
    expect(failureInLine(reconnect, ['codex', 'exec'])).toBeUndefined();
    expect(failureInLine(lines('codex-no-login-online')[2] as string, ['claude', '-p'])).toBeUndefined();
  });
});

describe('agentFor: which CLI a role runs, from its argv alone', () => {
  it.each([
    [['claude', '-p'], 'claude'],
    [['/usr/local/bin/codex', 'exec'], 'codex'],
    [['npx', '-y', '@google/gemini-cli@0.61.0', '-p', 'x'], 'gemini'],
    [['node', '/opt/gemini-cli/bundle/gemini.js'], 'gemini'],
    [['env', 'FOO=1', 'claude'], 'claude'],
    [['bash', '-c', 'claude -p'], 'generic'],
    [['./claude-wrapper.sh'], 'generic'],
    [['node', 'agent.js', 'claude'], 'generic'],
  ])('%j runs %s', (command, cli) => {
    expect(agentFor(command).name).toBe(cli);
  });
});
