import { describe, expect, it } from 'vitest';
import { fleetRedisUrl, REDIS_URL_VARIABLE } from '../../src/fleet/redis-url.js';

const PASSWORD = 'hunter2-redis-SECRET';
const SECRET_URL = `redis://:${PASSWORD}@10.0.0.5:6379/0`;

/** The error `run` throws (it must throw one). */
function thrown(run: () => unknown): Error & { code?: string } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected an error');
}

describe('fleetRedisUrl', () => {
  it('is undefined when nothing names a Redis', () => {
    expect(fleetRedisUrl({}, {})).toBeUndefined();
  });

  it('takes `--redis` without a password', () => {
    expect(fleetRedisUrl({ flag: 'redis://q.example:6380' }, {})).toBe('redis://q.example:6380');
  });

  it('refuses `--redis` with a password, and never echoes it', () => {
    const error = thrown(() => fleetRedisUrl({ flag: SECRET_URL }, {}));
    expect(error.code).toBe('usage');
    expect(error.message).toContain('`--redis` must not carry a password');
    expect(error.message).toContain(REDIS_URL_VARIABLE);
    expect(error.message).not.toContain(PASSWORD);
  });

  it('prefers `--redis` to the variable and the config', () => {
    expect(
      fleetRedisUrl(
        { flag: 'redis://flag:1', config: 'redis://config:1' },
        { [REDIS_URL_VARIABLE]: 'redis://env:1' },
      ),
    ).toBe('redis://flag:1');
  });

  it('takes a password from `ARBOR_REDIS_URL`, ahead of the config', () => {
    expect(
      fleetRedisUrl({ config: 'redis://config:1' }, { [REDIS_URL_VARIABLE]: SECRET_URL }),
    ).toBe(SECRET_URL);
  });

  it('takes `rediss://` (TLS)', () => {
    const url = `rediss://:${PASSWORD}@q.example:6380`;
    expect(fleetRedisUrl({}, { [REDIS_URL_VARIABLE]: url })).toBe(url);
  });

  it('ignores an empty `ARBOR_REDIS_URL`', () => {
    expect(fleetRedisUrl({ config: 'redis://config:1' }, { [REDIS_URL_VARIABLE]: '' })).toBe(
      'redis://config:1',
    );
  });

  it.each(['env:FLEET_REDIS', '{{env:FLEET_REDIS}}', '  env:FLEET_REDIS  '])(
    'resolves `[queue] redis = "%s"` from the environment, password and all',
    (reference) => {
      expect(fleetRedisUrl({ config: reference }, { FLEET_REDIS: SECRET_URL })).toBe(SECRET_URL);
    },
  );

  it.each([{}, { FLEET_REDIS: '' }])(
    'says which variable `[queue] redis` names when it is not set (%o)',
    (env) => {
      const error = thrown(() => fleetRedisUrl({ config: 'env:FLEET_REDIS' }, env));
      expect(error.code).toBe('config');
      expect(error.message).toBe(
        '`[queue] redis` names the environment variable `FLEET_REDIS`, which is not set.',
      );
    },
  );

  it('refuses a password written in `[queue] redis` itself, and never echoes it', () => {
    const error = thrown(() => fleetRedisUrl({ config: SECRET_URL }, {}));
    expect(error.code).toBe('usage');
    expect(error.message).toContain('`[queue] redis` must not carry a password');
    expect(error.message).not.toContain(PASSWORD);
  });

  it.each([
    ['--redis', { flag: 'http://q.example:6379' }, {}, '`--redis`'],
    ['the variable', {}, { [REDIS_URL_VARIABLE]: `https://:${PASSWORD}@q:1` }, REDIS_URL_VARIABLE],
    ['the config', { config: 'tcp://q.example:6379' }, {}, '`[queue] redis`'],
  ])('refuses a non-Redis protocol from %s', (_, given, env, where) => {
    const error = thrown(() => fleetRedisUrl(given, env));
    expect(error.code).toBe('usage');
    expect(error.message).toContain(where);
    expect(error.message).toContain('`redis://` or `rediss://`');
    expect(error.message).not.toContain(PASSWORD);
  });

  it('refuses text that is not a URL, naming where it came from', () => {
    const error = thrown(() => fleetRedisUrl({}, { [REDIS_URL_VARIABLE]: 'not a url' }));
    expect(error.code).toBe('usage');
    expect(error.message).toContain('Expected `ARBOR_REDIS_URL` to be a URL');
  });

  it.each([
    ['a bad port', `redis://:${PASSWORD}@host:99999`],
    ['a space in the host', `redis://:${PASSWORD}@bad host:6379`],
    ['an unclosed bracket', `redis://:${PASSWORD}@[::1:6379`],
  ])('never echoes the password of a URL with %s', (_, url) => {
    const error = thrown(() => fleetRedisUrl({}, { [REDIS_URL_VARIABLE]: url }));
    expect(error.message).toContain('to be a URL such as');
    expect(error.message).not.toContain(PASSWORD);
  });
});
