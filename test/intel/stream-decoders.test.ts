import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseAnswerStream } from '../../src/intel/answer-stream.js';
import { AnthropicStreamDecoder } from '../../src/intel/anthropic-stream.js';
import { AttemptFailure } from '../../src/intel/attempt-failure.js';
import type { DecodedResponse, StreamDecoder } from '../../src/intel/dialect.js';
import type { ModelDelta } from '../../src/intel/index.js';
import { OpenAiStreamDecoder } from '../../src/intel/openai-stream.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import { anthropicStreamEvents } from '../../src/testing/fake-llm/anthropic-reply.js';
import { openAiStreamEvents } from '../../src/testing/fake-llm/openai-reply.js';
import type { ScriptedAnswer } from '../../src/testing/fake-llm/scripted-answer.js';

const NAMES = new ToolNames([{ name: 'subagent.run' }, { name: 'fs.read' }]);

const ANSWER: ScriptedAnswer = {
  seq: 1,
  model: 'm-1',
  text: 'Héllo wörld — two calls follow. 🌳',
  toolCalls: [
    { id: 'call_a', name: 'subagent_run', args: { instruction: 'go', n: 1 } },
    { id: 'call_b', name: 'fs_read', args: { path: '/tmp/x', lines: [1, 2] } },
  ],
  usage: { input_tokens: 12, output_tokens: 34 },
};

const EXPECTED: DecodedResponse = {
  text: ANSWER.text,
  toolCalls: [
    { id: 'call_a', name: 'subagent.run', args: { instruction: 'go', n: 1 } },
    { id: 'call_b', name: 'fs.read', args: { path: '/tmp/x', lines: [1, 2] } },
  ],
  finishReason: 'tool_calls',
  usage: { input_tokens: 12, output_tokens: 34 },
  model: 'm-1',
};

function bodyOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll(
  chunks: Uint8Array[],
  decoder: StreamDecoder,
): Promise<{ deltas: ModelDelta[]; response: DecodedResponse; touches: number }> {
  let touches = 0;
  const stream = new SseAnswerStream(bodyOf(chunks), decoder, () => (touches += 1));
  const deltas: ModelDelta[] = [];
  for (let batch = await stream.read(); batch.length > 0; batch = await stream.read()) {
    deltas.push(...batch);
  }
  return { deltas, response: stream.finish(), touches };
}

/** Splits bytes at the given cut points (any byte, even inside a UTF-8 sequence). */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const at of sorted) {
    if (at > from) out.push(bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  out.push(bytes.subarray(from));
  return out;
}

const dialects = [
  ['openai', () => openAiStreamEvents(ANSWER, true), () => new OpenAiStreamDecoder(NAMES)],
  ['anthropic', () => anthropicStreamEvents(ANSWER), () => new AnthropicStreamDecoder(NAMES)],
] as const;

describe.each(dialects)('%s stream decoding', (_dialect, events, decoder) => {
  it('assembles the same answer however the bytes are chunked', async () => {
    const bytes = Buffer.from(events().join(''), 'utf8');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (points) => {
        const { deltas, response } = await readAll(cut(bytes, points), decoder());
        expect(response).toEqual(EXPECTED);
        const text = deltas.flatMap((d) => (d.type === 'text' ? [d.text] : [])).join('');
        expect(text).toBe(ANSWER.text);
        const args = [0, 1].map((index) =>
          deltas
            .flatMap((d) => (d.type === 'tool_call' && d.index === index ? [d.argsDelta] : []))
            .join(''),
        );
        expect(args.map((a) => JSON.parse(a) as unknown)).toEqual(
          EXPECTED.toolCalls.map((c) => c.args),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('accepts CRLF line endings', async () => {
    const text = events().join('').replaceAll('\n', '\r\n');
    const { response, touches } = await readAll([Buffer.from(text)], decoder());
    expect(response).toEqual(EXPECTED);
    expect(touches).toBe(1);
  });

  it('fails as `connection` when the stream stops before the end', async () => {
    const all = events();
    const truncated = Buffer.from(all.slice(0, Math.floor(all.length / 2)).join(''));
    await expect(readAll([truncated], decoder())).rejects.toMatchObject({
      failureClass: 'connection',
    });
  });

  it('fails as `bad_response` on an event that is not JSON', async () => {
    const garbage = Buffer.from('data: {"oops": tru\n\n');
    const error = await readAll([garbage], decoder()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttemptFailure);
    expect(error).toMatchObject({ failureClass: 'bad_response' });
  });
});

describe('OpenAI stream specifics', () => {
  it('completes on a finish reason when a server never sends [DONE], without usage', async () => {
    const events = openAiStreamEvents(ANSWER, false).filter((e) => !e.includes('[DONE]'));
    const { response } = await readAll(
      [Buffer.from(events.join(''))],
      new OpenAiStreamDecoder(NAMES),
    );
    expect(response).toEqual({ ...EXPECTED, usage: undefined });
  });

  it('fails as `stream_error` when the server reports an error inside the stream', async () => {
    const body = Buffer.from('data: {"error":{"message":"overloaded"}}\n\n');
    await expect(readAll([body], new OpenAiStreamDecoder(NAMES))).rejects.toMatchObject({
      failureClass: 'stream_error',
    });
  });
});

describe('Anthropic stream specifics', () => {
  it('skips event types it does not know', async () => {
    const events = anthropicStreamEvents(ANSWER);
    const extra = ['event: brand_new\ndata: {"type":"brand_new","x":1}\n\n'];
    const body = Buffer.from([events[0], ...extra, ...events.slice(1)].join(''));
    const { response } = await readAll([body], new AnthropicStreamDecoder(NAMES));
    expect(response).toEqual(EXPECTED);
  });

  it('fails as `bad_response` on a thinking delta for a block that is not thinking', async () => {
    const events = anthropicStreamEvents(ANSWER);
    const stray =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":9,"delta":{"type":"thinking_delta","thinking":"hm"}}\n\n';
    const body = Buffer.from([events[0], stray, ...events.slice(1)].join(''));
    await expect(readAll([body], new AnthropicStreamDecoder(NAMES))).rejects.toMatchObject({
      failureClass: 'bad_response',
      message: 'thinking_delta for block 9, not a thinking block',
    });
  });

  it('fails as `stream_error` on an error event', async () => {
    const body = Buffer.from(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    await expect(readAll([body], new AnthropicStreamDecoder(NAMES))).rejects.toMatchObject({
      failureClass: 'stream_error',
      message: 'the endpoint reported `overloaded_error` inside the stream',
    });
  });

  it('counts cache reads and writes as input tokens, and splits them out', async () => {
    // 117 tokens in all: 12 uncached, 100 read from the cache, 5 written (2 of them for an hour).
    const answer = { ...ANSWER, usage: { input_tokens: 117, output_tokens: 34 } };
    const events = anthropicStreamEvents(answer, { cache: { read: 100, write5m: 3, write1h: 2 } });
    expect(events[0]).toContain('"input_tokens":12,');
    const { response } = await readAll(
      [Buffer.from(events.join(''))],
      new AnthropicStreamDecoder(NAMES),
    );
    expect(response.usage).toEqual({
      input_tokens: 117,
      output_tokens: 34,
      cache_read_tokens: 100,
      cache_write_tokens: 5,
      cache_write_1h_tokens: 2,
    });
  });
});
