import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../src/child/frame-writer.js';
import { sendTranscript } from '../../src/child/transcript-sender.js';
import {
  CHILD_BOUNDS,
  TRANSCRIPT_EVENT,
  decodeLine,
  transcriptParts,
  type AgentFrame,
  type ChildTranscriptEntry,
} from '../../src/protocol/index.js';
import { ChildBounds } from '../../src/supervisor/node/child-bounds.js';
import { TranscriptParts } from '../../src/supervisor/node/transcript-parts.js';

/** The frames a child's `sendTranscript` writes, decoded as the supervisor decodes them. */
function sent(entry: ChildTranscriptEntry): AgentFrame[] {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out += chunk.toString('utf8');
      done();
    },
  });
  sendTranscript(new FrameWriter(sink), entry);
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line, i) => {
      const decoded = decodeLine(line, i + 1, 'up');
      if (!decoded.ok) throw new Error(decoded.violation.reason);
      return decoded.frame;
    });
}

/** An assistant message calling `fs.write` with `content`. */
function writeCall(content: string): ChildTranscriptEntry {
  return {
    op: 'append',
    message: {
      role: 'assistant',
      tool_calls: [{ id: 'c1', name: 'fs.write', args: { path: 'out.txt', content } }],
      ts: 1,
    },
  };
}

function fieldsOf(frame: AgentFrame): unknown {
  return frame.type === 'event' ? frame.fields : undefined;
}

/** Feeds parts of `entry` through a fresh `TranscriptParts`, returning what it put together. */
function reassemble(fields: unknown[]): { entries: unknown[]; invalid: string[] } {
  const invalid: string[] = [];
  const parts = new TranscriptParts((reason) => invalid.push(reason));
  const entries = fields.flatMap((f) => {
    const whole = parts.take(f);
    return whole === undefined ? [] : [whole];
  });
  return { entries, invalid };
}

describe('a transcript entry sent in pieces', () => {
  it.each([
    ['a small entry', 'hello', false],
    ['a 400 KB call', 'a'.repeat(400_000), true],
    // Every quote and backslash doubles when the line is written inside a piece.
    ['a 3 MB call of quotes and backslashes', '"\\'.repeat(1_500_000), true],
    ['a call of emoji (surrogate pairs at every cut)', '😀'.repeat(300_000), true],
    ['a call of control characters', '\u0001\n'.repeat(200_000), true],
  ])('%s goes in frames within every bound and comes back whole', (_name, content, inPieces) => {
    const entry = writeCall(content);
    const out = sent(entry);
    expect(out.length > 1).toBe(inPieces);
    const bounds = new ChildBounds();
    for (const frame of out) expect(bounds.admit(frame)).toBeUndefined();
    expect(reassemble(out.map(fieldsOf))).toEqual({ entries: [entry], invalid: [] });
  });

  it('refuses, with both sizes, an entry larger than the supervisor puts together', () => {
    const content = 'x'.repeat(CHILD_BOUNDS.transcriptEntryChars);
    expect(() => sent(writeCall(content))).toThrow(
      /Expected a transcript entry of at most 33554432 characters, got \d+: the model's answer is larger than arbor records/,
    );
  });

  it('never cuts a surrogate pair', () => {
    const line = `a${'😀'.repeat(10)}`;
    const parts = transcriptParts(line, 2);
    expect(parts.map((p) => p.text).join('')).toBe(line);
    for (const part of parts) expect(part.text).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(parts.at(-1)?.last).toBe(true);
    expect(parts.slice(0, -1).every((p) => !p.last)).toBe(true);
  });
});

describe('TranscriptParts', () => {
  const whole = writeCall('x'.repeat(600_000));
  const pieces = sent(whole).map(fieldsOf);
  const small = { op: 'rewind', length: 2 };

  it.each([
    [
      'a piece out of order',
      [pieces[0], pieces[2], pieces[3]],
      [],
      [/dropped after 1 piece\(s\): piece 2 came where piece 1 was due/],
    ],
    [
      'a whole entry before the last piece (a child that died mid-way, then its successor)',
      [pieces[0], pieces[1], small],
      [small],
      [/dropped after 2 piece\(s\): a whole entry came before its last piece/],
    ],
    [
      'a new entry starting before the last piece',
      [pieces[0], ...pieces],
      [whole],
      [/dropped after 1 piece\(s\): another entry started before its last piece/],
    ],
    [
      'a piece with no entry started',
      [pieces[1], pieces[2]],
      [],
      [/piece 1 came with no entry started/],
    ],
    [
      'a malformed piece',
      [{ op: 'part', index: 0, last: 'yes', text: 'x' }],
      [],
      [/transcript piece: `last`: expected a boolean/],
    ],
    [
      'a line that is not a transcript event',
      transcriptParts(JSON.stringify({ type: 'event', event: 'other', fields: {} }), 10),
      [],
      [/expected one `transcript` event holding an entry/],
    ],
    [
      'a line that hides a forbidden key',
      transcriptParts(
        `{"type":"event","event":"${TRANSCRIPT_EVENT}","fields":{"op":"rewind","length":1,"__proto__":{}}}`,
        16,
      ),
      [],
      [/key `fields.__proto__` is not allowed/],
    ],
    [
      'pieces inside pieces',
      transcriptParts(
        JSON.stringify({ type: 'event', event: TRANSCRIPT_EVENT, fields: pieces[0] }),
        1000,
      ),
      [],
      [/expected one `transcript` event holding an entry/],
    ],
  ])('drops %s and says why', (_name, fields, entries, reasons) => {
    const out = reassemble(fields);
    expect(out.entries).toEqual(entries);
    expect(out.invalid).toHaveLength(reasons.length);
    reasons.forEach((reason, i) => {
      expect(out.invalid[i]).toMatch(reason);
    });
  });

  it('drops an entry in pieces past the bound, holding no more than the bound', () => {
    const invalid: string[] = [];
    const parts = new TranscriptParts((reason) => invalid.push(reason));
    const text = 'x'.repeat(8 * 1024 * 1024);
    for (let index = 0; index < 5; index += 1)
      expect(parts.take({ op: 'part', index, last: false, text })).toBeUndefined();
    expect(invalid).toEqual([
      'a transcript entry in pieces was dropped after 4 piece(s): it passed 33554432 characters',
    ]);
    // What follows of the dropped entry is ignored; the next entry is taken.
    expect(parts.take({ op: 'part', index: 5, last: true, text: '' })).toBeUndefined();
    expect(parts.take(small)).toEqual(small);
    expect(invalid).toHaveLength(1);
  });
});
