import { describe, expect, it } from 'vitest';
import { FLEET_KEY_VARIABLE, FleetKey } from '../../src/fleet/fleet-key.js';

const SECRET = 'k'.repeat(32);
const key = FleetKey.fromEnv({ [FLEET_KEY_VARIABLE]: SECRET });

describe('FleetKey.fromEnv', () => {
  it.each([
    ['unset', {}],
    ['empty', { [FLEET_KEY_VARIABLE]: '' }],
  ])('refuses a key that is %s, naming the variable', (_, env) => {
    expect(() => FleetKey.fromEnv(env)).toThrow(
      expect.objectContaining({
        code: 'config',
        message: expect.stringContaining('`ARBOR_FLEET_KEY`') as unknown,
      }),
    );
  });

  it('refuses a key shorter than 32 characters, saying how long it was and never echoing it', () => {
    const short = 'abcdefghij0123456789ABCDEFGHIJK';
    expect(short).toHaveLength(31);
    let caught: unknown;
    try {
      FleetKey.fromEnv({ [FLEET_KEY_VARIABLE]: short });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'config' });
    const message = (caught as Error).message;
    expect(message).toContain('at least 32 characters, got 31');
    expect(message).not.toContain(short);
  });

  it('accepts a key of exactly 32 characters', () => {
    expect(FleetKey.fromEnv({ [FLEET_KEY_VARIABLE]: SECRET })).toBeInstanceOf(FleetKey);
  });
});

describe('FleetKey.sign and verify', () => {
  it('signs deterministically as 64 hex characters, and never includes the key', () => {
    const mac = key.sign('job:1', 'body');
    expect(mac).toMatch(/^[0-9a-f]{64}$/);
    expect(key.sign('job:1', 'body')).toBe(mac);
    expect(mac).not.toContain(SECRET);
  });

  it('verifies its own MAC', () => {
    expect(key.verify('job:1', 'body', key.sign('job:1', 'body'))).toBe(true);
  });

  it('binds the MAC to the scope, the text and the key', () => {
    const mac = key.sign('job:1', 'body');
    const other = FleetKey.fromEnv({ [FLEET_KEY_VARIABLE]: 'x'.repeat(40) });
    expect(key.sign('job:2', 'body')).not.toBe(mac);
    expect(key.sign('job:1', 'body!')).not.toBe(mac);
    expect(other.sign('job:1', 'body')).not.toBe(mac);
    expect(key.verify('job:2', 'body', mac)).toBe(false);
    expect(key.verify('job:1', 'body!', mac)).toBe(false);
    expect(other.verify('job:1', 'body', mac)).toBe(false);
  });

  it('separates the scope from the text', () => {
    // Without a separator `ab` + `c` and `a` + `bc` would share a MAC.
    expect(key.sign('ab', 'c')).not.toBe(key.sign('a', 'bc'));
  });

  it.each([
    ['empty', ''],
    ['not hex', 'z'.repeat(64)],
    ['truncated', key.sign('job:1', 'body').slice(0, 62)],
    ['one bit off', flipLastNibble(key.sign('job:1', 'body'))],
    ['the genuine MAC with text after it', `${key.sign('job:1', 'body')}zz`],
    ['the genuine MAC in upper case', key.sign('job:1', 'body').toUpperCase()],
  ])('refuses a MAC that is %s, without throwing', (_, mac) => {
    expect(key.verify('job:1', 'body', mac)).toBe(false);
  });
});

function flipLastNibble(hex: string): string {
  const last = hex.at(-1) === '0' ? '1' : '0';
  return hex.slice(0, -1) + last;
}
