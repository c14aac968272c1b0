import { describe, expect, it, vi } from 'vitest';
import type * as Protocol from '../../src/protocol/index.js';
import { invalidFixtures, validFixtures } from '../helpers/protocol-fixtures.js';

/**
 * The decoder parses a frame type's first occurrence with zod's interpreted parser and compiles the
 * schema from the second on (`spawn` never). Both paths must give the same frames and the same
 * violations, so every fixture is decoded three times by a decoder that has seen nothing yet.
 */
async function freshProtocol(): Promise<typeof Protocol> {
  vi.resetModules();
  return import('../../src/protocol/index.js');
}

describe('first and later decodes of a frame type', () => {
  it('give the same frame for every golden frame', async () => {
    const { decodeLine, FRAME_TYPES } = await freshProtocol();
    for (const fixture of validFixtures()) {
      const text = fixture.bytes.toString('utf8').trimEnd();
      const direction = FRAME_TYPES.down.includes(fixture.type) ? 'down' : 'up';
      const [first, second, third] = [1, 2, 3].map(() => decodeLine(text, 1, direction));
      expect(first?.ok, fixture.name).toBe(true);
      expect(second, fixture.name).toEqual(first);
      expect(third, fixture.name).toEqual(first);
    }
  });

  it('give the same violation for every negative frame', async () => {
    const { createFrameReader } = await freshProtocol();
    for (const fixture of invalidFixtures()) {
      const results = [1, 2, 3].map(() => {
        const reader = createFrameReader(fixture.direction ?? 'any');
        return [...reader.push(fixture.bytes), ...reader.end()];
      });
      expect(results[0]?.[0]?.ok, fixture.name).toBe(false);
      expect(results[1], fixture.name).toEqual(results[0]);
      expect(results[2], fixture.name).toEqual(results[0]);
    }
  });

  it('report the same issues when a frame of a known type is invalid', async () => {
    const { decodeLine } = await freshProtocol();
    const bad = JSON.stringify({ type: 'tool_result', id: -1, result: 'x', is_error: 'no' });
    const results = [1, 2, 3].map(() => decodeLine(bad, 7, 'down'));
    expect(results[0]).toMatchObject({ ok: false, violation: { code: 'invalid_frame', line: 7 } });
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});
