import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capRequest, type McpCaps } from '../../../src/serve/mcp/mcp-caps.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'arbor-mcp-caps-')));
mkdirSync(join(cwd, 'src'));

const CAPS: McpCaps = {
  grant: { fs_read: [cwd], fs_write: [], exec: ['npm test'], net: [], max_calls: 'unlimited' },
  tokens: 1000,
  deadlineMs: 60_000,
  planFiles: true,
};

describe('capRequest: a caller can only narrow the caps', () => {
  it.each([
    {
      name: 'nothing asked: the caps',
      request: {},
      grant: CAPS.grant,
      budget: { tokens: 1000 },
      deadlineMs: 60_000,
      held: [],
    },
    {
      name: 'less asked: what was asked, nothing held',
      request: {
        grant: { fs_read: ['src'], exec: 'none' as const },
        budget: { tokens: 10, usd: 1 },
        deadline_seconds: 5,
      },
      grant: { ...CAPS.grant, fs_read: [join(cwd, 'src')], exec: [] },
      budget: { tokens: 10, usd: 1 },
      deadlineMs: 5000,
      held: [],
    },
    {
      name: 'more asked: the meet with the caps, each axis held said',
      request: {
        grant: { fs_write: 'all' as const, exec: ['rm -rf /'] },
        budget: { tokens: 5000 },
        deadline_seconds: 600,
      },
      grant: { ...CAPS.grant, exec: [] },
      budget: { tokens: 1000 },
      deadlineMs: 60_000,
      held: [
        `grant.fs_write: asked for "all", given "none" (the server's cap is "none")`,
        `grant.exec: asked for rm -rf /, given "none" (the server's cap is npm test)`,
        "budget.tokens: asked for 5000 tokens, given the server's cap of 1000 tokens",
        "deadline_seconds: asked for 600 s, given the server's cap of 60 s",
      ],
    },
  ])('$name', ({ request, grant, budget, deadlineMs, held }) => {
    const capped = capRequest(CAPS, request, cwd);
    expect(capped.grant).toEqual(grant);
    expect(capped.budget).toEqual(budget);
    expect(capped.deadlineMs).toBe(deadlineMs);
    expect(capped.held).toEqual(held);
  });

  it('gives what was asked where the server has no cap', () => {
    const capped = capRequest(
      { grant: CAPS.grant, planFiles: true },
      { budget: { tokens: 9 } },
      cwd,
    );
    expect(capped.budget).toEqual({ tokens: 9 });
  });
});
