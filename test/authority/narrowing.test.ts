import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isToolAllowed, meetToolGrants, patternWithin } from '../../src/authority/index.js';

describe('patternWithin', () => {
  it.each([
    ['fs.read', '*', true],
    ['*', 'fs.*', false],
    ['fs.read', 'fs.*', true],
    ['fs.*', 'fs.read', false],
    ['fs.*', 'f*', true],
    ['f*', 'fs.*', false],
    ['fs.read', 'fs.read', true],
    ['fs.read', 'fs.write', false],
  ])('%s within %s: %s', (narrow, wide, expected) => {
    expect(patternWithin(narrow, wide)).toBe(expected);
  });
});

describe('meetToolGrants', () => {
  it('keeps an unnarrowed side out of the way and intersects the rest', () => {
    expect(meetToolGrants(undefined, undefined)).toBeUndefined();
    expect(meetToolGrants(undefined, ['fs.read'])).toEqual(['fs.read']);
    expect(meetToolGrants(['fs.*'], undefined)).toEqual(['fs.*']);
    expect(meetToolGrants(['fs.*', 'memory.get'], ['fs.read', 'exec', 'memory.*'])).toEqual([
      'fs.read',
      'memory.get',
    ]);
    expect(meetToolGrants(['fs.read'], [])).toEqual([]);
  });

  const name = fc.constantFrom(
    'fs.read',
    'fs.write',
    'fs.list',
    'exec',
    'memory.get',
    'memory.set',
    'github.create_issue',
    'gh.x',
  );
  const pattern = fc.oneof(
    name,
    fc.constantFrom('*', 'fs.*', 'f*', 'memory.*', 'git*', 'github.*', 'g*'),
  );
  const grant = fc.option(fc.array(pattern, { maxLength: 4 }), { nil: undefined });

  it('allows exactly the names both sides allow (property)', () => {
    fc.assert(
      fc.property(
        grant,
        grant,
        fc.array(name, { minLength: 1, maxLength: 8 }),
        (parent, requested, names) => {
          const met = meetToolGrants(parent, requested);
          for (const n of names) {
            expect(isToolAllowed(n, met)).toBe(
              isToolAllowed(n, parent) && isToolAllowed(n, requested),
            );
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
