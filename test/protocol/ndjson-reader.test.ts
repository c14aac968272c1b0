import { describe, expect, it } from 'vitest';
import {
  createFrameReader,
  encodeFrame,
  type DecodeResult,
  type Frame,
} from '../../src/protocol/index.js';

const ping = (seq: number): string => encodeFrame({ type: 'ping', seq });

function readAll(chunks: (string | Buffer)[], maxLineBytes?: number): DecodeResult<Frame>[] {
  const reader = createFrameReader('any', maxLineBytes === undefined ? {} : { maxLineBytes });
  const out: DecodeResult<Frame>[] = [];
  for (const chunk of chunks)
    out.push(...reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  out.push(...reader.end());
  return out;
}

function summary(results: DecodeResult<Frame>[]): string[] {
  return results.map((r) =>
    r.ok ? `${r.line}:ok:${r.frame.type}` : `${r.violation.line}:${r.violation.code}`,
  );
}

describe('NdjsonReader', () => {
  it('decodes frames split at every possible byte boundary', () => {
    const text =
      ping(1) + encodeFrame({ type: 'inject', message: 'multi\nline ünïcødé 🌳' }) + ping(3);
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const results = readAll([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(summary(results)).toEqual(['1:ok:ping', '2:ok:inject', '3:ok:ping']);
      const inject = results[1];
      expect(inject?.ok && inject.frame.type === 'inject' && inject.frame.message).toBe(
        'multi\nline ünïcødé 🌳',
      );
    }
  });

  it('decodes byte-at-a-time input', () => {
    const bytes = Buffer.from(ping(1) + ping(2));
    expect(summary(readAll([...bytes].map((b) => Buffer.from([b]))))).toEqual([
      '1:ok:ping',
      '2:ok:ping',
    ]);
  });

  it('tolerates CRLF line ends and skips blank lines while counting them', () => {
    const text = '{"type":"ping","seq":1}\r\n\r\n   \n{"type":"pause"}\r\n';
    expect(summary(readAll([text]))).toEqual(['1:ok:ping', '4:ok:pause']);
  });

  it('decodes a last line that has no newline when the stream ends', () => {
    expect(summary(readAll(['{"type":"ping","seq":1}\n{"type":"resume"}']))).toEqual([
      '1:ok:ping',
      '2:ok:resume',
    ]);
  });

  it('skips a UTF-8 byte order mark at the start of the stream', () => {
    expect(summary(readAll(['\uFEFF{"type":"pause"}\n']))).toEqual(['1:ok:pause']);
  });

  it('reports a bad line with its number and recovers at the next newline', () => {
    const results = readAll([
      '{"type":"ping","seq":1}\n{oops\n{"type":"ping","seq":"x"}\n{"type":"pause"}\n',
    ]);
    expect(summary(results)).toEqual([
      '1:ok:ping',
      '2:malformed_json',
      '3:invalid_frame',
      '4:ok:pause',
    ]);
    const bad = results[1];
    expect(bad !== undefined && !bad.ok && bad.violation.excerpt).toBe('{oops');
  });

  it('rejects an oversized line as soon as it crosses the cap, without buffering it whole', () => {
    const cap = 1024;
    const reader = createFrameReader('any', { maxLineBytes: cap });
    const results: DecodeResult<Frame>[] = [];
    results.push(...reader.push(Buffer.from(ping(1))));
    results.push(...reader.push(Buffer.from('{"type":"inject","message":"')));
    let maxBuffered = 0;
    for (let i = 0; i < 100; i++) {
      results.push(...reader.push(Buffer.alloc(300, 'a')));
      maxBuffered = Math.max(maxBuffered, reader.bufferedBytes);
    }
    // Reported while the line is still arriving, not at its end.
    expect(summary(results)).toEqual(['1:ok:ping', '2:frame_too_large']);
    results.push(...reader.push(Buffer.from('"}\n' + ping(3))));
    results.push(...reader.end());
    expect(summary(results)).toEqual(['1:ok:ping', '2:frame_too_large', '3:ok:ping']);
    expect(maxBuffered).toBeLessThanOrEqual(cap);
  });

  it('rejects an oversized line that arrives in one chunk with its newline', () => {
    const big = `{"type":"inject","message":"${'b'.repeat(2000)}"}\n`;
    expect(summary(readAll([big + ping(2)], 1024))).toEqual(['1:frame_too_large', '2:ok:ping']);
  });

  it('enforces the 16 MiB default cap and recovers after a 17 MiB line', () => {
    const reader = createFrameReader('any');
    const results: DecodeResult<Frame>[] = [];
    const chunk = Buffer.alloc(1024 * 1024, 'z');
    results.push(...reader.push(Buffer.from('{"type":"inject","message":"')));
    let maxBuffered = 0;
    for (let i = 0; i < 17; i++) {
      results.push(...reader.push(chunk));
      maxBuffered = Math.max(maxBuffered, reader.bufferedBytes);
    }
    results.push(...reader.push(Buffer.from('"}\n' + ping(2))), ...reader.end());
    expect(summary(results)).toEqual(['1:frame_too_large', '2:ok:ping']);
    expect(maxBuffered).toBeLessThanOrEqual(16 * 1024 * 1024);
    const [tooLarge] = results;
    expect(tooLarge !== undefined && !tooLarge.ok && tooLarge.violation.reason).toContain(
      '16777216-byte frame cap',
    );
  });

  it('accepts a line of exactly the cap', () => {
    const prefix = '{"type":"inject","message":"';
    const suffix = '"}';
    const cap = 256;
    const line = prefix + 'c'.repeat(cap - prefix.length - suffix.length) + suffix;
    expect(Buffer.byteLength(line)).toBe(cap);
    expect(summary(readAll([line + '\n', line + 'x\n'], cap))).toEqual([
      '1:ok:inject',
      '2:frame_too_large',
    ]);
  });

  it('flags invalid UTF-8 but keeps a multi-byte character split across chunks', () => {
    const tree = Buffer.from('🌳');
    const head = Buffer.from('{"type":"inject","message":"');
    const tail = Buffer.from('"}\n');
    const results = readAll([
      Buffer.concat([head, tree.subarray(0, 2)]),
      Buffer.concat([tree.subarray(2), tail]),
    ]);
    expect(summary(results)).toEqual(['1:ok:inject']);
    expect(summary(readAll([Buffer.concat([head, Buffer.from([0xc3, 0x28]), tail])]))).toEqual([
      '1:invalid_utf8',
    ]);
  });

  it('names the one bad line when a chunk of valid lines holds invalid UTF-8', () => {
    const bad = Buffer.concat([
      Buffer.from('{"type":"inject","message":"'),
      Buffer.from([0xff]),
      Buffer.from('"}\n'),
    ]);
    const chunk = Buffer.concat([Buffer.from(ping(1) + ping(2)), bad, Buffer.from(ping(4))]);
    expect(summary(readAll([chunk, ping(5)]))).toEqual([
      '1:ok:ping',
      '2:ok:ping',
      '3:invalid_utf8',
      '4:ok:ping',
      '5:ok:ping',
    ]);
  });

  it('measures the cap in bytes, not characters, for lines read in one chunk', () => {
    const prefix = '{"type":"inject","message":"';
    const suffix = '"}';
    const cap = 256;
    // 'é' is two bytes: this line is under the cap in characters and over it in bytes.
    const wide = prefix + 'é'.repeat(120) + suffix;
    expect(wide.length).toBeLessThan(cap);
    expect(Buffer.byteLength(wide)).toBeGreaterThan(cap);
    const fits = prefix + 'é'.repeat(110) + suffix;
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(cap);
    expect(summary(readAll([`${wide}\r\n${fits}\r\n${ping(3)}`], cap))).toEqual([
      '1:frame_too_large',
      '2:ok:inject',
      '3:ok:ping',
    ]);
  });

  it('masks secret-looking values in excerpts', () => {
    const results = readAll(['{"api_key":"sk-live-123","type":"nope"}\n']);
    const [result] = results;
    if (result === undefined || result.ok) throw new Error('expected a violation');
    expect(result.violation.excerpt).not.toContain('sk-live-123');
    expect(result.violation.excerpt).toContain('[redacted]');
  });
});
