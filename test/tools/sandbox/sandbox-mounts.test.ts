import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isInside,
  permitsPath,
  protectionOf,
  runStatePaths,
} from '../../../src/authority/index.js';
import type { Caveats, ProtectedPath, Scope } from '../../../src/protocol/index.js';
import {
  bwrapArgs,
  planMounts,
  toolchainRoot,
  type SandboxSpec,
} from '../../../src/tools/index.js';
import { fakeFs } from '../../helpers/fake-fs.js';
import { stateAt } from '../../helpers/mount-state.js';

const MACHINE: Record<string, 'dir' | 'file'> = {
  '/usr/bin/sh': 'file',
  '/etc/passwd': 'file',
  '/etc/shadow': 'file',
  '/etc/ssl/certs/ca.pem': 'file',
  '/work/repo/src/main.ts': 'file',
  '/work/repo/.arbor/arbor.db': 'file',
  '/work/repo/.arbor/arbor.db-wal': 'file',
  '/work/repo/db.sqlite': 'file',
  '/work/repo/plan.run.toml': 'file',
  '/work/other/notes.md': 'file',
  '/data/x.db': 'file',
  '/data/set/a.csv': 'file',
  '/home/u/.ssh/id_ed25519': 'file',
  '/home/u/.cache/x': 'file',
  '/tmp/t/x': 'file',
  '/opt/tool/bin/tool': 'file',
  '/opt/tool/lib/tool.js': 'file',
};
const FS = fakeFs(MACHINE, {
  '/bin': 'usr/bin',
  // Links an agent planted in its workspace: granting them must not grant where they point.
  '/work/repo/out': '/work/other',
  '/work/repo/rootlink': '/',
});
const CWD = '/work/repo';

const QUERIES = [
  ...Object.keys(MACHINE),
  '/work',
  '/work/repo',
  '/work/repo/src',
  '/work/repo/.arbor',
  '/work/repo/.arbor/arbor.db-journal',
  '/work/repo/db.sqlite-wal',
  '/work/repo/new-file.ts',
  '/data',
  '/home/u',
  '/etc',
  '/proc/1/environ',
  '/tmp/t',
  '/opt/tool',
];

const SYSTEM = ['/usr', '/bin', '/etc/passwd', '/etc/ssl'];

const entry = fc.constantFrom(
  '/work',
  CWD,
  'src',
  'out',
  'rootlink',
  '/data',
  '/home/u',
  '/tmp/t',
  '/',
  '/proc',
);
const scope: fc.Arbitrary<Scope> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('all' as const) },
  { weight: 4, arbitrary: fc.uniqueArray(entry, { maxLength: 3 }) },
);
const protectList: fc.Arbitrary<ProtectedPath[]> = fc
  .record({
    dbPath: fc.constantFrom('.arbor/arbor.db', 'db.sqlite', '/data/x.db', ':memory:'),
    runLog: fc.boolean(),
  })
  .map(({ dbPath, runLog }) =>
    runStatePaths({ cwd: CWD, dbPath, readOnly: runLog ? ['plan.run.toml'] : [] }),
  );

function spec(fs_read: Scope, fs_write: Scope, protect: ProtectedPath[]): SandboxSpec {
  return {
    caveats: { fs_read, fs_write, net: [] },
    cwd: CWD,
    protect,
    pathEntries: ['/opt/tool/bin', '/usr/bin', 'relative/bin'],
    home: '/home/u',
  };
}

