import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS, agentFor } from '../../src/agents/index.js';
import { commandHelp } from '../../src/help.js';
import { parseFrontMatter } from '../../src/board/front-matter.js';
import { ROOT } from '../helpers.js';

// What else a new adapter in src/agents/ needs, so that adding one and forgetting the rest fails here.
describe('the agent CLI adapters', () => {
  it('are the output strategies a role file may name, after the generic ones', () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'role.schema.json'), 'utf8')) as {
      properties: { output: { enum: string[] } };
    };
    expect(schema.properties.output.enum).toEqual([
      'auto',
      'whole',
      'fenced',
      'last-line',
      ...AGENTS.map((agent) => agent.name),
    ]);
  });

  it.each(AGENTS.map((agent) => [agent.name, agent] as const))(
    '%s has an init preset whose every role runs it, a login hint and setup help, and init --help names it',
    (name, agent) => {
      for (const role of ['implementor', 'architect', 'manager']) {
        const parsed = parseFrontMatter(
          readFileSync(path.join(ROOT, 'presets', agent.preset as string, `${role}.md`), 'utf8'),
        );
        if (!parsed.ok) throw new Error(parsed.message);
        expect(agentFor(parsed.data.command as string[]).name, `presets/${agent.preset}/${role}.md`).toBe(name);
      }
      expect(agent.loginHint).toMatch(/\S/);
      expect(agent.setup).toMatch(/\S/);
      expect(commandHelp('init', {})).toContain(`|${agent.preset}`);
    },
  );

  it('give any other command (a wrapper script too) the generic adapter: no failure guessed without patterns', () => {
    const wrapper = agentFor(['./run-claude.sh', '-p']);
    expect(wrapper.name).toBe('generic');
    const limited = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      api_error_status: 429,
      result: 'usage limit reached',
    });
    expect(
      wrapper.failure(
        { stdout: limited, stderr: '', exitCode: 1, events: [JSON.parse(limited) as Record<string, unknown>] },
        { command: ['./run-claude.sh'], now: new Date(), timeZone: 'UTC' },
      ),
    ).toEqual({ kind: 'invalid' });
    expect(
      agentFor(['claude', '-p']).failure(
        { stdout: limited, stderr: '', exitCode: 1, events: [JSON.parse(limited) as Record<string, unknown>] },
        { command: ['claude'], now: new Date(), timeZone: 'UTC' },
      ).kind,
    ).toBe('usage_limit');
  });
});
