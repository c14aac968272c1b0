import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentFrameSchema,
  ControlFrameSchema,
  FRAME_TYPES,
  createFrameReader,
  encodeFrame,
  findForbiddenKey,
  type DecodeResult,
  type Frame,
} from '../../src/protocol/index.js';
import { validFixtures } from '../helpers/protocol-fixtures.js';

function normalize(value: Frame): Frame {
  return FRAME_TYPES.down.includes(value.type)
    ? ControlFrameSchema.parse(value)
    : AgentFrameSchema.parse(value);
}

/** Splits bytes at the given cut points (taken modulo the length), in order. */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [
    ...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % (bytes.length + 1)))),
  ].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  out.push(bytes.subarray(start));
  return out;
}

function decodeChunks(chunks: Buffer[], maxLineBytes?: number): DecodeResult<Frame>[] {
  const reader = createFrameReader('any', maxLineBytes === undefined ? {} : { maxLineBytes });
  const out: DecodeResult<Frame>[] = [];
  for (const chunk of chunks) out.push(...reader.push(chunk));
  out.push(...reader.end());
  return out;
}

const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => findForbiddenKey(v) === undefined);
const jsonObject = fc
  .dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 })
  .filter((v) => findForbiddenKey(v) === undefined);
const count = fc.nat({ max: Number.MAX_SAFE_INTEGER });
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const text = fc.string({ unit: 'binary', maxLength: 40 });

/** Arbitrary valid frames: generated variants plus every golden frame. */
const frame: fc.Arbitrary<Frame> = fc.oneof(
  count.map((seq): Frame => ({ type: 'ping', seq })),
  count.map((seq): Frame => ({ type: 'pong', seq })),
  text.map((message): Frame => ({ type: 'inject', message })),
  text.map((reason): Frame => ({ type: 'cancel', reason })),
  fc
    .record({ event: text.filter((s) => s.length > 0), fields: jsonObject })
    .map((f): Frame => ({ type: 'event', ...f })),
  fc
    .record({ input_tokens: count, output_tokens: count })
    .map((u): Frame => ({ type: 'usage', ...u })),
  fc
    .record({ id, name: text.filter((s) => s.length > 0), args: jsonObject })
    .map((f): Frame => ({ type: 'tool_request', ...f })),
  fc
    .record({ id, result: json, is_error: fc.boolean() })
    .map((f): Frame => ({ type: 'tool_result', ...f })),
  fc.record({ id, estimate: count }).map((f): Frame => ({ type: 'budget_request', ...f })),
  fc
    .constantFrom(...validFixtures())
    .map((fixture) => JSON.parse(fixture.bytes.toString('utf8')) as Frame),
);

describe('codec properties', () => {
  it('never throws on arbitrary bytes in arbitrary chunkings', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 64 }),
        (bytes, cuts, cap) => {
          const data = Buffer.from(bytes);
          const results = decodeChunks(split(data, cuts), cap);
          const lines = data.toString('latin1').split('\n').length;
          expect(results.length).toBeLessThanOrEqual(lines);
          // Line numbers only grow.
          const numbers = results.map((r) => (r.ok ? r.line : r.violation.line));
          expect([...numbers].sort((a, b) => a - b)).toEqual(numbers);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text that looks like frames', () => {
    const fragments = fc.constantFrom(
      '{',
      '}',
      '"type"',
      ':',
      '"ping"',
      ',',
      '"seq"',
      '1',
      '\n',
      '\r\n',
      '"__proto__"',
      '\\u0063',
      '[',
      ']',
      'null',
      '"',
    );
    fc.assert(
      fc.property(
        fc.array(fragments, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (parts, cuts) => {
          decodeChunks(split(Buffer.from(parts.join('')), cuts));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips every valid frame through encode → decode under arbitrary chunk splits', () => {
    fc.assert(
      fc.property(
        fc.array(frame, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (frames, cuts) => {
          const encoded = Buffer.from(frames.map(encodeFrame).join(''));
          const results = decodeChunks(split(encoded, cuts));
          expect(results).toHaveLength(frames.length);
          results.forEach((result, i) => {
            if (!result.ok) throw new Error(result.violation.reason);
            expect(result.line).toBe(i + 1);
            // Decoding fills defaults, so compare against the frame normalized by its schema.
            expect(JSON.stringify(result.frame)).toBe(JSON.stringify(normalize(frames[i]!)));
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
