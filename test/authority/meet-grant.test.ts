import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  completeRequest,
  leafCaveats,
  meetGrant,
  permitsExec,
  permitsNet,
  permitsPath,
  policyToCaveats,
} from '../../src/authority/index.js';
import type { Caveats, Scope } from '../../src/protocol/index.js';

const cwd = '/work/repo';
const path = fc.constantFrom('/work/repo', '/work/repo/src', '/work', 'src', 'docs', '/etc');
const host = fc.constantFrom('a.com', '*.a.com', 'b.a.com', 'b.a.com:443', 'c.org');
const scopeOf = <T extends string>(items: fc.Arbitrary<T>): fc.Arbitrary<Scope> =>
  fc.oneof(fc.constant('all' as const), fc.array(items, { maxLength: 3 }));
const caveats: fc.Arbitrary<Caveats> = fc.record({
  fs_read: scopeOf(path),
  fs_write: scopeOf(path),
  exec: scopeOf(fc.constantFrom('npm test', 'make')),
  net: scopeOf(host),
  max_calls: fc.oneof(fc.constant('unlimited' as const), fc.nat({ max: 9 })),
});

describe('meetGrant: one meet for the chokepoint and plan leaves', () => {
  it('allows exactly what both sides allow, on every axis (property)', () => {
    fc.assert(
      fc.property(
        caveats,
        caveats,
        path,
        fc.constantFrom('npm test', 'make', 'rm'),
        host,
        (a, b, p, cmd, h) => {
          const met = meetGrant(a, b, { cwd });
          for (const axis of ['fs_read', 'fs_write'] as const) {
            expect(permitsPath(met[axis], p, { cwd })).toBe(
              permitsPath(a[axis], p, { cwd }) && permitsPath(b[axis], p, { cwd }),
            );
          }
          expect(permitsExec(met, cmd)).toBe(permitsExec(a, cmd) && permitsExec(b, cmd));
          const target = h.replace('*.', 'x.').replace(/:443$/, '');
          expect(permitsNet(met.net, target, 443).allowed).toBe(
            permitsNet(a.net, target, 443).allowed && permitsNet(b.net, target, 443).allowed,
          );
        },
      ),
    );
  });

  it('is what a leaf gets, before its lane: leafCaveats = meetGrant(parent, policy)', () => {
    fc.assert(
      fc.property(caveats, caveats, (parent, policyLike) => {
        const policy = { ...policyLike };
        expect(leafCaveats(parent, { caveat_policy: policy, context: [] }, { cwd })).toEqual(
          meetGrant(parent, policyToCaveats(policy), { cwd }),
        );
      }),
    );
  });

  it('leaves the axes a request does not name as the parent has them', () => {
    const parent: Caveats = {
      fs_read: ['/work/repo'],
      fs_write: [],
      exec: ['make'],
      net: ['a.com'],
      max_calls: 5,
    };
    expect(meetGrant(parent, completeRequest({ exec: [] }), { cwd })).toEqual({
      ...parent,
      exec: [],
    });
  });
});
