import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatNetEntry,
  meetNetScopes,
  parseNetEntry,
  permitsNet,
  type NetEntry,
} from '../../src/authority/index.js';
import type { Scope } from '../../src/protocol/index.js';

describe('parseNetEntry', () => {
  it.each([
    ['api.example.com', 'api.example.com'],
    ['API.Example.COM.', 'api.example.com'],
    ['api.example.com:8443', 'api.example.com:8443'],
    ['*.example.com', '*.example.com'],
    ['*.example.com:443', '*.example.com:443'],
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.1:8080', '127.0.0.1:8080'],
    ['[::1]', '[::1]'],
    ['[::1]:8080', '[::1]:8080'],
    ['::1', '[::1]'],
    ['localhost', 'localhost'],
  ])('reads `%s` as `%s`', (text, canonical) => {
    const entry = parseNetEntry(text);
    if (typeof entry === 'string') throw new Error(entry);
    expect(formatNetEntry(entry)).toBe(canonical);
  });

  it.each([
    ['', 'an empty host'],
    ['exa mple.com', 'expected a host name'],
    ['example.com:0', 'port from 1 to 65535'],
    ['example.com:99999', 'port from 1 to 65535'],
    ['example.com:http', 'port from 1 to 65535'],
    ['*.127.0.0.1', 'needs a name'],
    ['[::1', 'closing'],
    ['127.1', 'expected a host name'],
    ['http://example.com', 'expected a host name'],
  ])('refuses `%s`, saying %s', (text, why) => {
    const entry = parseNetEntry(text);
    expect(typeof entry).toBe('string');
    expect(entry).toContain(why);
  });
});

describe('permitsNet', () => {
  const scope = ['registry.npmjs.org', '*.example.com', 'api.test:8443', '127.0.0.1:9000'];
  it.each([
    ['registry.npmjs.org', 443, true, true],
    ['REGISTRY.npmjs.org.', 80, true, true],
    ['evil.registry.npmjs.org', 443, false, false],
    ['registry.npmjs.org.evil.com', 443, false, false],
    ['npmjs.org', 443, false, false],
    ['a.example.com', 443, true, false],
    ['a.b.example.com', 443, true, false],
    ['example.com', 443, false, false],
    ['api.test', 8443, true, true],
    ['api.test', 443, false, false],
    ['127.0.0.1', 9000, true, true],
    ['127.0.0.1', 9001, false, false],
  ])('%s:%i → allowed %s, named %s', (host, port, allowed, named) => {
    expect(permitsNet(scope, host, port)).toEqual({ allowed, named });
  });

  it('`all` allows every host and names none; `none` allows nothing', () => {
    expect(permitsNet('all', '10.0.0.1', 80)).toEqual({ allowed: true, named: false });
    expect(permitsNet([], 'example.com', 443)).toEqual({ allowed: false, named: false });
  });
});

describe('meetNetScopes', () => {
  it.each<[Scope, Scope, Scope]>([
    ['all', 'all', 'all'],
    ['all', ['a.com'], ['a.com']],
    [['*.example.com'], ['api.example.com'], ['api.example.com']],
    [['*.example.com'], ['*.a.example.com'], ['*.a.example.com']],
    [['*.example.com'], ['example.com'], []],
    [['api.test'], ['api.test:8443'], ['api.test:8443']],
    [['api.test:80'], ['api.test:8443'], []],
    [['a.com', 'b.com'], ['b.com'], ['b.com']],
    [['bad host'], 'all', []],
    [['*.example.com:443'], ['*.api.example.com'], ['*.api.example.com:443']],
  ])('%j ⊓ %j = %j', (a, b, expected) => {
    expect(meetNetScopes(a, b)).toEqual(expected);
  });

  const hosts = ['example.com', 'api.example.com', 'a.api.example.com', 'other.org'];
  const entry = fc.record({
    host: fc.constantFrom(...hosts),
    port: fc.constantFrom(undefined, 80, 443),
    wildcard: fc.boolean(),
  });
  const scope: fc.Arbitrary<Scope> = fc.oneof(
    fc.constant('all' as const),
    fc.array(
      entry.map((e: NetEntry) => formatNetEntry(e)),
      { maxLength: 3 },
    ),
  );
  const target = fc.tuple(
    fc.constantFrom(...hosts, 'x.a.api.example.com'),
    fc.constantFrom(80, 443),
  );

  it('allows exactly what both sides allow (property)', () => {
    fc.assert(
      fc.property(scope, scope, target, (a, b, [host, port]) => {
        const both = permitsNet(a, host, port).allowed && permitsNet(b, host, port).allowed;
        expect(permitsNet(meetNetScopes(a, b), host, port).allowed).toBe(both);
      }),
    );
  });
});
