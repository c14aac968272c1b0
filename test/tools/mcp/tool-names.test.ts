import { describe, expect, it } from 'vitest';
import { mcpToolNames } from '../../../src/tools/index.js';

describe('mcpToolNames', () => {
  it('namespaces plain names as `<server>.<tool>`', () => {
    expect([...mcpToolNames('gh', ['search_issues', 'files.read', 'get-pr'])]).toEqual([
      ['gh.search_issues', 'search_issues'],
      ['gh.files.read', 'files.read'],
      ['gh.get-pr', 'get-pr'],
    ]);
  });

  it.each([['bad name!'], ['ünïcode'], ['a/b'], ['x'.repeat(80)]])(
    'rewrites `%s` deterministically, with a hash of the original, within 64 characters',
    (tool) => {
      const [name] = [...mcpToolNames('srv', [tool]).keys()];
      expect(name).toMatch(/^srv\.[A-Za-z0-9_.-]+-[0-9a-f]{6}$/);
      expect(name!.length).toBeLessThanOrEqual(64);
      expect(mcpToolNames('srv', ['other', tool]).get(name!)).toBe(tool);
    },
  );

  it('keeps rewritten names apart from each other and from plain names, whatever the order', () => {
    const tools = ['a b', 'a?b', 'a_b'];
    const forward = mcpToolNames('s', tools);
    const backward = mcpToolNames('s', [...tools].reverse());
    expect(forward.size).toBe(3);
    expect(forward.get('s.a_b')).toBe('a_b');
    expect(new Map([...backward].sort())).toEqual(new Map([...forward].sort()));
  });
});
