import { describe, expect, it } from 'vitest';
import {
  MIN_SECRET_LENGTH,
  OPAQUE_FIELDS,
  payloadSecrets,
  REDACTED,
  SecretScrubber,
} from '../../src/protocol/index.js';
import { testPayload } from '../helpers/payloads.js';

const KEY = 'sk-live-0123456789abcdef';
const TOKEN = 'mcp-header-token-XYZ987';

describe('SecretScrubber: text', () => {
  it('replaces every value of the run, wherever it stands, and every credential shape', () => {
    const scrub = new SecretScrubber([TOKEN, 'redis-pass-42']);
    expect(scrub.text(`a${TOKEN}b and redis-pass-42, and ghp_0123456789abcdef`)).toBe(
      `a${REDACTED}b and ${REDACTED}, and ${REDACTED}`,
    );
  });

  it('matches a value whatever its case: a key echoed in upper case is still the key', () => {
    expect(new SecretScrubber([TOKEN]).text(TOKEN.toUpperCase())).toBe(REDACTED);
  });

  it('takes the longer of two values that overlap whole', () => {
    expect(new SecretScrubber(['abcdefgh', 'abcdefgh-ijkl']).text('x abcdefgh-ijkl y')).toBe(
      `x ${REDACTED} y`,
    );
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters: they would blank ordinary words`, () => {
    const scrub = new SecretScrubber(['secret7', 'none', '']);
    expect(scrub.text('a secret7 of none')).toBe('a secret7 of none');
    expect(new SecretScrubber(['secret78']).text('a secret78')).toBe(`a ${REDACTED}`);
  });

  it('treats a value as text, never as a pattern', () => {
    expect(new SecretScrubber(['a.b*c+d?e(f)']).text('a.b*c+d?e(f) axbbbcdde(f)')).toBe(
      `${REDACTED} axbbbcdde(f)`,
    );
  });

  it('applies secrets added later, from then on', () => {
    const scrub = new SecretScrubber();
    expect(scrub.text(`k=${TOKEN}`)).toBe(`k=${TOKEN}`);
    scrub.add([TOKEN]);
    expect(scrub.text(`k=${TOKEN}`)).toBe(`k=${REDACTED}`);
  });
});

describe('SecretScrubber: deep', () => {
  const scrub = new SecretScrubber([KEY]);

  it('scrubs every string of a JSON value, keys included', () => {
    const value = {
      status: 'completed',
      result: { text: `the key is ${KEY}`, list: [1, KEY, null, true], [KEY]: 'as a key' },
    };
    const out = scrub.deep(value);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out).toEqual({
      status: 'completed',
      result: {
        text: `the key is ${REDACTED}`,
        list: [1, REDACTED, null, true],
        [REDACTED]: 'as a key',
      },
    });
  });

  it('returns what holds no secret as it was, not a copy', () => {
    const value = { a: { b: ['x', 1] }, c: 'plain' };
    expect(scrub.deep(value)).toBe(value);
  });

  it('copies only what changed: keys before and after a secret keep their order, untouched parts are the same objects', () => {
    const value = JSON.parse(
      `{"__proto__": "plain", "kept": {"x": 1}, "key": "${KEY}", "after": ["y"]}`,
    ) as Record<string, unknown>;
    const out = scrub.deep(value);
    expect(out).not.toBe(value);
    expect(Object.keys(out)).toEqual(['__proto__', 'kept', 'key', 'after']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('plain');
    expect(out.kept).toBe(value.kept);
    expect(out.after).toBe(value.after);
    expect(out.key).toBe(REDACTED);
    const list = ['a', 'b', KEY, 'c'];
    expect(scrub.deep(list)).toEqual(['a', 'b', REDACTED, 'c']);
  });

  it('keeps a `__proto__` key a key', () => {
    const value: unknown = JSON.parse(`{"__proto__": "${KEY}"}`);
    const out = scrub.deep(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe(REDACTED);
  });

  it('leaves opaque provider fields alone at the top level it is told of, and nowhere else', () => {
    const message = {
      role: 'assistant',
      text: `echo ${KEY}`,
      signature: `sig-${KEY}`,
      encrypted_content: KEY,
      tool_calls: [{ id: 't1', name: 'x', args: { signature: KEY } }],
    };
    const out = scrub.deep(message, OPAQUE_FIELDS);
    expect(out.signature).toBe(`sig-${KEY}`);
    expect(out.encrypted_content).toBe(KEY);
    expect(out.text).toBe(`echo ${REDACTED}`);
    // A key named like an opaque field inside the model's own tool arguments is scrubbed.
    expect(out.tool_calls[0]?.args).toEqual({ signature: REDACTED });
    expect(scrub.deep(message).signature).toBe(`sig-${REDACTED}`);
  });
});

describe('payloadSecrets', () => {
  it('collects credentials, not every header: a content type is no secret', () => {
    const payload = testPayload({
      intelligence: {
        endpoints: [
          {
            url: 'https://user:url-password-1@llm.example/v1',
            dialect: 'openai',
            api_key: KEY,
            headers: {
              'x-api-token': 'Bearer hdr-token-123456',
              'content-type': 'application/json',
            },
          },
        ],
        model: 'scripted',
      },
      mcp_servers: [
        {
          name: 'gh',
          command: 'node',
          env: { GITHUB_TOKEN: TOKEN, NODE_ENV: 'production' },
          headers: {},
        },
      ],
    });
    const secrets = payloadSecrets(payload);
    expect(secrets).toEqual(
      expect.arrayContaining([
        KEY,
        'Bearer hdr-token-123456',
        'hdr-token-123456',
        TOKEN,
        'url-password-1',
      ]),
    );
    expect(secrets).not.toContain('application/json');
    expect(secrets).not.toContain('production');
  });
});
