import { describe, expect, it } from 'vitest';
import {
  commandsHaveNetwork,
  countedAtSpawn,
  isEgressCall,
  profileOf,
  type ToolProfile,
} from '../../src/authority/index.js';
import type { Scope, SandboxSettings } from '../../src/protocol/index.js';

const QUIET: ToolProfile = { untrusted: false, egress: false, sensitive: false, source: 't' };

describe('profileOf', () => {
  it('reads each leg from the tags, but not a leg judged per call', () => {
    expect(profileOf({ tags: ['untrusted_input', 'egress'] }, 't')).toEqual({
      ...QUIET,
      untrusted: true,
      egress: true,
    });
    expect(profileOf({ tags: ['sensitive'] }, 't')).toEqual({ ...QUIET, sensitive: true });
    expect(
      profileOf({ tags: ['sensitive', 'egress'], perCall: ['sensitive'], exposes: true }, 't'),
    ).toEqual({ ...QUIET, egress: true, exposes: true });
    expect(profileOf({ tags: [], source: 'mcp:x' }, 't')).toEqual({ ...QUIET, source: 'mcp:x' });
  });
});

describe('countedAtSpawn', () => {
  it('keeps what each tool declares, but not a tool judged at run time only', () => {
    expect(
      countedAtSpawn([
        { name: 'a', trifecta: { tags: ['egress'] } },
        { name: 'b', trifecta: { tags: ['untrusted_input'], runtimeOnly: true } },
        { name: 'c' },
      ]),
    ).toEqual([
      { name: 'a', tags: ['egress'] },
      { name: 'c', tags: [] },
    ]);
  });
});

describe('commandsHaveNetwork', () => {
  it.each<[SandboxSettings['mode'], Scope, boolean]>([
    ['bwrap', 'all', true],
    ['bwrap', [], false],
    // Through the egress proxy, a host list is a way out too.
    ['bwrap', ['example.com'], true],
    ['off', [], true],
    ['unavailable', [], true],
  ])('sandbox %s, net %j: %s', (mode, net, expected) => {
    const caveats = { fs_read: [], fs_write: [], exec: [], net, max_calls: 'unlimited' as const };
    expect(commandsHaveNetwork({ sandbox: { mode }, caveats })).toBe(expected);
  });
});

describe('isEgressCall', () => {
  it('is a tool that can send data out, or a task sent to a remote agent', () => {
    expect(isEgressCall({ ...QUIET, egress: true }, { name: 't', args: {} })).toBe(true);
    expect(isEgressCall(QUIET, { name: 't', args: {} })).toBe(false);
    const run = (provider: string) => ({ name: 'subagent.run', args: { provider } });
    expect(isEgressCall(QUIET, run('a2a'))).toBe(true);
    expect(isEgressCall(QUIET, run('process'))).toBe(false);
  });
});
