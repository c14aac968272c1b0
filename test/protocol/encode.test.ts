import { describe, expect, it } from 'vitest';
import {
  ArborError,
  MAX_FRAME_BYTES,
  encodeFrame,
  fromErrorPayload,
  isArborError,
  toErrorPayload,
} from '../../src/protocol/index.js';

describe('encodeFrame', () => {
  it('writes exactly one line per frame, whatever the strings hold', () => {
    const line = encodeFrame({ type: 'inject', message: 'a\nb\r\nc\u2028d' });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(line).toBe('{"type":"inject","message":"a\\nb\\r\\nc\u2028d"}\n');
  });

  it('refuses a frame over the cap before it is written', () => {
    const message = 'x'.repeat(MAX_FRAME_BYTES);
    let caught: unknown;
    try {
      encodeFrame({ type: 'inject', message });
    } catch (error) {
      caught = error;
    }
    expect(isArborError(caught, 'frame_too_large')).toBe(true);
    expect((caught as ArborError).details).toMatchObject({
      type: 'inject',
      maxBytes: MAX_FRAME_BYTES,
    });
  });

  it('counts bytes, not characters, against the cap', () => {
    // 6 million three-byte characters: under the cap in characters, over it in bytes.
    expect(() => encodeFrame({ type: 'inject', message: '€'.repeat(6_000_000) })).toThrow(/bytes/);
  });
});

describe('error wire form', () => {
  it('round-trips an ArborError', () => {
    const error = new ArborError(
      'config',
      'Expected `max_steps` to be a positive integer, got `0`.',
      { details: { field: 'max_steps' } },
    );
    const back = fromErrorPayload(toErrorPayload(error));
    expect(back).toBeInstanceOf(ArborError);
    expect(back.code).toBe('config');
    expect(back.fault).toBe('user');
    expect(back.message).toBe(error.message);
    expect(back.details).toEqual({ field: 'max_steps' });
  });

  it('turns foreign errors and unknown codes into internal errors', () => {
    expect(toErrorPayload(new TypeError('boom'))).toEqual({
      code: 'internal',
      message: 'boom',
      details: {},
    });
    const back = fromErrorPayload({ code: 'from_the_future', message: 'm', details: {} });
    expect(back.code).toBe('internal');
    expect(back.details).toEqual({ code: 'from_the_future' });
  });
});
