import { describe, expect, it } from 'vitest';
import { protectionOf, runStatePaths } from '../../src/authority/index.js';
import { specialAddress } from '../../src/authority/special-addresses.js';

describe('runStatePaths', () => {
  it('protects the store files and the state directory it lives in, never the working directory', () => {
    const list = runStatePaths({
      cwd: '/w',
      dbPath: '.arbor/arbor.db',
      readOnly: ['plan.run.toml'],
    });
    expect(list).toEqual([
      { path: '/w/.arbor/arbor.db', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-wal', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-shm', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-journal', kind: 'file', readable: false },
      { path: '/w/.arbor', kind: 'dir', readable: false },
      { path: '/w/plan.run.toml', kind: 'file', readable: true },
    ]);
    expect(list.some((p) => p.path === '/w')).toBe(false);
  });

  it('lets the state directory be read when the store lives elsewhere', () => {
    const list = runStatePaths({ cwd: '/w', dbPath: '/var/lib/arbor.db' });
    expect(list.find((p) => p.path === '/w/.arbor')).toEqual({
      path: '/w/.arbor',
      kind: 'dir',
      readable: true,
    });
  });

  it.each([
    ['/w/.arbor/arbor.db', 'write', true],
    ['/w/.arbor/arbor.db', 'read', true],
    ['/w/.arbor/other', 'read', true],
    ['/w/plan.run.toml', 'write', true],
    ['/w/plan.run.toml', 'read', false],
    ['/w/src/a.ts', 'write', false],
    ['/w/.arbor-not', 'write', false],
  ] as const)('%s %s protected: %s', (target, access, expected) => {
    const list = runStatePaths({
      cwd: '/w',
      dbPath: '.arbor/arbor.db',
      readOnly: ['plan.run.toml'],
    });
    expect(protectionOf(target, access, list) !== undefined).toBe(expected);
  });
});

describe('specialAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address (cloud metadata services live there)'],
    ['fd00:ec2::254', 'a private (unique local) address'],
    ['0.0.0.0', 'the unspecified address'],
    ['8.8.8.8', undefined],
    ['2606:4700::1111', undefined],
  ])('%s → %s', (address, expected) => {
    expect(specialAddress(address)).toBe(expected);
  });
});
