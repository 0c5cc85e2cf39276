import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Failure } from '../../src/agents/adapter.js';
import { agentFor, classifyFailure } from '../../src/agents/index.js';
import { stdoutEvents } from '../../src/reply/json.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../fixtures/fake-model-server.mjs';
import { ROOT, tempDir } from '../helpers.js';
import { agentEnv, installedVersion, type AgentCli, type AgentEnvOptions } from './harness.js';

// The preset Implementor's argv, its prompt filled in.
function presetCommand(agent: AgentCli): string[] {
  const text = readFileSync(path.join(ROOT, 'presets', agent, 'implementor.md'), 'utf8');
  const front = parse(/^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '') as { command: string[] };
  return front.command.map((word) => word.replace('{{prompt}}', 'Do the task and end with a JSON reply object.'));
}

// What the classifier must make of each failure mode, read from the pinned CLI's real output
// (the same cases as test/fixtures/recorded; this catches a new CLI version wording them otherwise).
const CASES: Array<[mode: FakeModelServerOptions['mode'], env: AgentEnvOptions, kind: Failure['kind']]> = [
  ['limit', { subscription: true, ownRetries: false }, 'usage_limit'],
  ['unauthorized', { ownRetries: false }, 'login'],
  ['overloaded', { ownRetries: false }, 'transient'],
  ['reply', { key: false }, 'login'],
];

describe.each(['claude', 'codex', 'gemini'] as const)(
  'the real %s CLI, failing against the fake model server',
  (agent) => {
    let server: FakeModelServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    beforeAll(() => {
      installedVersion(agent);
    });

    it.each(CASES)(
      'a model API in mode %s (env %j) is classified as %s from what the preset command prints',
      async (mode, env, kind) => {
        server = await startFakeModelServer({ mode, resetSeconds: 120 });
        const command = presetCommand(agent);
        const started = Date.now();
        const run = await execa(command[0] as string, command.slice(1), {
          cwd: tempDir('ks-fail-'),
          env: agentEnv(agent, server.url, env),
          extendEnv: false,
          stdin: 'ignore',
          reject: false,
          timeout: 60_000,
        });
        const failure = classifyFailure(
          { stdout: run.stdout, stderr: run.stderr, exitCode: run.exitCode ?? null },
          { command, now: new Date(), timeZone: 'UTC' },
        );
        expect(failure.kind, `stdout:\n${run.stdout.slice(-2000)}\nstderr:\n${run.stderr.slice(-2000)}`).toBe(kind);
        if (failure.kind === 'usage_limit' && agent !== 'gemini') {
          // Claude's and Codex's clock times are cut to the minute; the reset is never read as earlier.
          expect(failure.resetAt?.getTime()).toBeGreaterThanOrEqual(started + 120_000 - 1000);
          expect(failure.resetAt?.getTime()).toBeLessThanOrEqual(Date.now() + 120_000 + 61_000);
        }
        if (failure.kind === 'usage_limit' && agent === 'gemini')
          expect(failure.resetAt?.getTime()).toBeGreaterThan(Date.now() + 119_000);
      },
    );

    it('a limit that lifts: the next run of the same command succeeds and reports its usage', async () => {
      server = await startFakeModelServer({
        mode: 'limit',
        failures: 1,
        resetSeconds: 1,
        usage: { input: 1000, output: 50, cacheRead: 400 },
      });
      const command = presetCommand(agent);
      const env = agentEnv(agent, server.url, { subscription: true, ownRetries: false });
      const cwd = tempDir('ks-fail-');
      const first = await execa(command[0] as string, command.slice(1), {
        cwd,
        env,
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        timeout: 60_000,
      });
      expect(
        classifyFailure(
          { stdout: first.stdout, stderr: first.stderr, exitCode: first.exitCode ?? null },
          { command, now: new Date(), timeZone: 'UTC' },
        ).kind,
      ).toBe('usage_limit');
      const second = await execa(command[0] as string, command.slice(1), {
        cwd,
        env,
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        timeout: 60_000,
      });
      expect(second.exitCode, second.stderr).toBe(0);
      expect(agentFor(command).usage(stdoutEvents(second.stdout))).toMatchObject({
        cachedInputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
      });
    });
  },
);
