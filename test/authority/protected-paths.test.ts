import { describe, expect, it } from 'vitest';
import { protectionOf, runStatePaths } from '../../src/authority/index.js';
import { specialAddress } from '../../src/authority/special-addresses.js';

describe('runStatePaths', () => {
  it('protects .arbor whole and the store files, never the working directory', () => {
    const list = runStatePaths({
      cwd: '/w',
      dbPath: '.arbor/arbor.db',
      readOnly: ['plan.run.toml'],
    });
    expect(list).toEqual([
      { path: '/w/.arbor', kind: 'dir', readable: false },
      { path: '/w/.arbor/arbor.db', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-wal', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-shm', kind: 'file', readable: false },
      { path: '/w/.arbor/arbor.db-journal', kind: 'file', readable: false },
      { path: '/w/plan.run.toml', kind: 'file', readable: true },
    ]);
    expect(list.some((p) => p.path === '/w')).toBe(false);
  });

  it('keeps .arbor unreadable when the store lives elsewhere or in memory (a sibling run reads nothing)', () => {
    for (const dbPath of ['/var/lib/arbor/arbor.db', ':memory:']) {
      const list = runStatePaths({ cwd: '/w', dbPath });
      expect(protectionOf('/w/.arbor/serve-token', 'read', list)).toBeDefined();
      expect(protectionOf('/w/.arbor/old.db', 'read', list)).toBeDefined();
    }
  });

  it('hides the store directory whole unless it holds something granted', () => {
    const apart = runStatePaths({ cwd: '/w', dbPath: '/var/lib/arbor/arbor.db' });
    expect(protectionOf('/var/lib/arbor/other.db', 'read', apart)).toBeDefined();
    const shared = runStatePaths({
      cwd: '/w',
      dbPath: '/data/arbor.db',
      granted: ['/data/inputs'],
    });
    expect(protectionOf('/data/inputs/a.csv', 'read', shared)).toBeUndefined();
    expect(protectionOf('/data/arbor.db-wal', 'read', shared)).toBeDefined();
  });

  it("masks arbor's own directories and secrets, and keeps the trust anchors read-only", () => {
    const list = runStatePaths({
      cwd: '/w',
      dbPath: ':memory:',
      ownDirs: ['/home/u/.cache/arbor'],
      secrets: ['/w/token'],
      anchors: [{ path: '/opt/bwrap', kind: 'file' }],
    });
    expect(protectionOf('/home/u/.cache/arbor/snap.js', 'read', list)).toBeDefined();
    expect(protectionOf('/w/token', 'read', list)).toBeDefined();
    expect(protectionOf('/opt/bwrap', 'read', list)).toBeUndefined();
    expect(protectionOf('/opt/bwrap', 'write', list)).toBeDefined();
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
