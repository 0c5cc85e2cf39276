import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliReplySchema } from '../../src/reply/reply-schema.js';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fake-model-server.mjs';
import { strictProblem } from '../fixtures/fake-model-schema.mjs';
import { events, read, tempDir } from '../helpers.js';
import { agentEnv, initBoard, installedVersion, modelOnEveryStep, scriptedModel, startSupervisor } from './harness.js';
import { agentCliSuite } from './suite.js';

agentCliSuite('codex');

describe('the real codex, handed the reply schema by the supervisor', () => {
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  beforeAll(() => {
    installedVersion('codex');
  });

  it(
    "sends the preset's strict reply schema to the API, which takes it (the plain one it refuses), " +
      "and the Manager's forced nulls count as left out",
    async () => {
      const formats: Array<{ type: string; strict: boolean; name: string; schema: Record<string, unknown> }> = [];
      const where: { dir?: string } = {};
      const model = scriptedModel([], where);
      server = await startFakeModelServer({
        mode: 'reply',
        text: (request) => {
          formats.push((request.body as { text: { format: (typeof formats)[number] } }).text.format);
          return model(request);
        },
      });
      const env = agentEnv('codex', server.url);
      const dir = await initBoard('codex', env);
      // A model Manager on every step: its strict-form answers to ok replies are what this checks.
      modelOnEveryStep(dir);
      where.dir = dir;

      const run = await startSupervisor(['kanban.yaml', '--timeout', '90s'], env, dir);
      expect(run.exitCode, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
      expect(read(dir, 'kanban.yaml')).toMatch(/^phase: complete$/m);
      // One schema file per form (the workers', the Manager's), each the format of its requests.
      const files = readdirSync(path.join(dir, '.kanban-supervisor', 'schemas'));
      expect(files).toHaveLength(2);
      const written = files.map(
        (file) => JSON.parse(readFileSync(path.join(dir, '.kanban-supervisor', 'schemas', file), 'utf8')) as object,
      );
      expect(formats.length).toBeGreaterThanOrEqual(4);
      for (const format of formats) {
        expect(format).toMatchObject({ type: 'json_schema', strict: true, name: 'codex_output_schema' });
        expect(strictProblem(format.schema)).toBeUndefined();
        expect(written).toContainEqual(format.schema);
      }
      // The Manager's answers carried phase: null until the last (the strict form requires every key).
      const managers = events(dir).filter((e) => e.type === 'attempt_finished' && e.role === 'Manager');
      expect(managers.map((e) => [e.valid, e.via])).toEqual([
        [true, 'codex > whole'],
        [true, 'codex > whole'],
      ]);
      expect(read(dir, String(managers[0]?.stdoutFile))).toContain('\\"phase\\":null');

      // The same API refuses the plain schema, as OpenAI's does: Codex says so and fails its turn.
      const plain = path.join(tempDir('ks-schema-'), 'plain.json');
      writeFileSync(plain, JSON.stringify(cliReplySchema(false)));
      const direct = await execa(
        'codex',
        ['exec', '--json', '--skip-git-repo-check', '--output-schema', plain, '--', 'Reply.'],
        { cwd: dir, env, extendEnv: false, stdin: 'ignore', reject: false, timeout: 60_000 },
      );
      expect(direct.stdout).toContain(
        "Invalid schema for response_format 'codex_output_schema': In context=(), " +
          "'additionalProperties' is required to be supplied and to be false.",
      );
      expect(direct.stdout).toContain('"type":"turn.failed"');
    },
  );
});
