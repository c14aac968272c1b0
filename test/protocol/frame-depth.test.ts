import { describe, expect, it } from 'vitest';
import { decodeLine, MAX_FRAME_DEPTH } from '../../src/protocol/index.js';

/** An `event` frame whose fields nest `depth` levels in all (the frame itself is the first). */
function nested(depth: number, filler = ''): string {
  const inner = depth - 2;
  return `{"type":"event","event":"deep","fields":{"a":${'['.repeat(inner)}"${filler}"${']'.repeat(inner)}}}`;
}

describe('the nesting bound of a frame', () => {
  it('takes a frame nested as deep as the bound', () => {
    expect(decodeLine(nested(MAX_FRAME_DEPTH), 1, 'up')).toMatchObject({ ok: true });
  });

  it('refuses one level more, before anything walks it', () => {
    expect(decodeLine(nested(MAX_FRAME_DEPTH + 1), 4, 'up')).toMatchObject({
      ok: false,
      violation: {
        code: 'over_bound',
        line: 4,
        reason: `nested deeper than ${MAX_FRAME_DEPTH} levels`,
      },
    });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const filler = `\\"${'[{'.repeat(MAX_FRAME_DEPTH)}`;
    expect(decodeLine(nested(10, filler), 1, 'up')).toMatchObject({ ok: true });
  });
});
