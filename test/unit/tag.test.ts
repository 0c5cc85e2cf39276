import { describe, expect, it } from 'vitest';
import { agentTag, carriesTag } from '../../src/agent/tag.js';

const RUN = { board: '/home/me/board/kanban.yaml', run: '2025-01-01T00-00-00-000Z-4242', step: 3, role: 'implementor' };

describe('the tag of an agent run', () => {
  it('is the same for every retry of the same agent run', () => {
    expect(agentTag({ ...RUN }, undefined)).toBe(agentTag({ ...RUN }, undefined));
    expect(agentTag(RUN, undefined)).toMatch(/^ks1-[0-9a-f]{16}-3-implementor$/);
  });

  it.each([
    ['board', { board: '/home/me/other/kanban.yaml' }],
    ['run', { run: '2025-01-01T00-00-00-000Z-4243' }],
    ['step', { step: 4 }],
    ['role', { role: 'manager' }],
  ])('differs when the %s differs', (_, change) => {
    expect(agentTag({ ...RUN, ...change }, undefined)).not.toBe(agentTag(RUN, undefined));
  });

  it('keeps the readable part free of the nesting separator and of odd characters', () => {
    expect(agentTag({ ...RUN, role: 'a:b c\n' }, undefined)).toMatch(/^ks1-[0-9a-f]{16}-3-a_b_c_$/);
  });

  it('goes under the tag a nested supervisor inherited, so the outer sweep matches its agents', () => {
    const outer = agentTag(RUN, undefined);
    const inner = agentTag({ ...RUN, board: '/tmp/inner/kanban.yaml', step: 1 }, outer);
    expect(inner.startsWith(`${outer}:ks1-`)).toBe(true);
    expect(carriesTag(inner, outer)).toBe(true);
    expect(carriesTag(`${inner}:ks1-deeper-1-x`, outer)).toBe(true);
    expect(carriesTag(outer, inner)).toBe(false); // the inner sweep leaves the outer run alone
  });

  it('matches the tag itself and tags nested under it, not tags that merely start alike', () => {
    expect(carriesTag('ks1-a-1-r', 'ks1-a-1-r')).toBe(true);
    expect(carriesTag('ks1-a-1-r:ks1-b-1-r', 'ks1-a-1-r')).toBe(true);
    expect(carriesTag('ks1-a-1-rx', 'ks1-a-1-r')).toBe(false);
    expect(carriesTag('x:ks1-a-1-r', 'ks1-a-1-r')).toBe(false);
    expect(carriesTag('', 'ks1-a-1-r')).toBe(false);
  });
});