describe('planMounts: the sandbox sees the caveats minus the run state (property)', () => {
  it('writes only within fs_write, reads only within the grant and the system, never the store', () => {
    fc.assert(
      fc.property(scope, scope, protectList, (fsRead, fsWrite, protect) => {
        const caveats: Pick<Caveats, 'fs_read' | 'fs_write'> = {
          fs_read: fsRead,
          fs_write: fsWrite,
        };
        const { mounts } = planMounts(spec(fsRead, fsWrite, protect), FS);
        for (const q of QUERIES) {
          const state = stateAt(mounts, q);
          if (state.kind !== 'host') continue;
          const host = state.host;
          expect(isInside('/proc', host), `${q} shows the host's /proc`).toBe(false);
          if (state.rw) {
            expect(permitsPath(caveats.fs_write, host, { cwd: CWD }), `${q} writable`).toBe(true);
            expect(
              protectionOf(host, 'write', protect),
              `${q} is run state, writable`,
            ).toBeUndefined();
          }
          const readable =
            permitsPath(caveats.fs_read, host, { cwd: CWD }) ||
            permitsPath(caveats.fs_write, host, { cwd: CWD }) ||
            SYSTEM.some((dir) => isInside(dir, host)) ||
            isInside('/opt/tool', host);
          expect(readable, `${q} readable outside the grant`).toBe(true);
          expect(protectionOf(host, 'read', protect), `${q} shows the store`).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes nothing away that the grant gives, but for the run state, /proc and /tmp', () => {
    fc.assert(
      fc.property(scope, scope, protectList, (fsRead, fsWrite, protect) => {
        const { mounts } = planMounts(spec(fsRead, fsWrite, protect), FS);
        for (const q of QUERIES) {
          if (FS.kind(q) === 'missing' || isInside('/proc', q) || isInside('/tmp', q)) continue;
          const state = stateAt(mounts, q);
          const writable =
            permitsPath(fsWrite, q, { cwd: CWD }) && !protectionOf(q, 'write', protect);
          const readable =
            (permitsPath(fsRead, q, { cwd: CWD }) || permitsPath(fsWrite, q, { cwd: CWD })) &&
            !protectionOf(q, 'read', protect);
          if (writable)
            expect(state, `${q} should be writable`).toMatchObject({ kind: 'host', rw: true });
          else if (readable) expect(state.kind, `${q} should be readable`).toBe('host');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('planMounts', () => {
  const protect = runStatePaths({ cwd: CWD, dbPath: 'db.sqlite', readOnly: ['plan.run.toml'] });
  const plan = planMounts(spec([CWD], [CWD], protect), FS);

  it('masks a store in the working directory file by file, never the directory itself', () => {
    expect(plan.mounts).toContainEqual({
      op: 'mask',
      dest: '/work/repo/db.sqlite',
      why: 'protect',
    });
    expect(plan.placeholders).toEqual(
      expect.arrayContaining([
        { path: '/work/repo/db.sqlite-wal', kind: 'file' },
        { path: '/work/repo/db.sqlite-journal', kind: 'file' },
      ]),
    );
    expect(stateAt(plan.mounts, '/work/repo/src/main.ts')).toMatchObject({
      kind: 'host',
      rw: true,
    });
    expect(stateAt(plan.mounts, '/work/repo/plan.run.toml')).toMatchObject({
      kind: 'host',
      rw: false,
    });
  });

  it('gives a private home, and the real one only when the grant may write it', () => {
    expect(plan.home).toBe('/tmp/home');
    expect(planMounts(spec([CWD], [CWD, '/home/u'], []), FS).home).toBe('/home/u');
  });

  it("never shares the host's network, whatever net says: only the operator's opt-out does", () => {
    const args = (net: Scope, hostNetwork?: boolean) =>
      bwrapArgs(
        planMounts({ ...spec([], [], []), caveats: { fs_read: [], fs_write: [], net } }, FS),
        hostNetwork,
      );
    expect(args('all')).not.toContain('--share-net');
    expect(args(['example.com'])).not.toContain('--share-net');
    expect(args('all', true)).toContain('--share-net');
    expect(args([])).toEqual(
      expect.arrayContaining(['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent']),
    );
  });

  it('mounts a symlinked system directory as the symlink it is', () => {
    expect(plan.mounts).toContainEqual({
      op: 'symlink',
      target: 'usr/bin',
      dest: '/bin',
      why: 'system',
    });
  });

  it('never follows a grant entry that is a symlink now, and says so', () => {
    const linked = fakeFs(
      { ...MACHINE },
      { '/bin': 'usr/bin', '/work/repo/out': '/work/other', '/work/repo/root': '/' },
    );
    const plan = planMounts(spec(['/work/repo/root'], ['/work/repo/out'], []), linked);
    expect(plan.mounts.some((m) => 'src' in m && (m.src === '/work/other' || m.src === '/'))).toBe(
      false,
    );
    expect(plan.skipped).toEqual([
      { path: '/work/repo/root', why: 'it is a symlink now, to /' },
      { path: '/work/repo/out', why: 'it is a symlink now, to /work/other' },
    ]);
    expect(stateAt(plan.mounts, '/proc/1/environ').kind).not.toBe('host');
  });

  it('leaves a PATH entry the grant shows to the grant: a link planted there is not followed', () => {
    const planted = fakeFs({ ...MACHINE }, { '/bin': 'usr/bin', '/work/repo/.venv': '/' });
    const plan = planMounts(
      { ...spec([CWD], [CWD], []), pathEntries: ['/work/repo/.venv/bin', '/opt/tool/bin'] },
      planted,
    );
    expect(plan.mounts.some((m) => 'src' in m && m.src === '/')).toBe(false);
    expect(plan.mounts).toContainEqual({
      op: 'ro-bind',
      src: '/opt/tool',
      dest: '/opt/tool',
      why: 'toolchain',
    });
  });

  it('masks a credential file in a mounted toolchain', () => {
    const machine = fakeFs({ ...MACHINE, '/opt/tool/etc/npmrc': 'file' }, { '/bin': 'usr/bin' });
    const plan = planMounts(spec([CWD], [CWD], []), machine);
    expect(plan.mounts).toContainEqual({ op: 'mask', dest: '/opt/tool/etc/npmrc', why: 'protect' });
  });

  it.each([
    ['/home/u/.nvm/versions/node/v22/bin', '/home/u/.nvm/versions/node/v22'],
    ['/home/u/.cargo/bin', '/home/u/.cargo/bin'],
    ['/home/u/.pyenv/shims', '/home/u/.pyenv/shims'],
    ['/home/u/.local/bin', '/home/u/.local/bin'],
    ['/home/u/bin', '/home/u/bin'],
    ['/opt/bin', '/opt/bin'],
    ['/home/bin', '/home/bin'],
    ['/opt/go/bin', '/opt/go'],
    ['node_modules/.bin', undefined],
  ])('mounts the toolchain of PATH entry %s as %s', (entryPath, root) => {
    expect(toolchainRoot(entryPath, '/home/u')).toBe(root);
  });
});
