import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SubtaskSchema } from '../../src/plan/index.js';
import { type Caveats, type CountBound, type Scope } from '../../src/protocol/index.js';
import {
  CaveatPolicySchema,
  defaultRunGrant,
  leafCaveats,
  policyToCaveats,
  type CaveatPolicy,
  bottomCaveats,
  permitsExec,
  permitsNet,
  topCaveats,
  permitsPath,
} from '../../src/authority/index.js';

const cwd = '/work/repo';

describe('policyToCaveats (default-deny)', () => {
  it('an omitted policy denies every axis and allows no tool calls', () => {
    expect(policyToCaveats(undefined)).toEqual(bottomCaveats());
    expect(policyToCaveats({})).toEqual(bottomCaveats());
    const parsed = SubtaskSchema.parse({ id: 'a', instruction: 'A.' });
    expect(policyToCaveats(parsed.caveat_policy)).toEqual(bottomCaveats());
  });

  it('an omitted axis denies while the named ones lower as written', () => {
    const policy = CaveatPolicySchema.parse({ fs_read: 'all', exec: ['npm test'], net: 'none' });
    expect(policyToCaveats(policy)).toEqual({
      fs_read: 'all',
      fs_write: [],
      exec: ['npm test'],
      net: [],
      max_calls: 0,
    });
  });

  it('refuses an axis it does not know, so a typo cannot pass for a grant', () => {
    expect(CaveatPolicySchema.safeParse({ fs_wirte: 'all' }).success).toBe(false);
  });
});

describe('leafCaveats', () => {
  const grant = defaultRunGrant(cwd);

  it('the default run grant confines files to the working directory only', () => {
    expect(grant).toEqual({
      fs_read: [cwd],
      fs_write: [cwd],
      exec: 'all',
      net: 'all',
      max_calls: 'unlimited',
    });
  });

  it('meets a relative policy with an absolute grant as paths, not as strings', () => {
    const subtask = SubtaskSchema.parse({
      id: 'fix',
      instruction: 'Fix.',
      context: ['src/util.ts'],
      caveat_policy: {
        fs_read: 'all',
        fs_write: ['src/', '/etc'],
        exec: ['npm test'],
        max_calls: 40,
      },
    });
    // The lane (`context`) is folded into fs_write: src/ ⊓ src/util.ts.
    expect(leafCaveats(grant, subtask, { cwd })).toEqual({
      fs_read: [cwd],
      fs_write: [`${cwd}/src/util.ts`],
      exec: ['npm test'],
      net: [],
      max_calls: 40,
    });
  });

  it('a subtask with no policy gets nothing, whatever the parent holds', () => {
    const subtask = SubtaskSchema.parse({ id: 'a', instruction: 'A.' });
    expect(leafCaveats(topCaveats(), subtask, { cwd })).toEqual(bottomCaveats());
  });

  it('"all" in a policy means everything the parent has, never more', () => {
    const parent: Caveats = {
      ...grant,
      exec: ['npm test'],
      net: ['registry.npmjs.org'],
      max_calls: 9,
    };
    const subtask = SubtaskSchema.parse({
      id: 'a',
      instruction: 'A.',
      caveat_policy: {
        fs_read: 'all',
        fs_write: 'all',
        exec: 'all',
        net: 'all',
        max_calls: 'unlimited',
      },
    });
    expect(leafCaveats(parent, subtask, { cwd })).toEqual(parent);
  });

  const paths = fc.constantFrom(
    '/work/repo',
    '/work/repo/src',
    '/work',
    '/etc',
    'src',
    'src/a.ts',
    'docs',
    '../x',
  );
  const scope: fc.Arbitrary<Scope> = fc.oneof(
    fc.constant('all' as const),
    fc.array(paths, { maxLength: 3 }),
  );
  const command = fc.constantFrom('npm test', 'cargo', './cargo', 'cargo; curl x');
  const commands: fc.Arbitrary<Scope> = fc.oneof(
    fc.constant('all' as const),
    fc.array(command, { maxLength: 3 }),
  );
  const count: fc.Arbitrary<CountBound> = fc.oneof(
    fc.constant('unlimited' as const),
    fc.nat({ max: 9 }),
  );
  const caveats: fc.Arbitrary<Caveats> = fc.record({
    fs_read: scope,
    fs_write: scope,
    exec: commands,
    net: commands,
    max_calls: count,
  });
  const policy: fc.Arbitrary<CaveatPolicy> = fc.record(
    { fs_read: scope, fs_write: scope, exec: commands, net: commands, max_calls: count },
    { requiredKeys: [] },
  );

  it('never widens past the parent, on any axis, whatever the lane (property)', () => {
    fc.assert(
      fc.property(
        caveats,
        policy,
        paths,
        command,
        fc.nat({ max: 12 }),
        fc.array(fc.constantFrom('src/', 'src/a.ts', 'docs', '.', '../x', '/etc'), {
          maxLength: 3,
        }),
        (parent, p, path, cmd, used, lane) => {
          // The write lane is folded in too: it may only ever take authority away.
          const leaf = leafCaveats(parent, { caveat_policy: p, context: lane }, { cwd });
          const lowered = policyToCaveats(p);
          for (const axis of ['fs_read', 'fs_write'] as const) {
            if (permitsPath(leaf[axis], path, { cwd })) {
              expect(permitsPath(parent[axis], path, { cwd })).toBe(true);
              expect(permitsPath(lowered[axis], path, { cwd })).toBe(true);
            }
          }
          if (permitsExec(leaf, cmd))
            expect(permitsExec(parent, cmd) && permitsExec(lowered, cmd)).toBe(true);
          if (permitsNet(leaf.net, cmd, 443).allowed)
            expect(
              permitsNet(parent.net, cmd, 443).allowed && permitsNet(lowered.net, cmd, 443).allowed,
            ).toBe(true);
          const allowsCall = (bound: CountBound): boolean => bound === 'unlimited' || used < bound;
          if (allowsCall(leaf.max_calls))
            expect(allowsCall(parent.max_calls) && allowsCall(lowered.max_calls)).toBe(true);
        },
      ),
    );
  });
});
