import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../src/child/frame-writer.js';
import { sendTranscript } from '../../src/child/transcript-sender.js';
import {
  SecretScrubber,
  decodeLine,
  replayTranscript,
  shownTranscript,
  type ChildTranscriptEntry,
  type TranscriptMessage,
  type TurnResult,
} from '../../src/protocol/index.js';
import { scrubbedEnd } from '../../src/supervisor/node/child-end.js';
import { TranscriptParts } from '../../src/supervisor/node/transcript-parts.js';
import { TranscriptRecord, scrubTurn } from '../../src/supervisor/node/transcript-record.js';

/** A value the run holds as a secret, and a token shaped like a credential it never held. */
const RUN_SECRET = 'runsecret-Q8w7E6r5T4y3';
const SHAPED = 'ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';

/** Thinking that happens to hold secret-looking strings: signed by the provider as it is. */
const THOUGHT = `The user pasted ${SHAPED} and ${RUN_SECRET}; I must not repeat them.`;
const REASONING = {
  dialect: 'anthropic',
  model: 'claude-a',
  blocks: [
    { type: 'thinking', thinking: THOUGHT, signature: `sig-${RUN_SECRET}` },
    { type: 'redacted_thinking', data: SHAPED },
  ],
};

const ASSISTANT: TranscriptMessage = {
  role: 'assistant',
  text: `Noted ${RUN_SECRET}.`,
  tool_calls: [{ id: 't1', name: 'fs.read', args: { path: SHAPED } }],
  reasoning: REASONING,
  ts: 1,
};

const scrub = new SecretScrubber([RUN_SECRET]);
const snapshot = JSON.stringify(REASONING);

describe('an assistant message’s reasoning under the secret scrubber', () => {
  it('is recorded byte for byte while the rest of the message is scrubbed', () => {
    const read = new TranscriptRecord(scrub).read({ op: 'append', message: ASSISTANT });
    if (!('entry' in read) || read.entry.op !== 'append') throw new Error('not an append');
    const message = read.entry.message;
    if (message.role !== 'assistant') throw new Error('not an assistant message');
    expect(JSON.stringify(message.reasoning)).toBe(snapshot);
    // The scrubber did run: what the model said and the arguments it wrote are scrubbed.
    expect(message.text).toBe('Noted [redacted].');
    expect(message.tool_calls[0]?.args).toEqual({ path: '[redacted]' });
  });

  it('is kept in a turn’s messages, both ways (the spec handed down, the result sent up)', () => {
    const kept = scrubTurn({ turn_id: 't', messages: [ASSISTANT] }, scrub);
    expect(JSON.stringify((kept.messages[0] as { reasoning?: unknown }).reasoning)).toBe(snapshot);
    const result: TurnResult = {
      turn_id: 't',
      status: 'completed',
      messages: [ASSISTANT],
      text: RUN_SECRET,
      usage: { input_tokens: 1, output_tokens: 1 },
      rounds: 1,
      tool_calls: 0,
    };
    const end = scrubbedEnd(
      {
        outcome: { status: 'completed', result: null, usage: result.usage } as never,
        via: 'turn_done',
        turn: result,
        exit: { code: 0, signal: null },
      },
      scrub,
    );
    expect(end.turn?.text).toBe('[redacted]');
    const message = end.turn?.messages[0];
    expect(JSON.stringify(message?.role === 'assistant' ? message.reasoning : undefined)).toBe(
      snapshot,
    );
  });

  it('comes through the frames whole when it is larger than one frame', () => {
    const big = {
      ...REASONING,
      blocks: [{ type: 'thinking', thinking: 'x'.repeat(3_000_000), signature: 's' }],
    };
    const entry: ChildTranscriptEntry = { op: 'append', message: { ...ASSISTANT, reasoning: big } };
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString('utf8');
        done();
      },
    });
    sendTranscript(new FrameWriter(sink), entry);
    const lines = out.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(1);
    const parts = new TranscriptParts((reason) => {
      throw new Error(reason);
    });
    const whole = lines.flatMap((line, i) => {
      const decoded = decodeLine(line, i + 1, 'up');
      if (!decoded.ok || decoded.frame.type !== 'event') throw new Error('not an event frame');
      const taken = parts.take(decoded.frame.fields);
      return taken === undefined ? [] : [taken];
    });
    expect(whole).toEqual([entry]);
  });
});

describe('views of a transcript', () => {
  it('never show reasoning, and change nothing else', () => {
    const shown = shownTranscript([
      { op: 'append', message: { role: 'user', text: 'go', ts: 1 } },
      { op: 'append', message: ASSISTANT },
    ]);
    expect(JSON.stringify(shown)).not.toContain('thinking');
    const { reasoning: _hidden, ...rest } = ASSISTANT;
    expect(shown).toEqual([{ role: 'user', text: 'go', ts: 1 }, rest]);
  });
});

describe('a resume', () => {
  it('replays the recorded transcript with each message’s reasoning, as the child sent it', () => {
    const record = new TranscriptRecord(scrub);
    const entries = [
      { op: 'append', message: { role: 'user', text: 'go', ts: 1 } },
      { op: 'append', message: ASSISTANT },
      { op: 'append', message: { role: 'tool', id: 't1', name: 'fs.read', content: 'X', ts: 2 } },
    ].map((fields) => {
      const read = record.read(fields);
      if (!('entry' in read)) throw new Error(read.invalid);
      return read.entry;
    });
    const assistant = replayTranscript(entries)[1];
    expect(assistant?.role === 'assistant' ? JSON.stringify(assistant.reasoning) : '').toBe(
      snapshot,
    );
  });
});
