import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseAnswerStream } from '../../src/intel/answer-stream.js';
import { AttemptFailure } from '../../src/intel/attempt-failure.js';
import type { DecodedResponse } from '../../src/intel/dialect.js';
import type { ModelDelta } from '../../src/intel/index.js';
import { decodeResponsesResponse } from '../../src/intel/responses-response.js';
import { ResponsesStreamDecoder } from '../../src/intel/responses-stream.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import {
  responsesBody,
  responsesStreamEvents,
} from '../../src/testing/fake-llm/responses-reply.js';
import type { ResponsesExtras } from '../../src/testing/fake-llm/responses-rules.js';
import type { ScriptedAnswer } from '../../src/testing/fake-llm/scripted-answer.js';

const NAMES = new ToolNames([{ name: 'subagent.run' }, { name: 'fs.read' }]);

const ANSWER: ScriptedAnswer = {
  seq: 3,
  model: 'o4-mini-2025-04-16',
  text: 'Héllo wörld — two calls follow. 🌳',
  toolCalls: [
    { id: 'call_a', name: 'subagent_run', args: { instruction: 'go', n: 1 } },
    { id: 'call_b', name: 'fs_read', args: { path: '/tmp/x', lines: [1, 2] } },
  ],
  usage: { input_tokens: 2048, output_tokens: 34 },
};

const REASONING = {
  type: 'reasoning' as const,
  id: 'rs_3',
  summary: [] as never[],
  encrypted_content: 'gAAAAABopaque+/==',
};

const EXTRAS: ResponsesExtras = {
  reasoning: REASONING,
  callItemIds: ['fc_3_0', 'fc_3_1'],
  cachedTokens: 1024,
  reasoningTokens: 16,
};

const EXPECTED: DecodedResponse = {
  text: ANSWER.text,
  toolCalls: [
    { id: 'call_a', name: 'subagent.run', args: { instruction: 'go', n: 1 } },
    { id: 'call_b', name: 'fs.read', args: { path: '/tmp/x', lines: [1, 2] } },
  ],
  finishReason: 'tool_calls',
  usage: {
    input_tokens: 2048,
    output_tokens: 50,
    cache_read_tokens: 1024,
    reasoning_tokens: 16,
  },
  model: 'o4-mini-2025-04-16',
  reasoning: { dialect: 'openai-responses', model: 'o4-mini-2025-04-16', blocks: [REASONING] },
};

/** A body as a server sends it: JSON text, decoded as the client decodes it. */
function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function bodyOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll(chunks: Uint8Array[]) {
  const stream = new SseAnswerStream(
    bodyOf(chunks),
    new ResponsesStreamDecoder(NAMES),
    () => undefined,
  );
  const deltas: ModelDelta[] = [];
  for (let batch = await stream.read(); batch.length > 0; batch = await stream.read()) {
    deltas.push(...batch);
  }
  return { deltas, response: stream.finish() };
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

const events = (): string => responsesStreamEvents(ANSWER, EXTRAS).join('');

describe('an unstreamed response', () => {
  it('gives the text, the calls, the usage split out and the reasoning items verbatim', () => {
    const body = wire(responsesBody(ANSWER, EXTRAS));
    const decoded = decodeResponsesResponse(body, NAMES);
    expect(decoded).toEqual(EXPECTED);
    // Verbatim: the very item the body held, key order and all.
    const item = (body as { output: unknown[] }).output[0];
    expect(decoded.reasoning?.blocks[0]).toBe(item);
    expect(JSON.stringify(decoded.reasoning?.blocks[0])).toBe(JSON.stringify(REASONING));
  });

  it('keeps no reasoning item without encrypted content: it could not be sent back', () => {
    const { encrypted_content: _dropped, ...bare } = REASONING;
    const body = wire(responsesBody(ANSWER, { ...EXTRAS, reasoning: { ...bare } }));
    expect(decodeResponsesResponse(body, NAMES)).not.toHaveProperty('reasoning');
  });

  it.each([
    ['completed', null, [], 'stop'],
    [
      'completed',
      null,
      [{ type: 'function_call', call_id: 'c', name: 'fs_read', arguments: '{}' }],
      'tool_calls',
    ],
    ['incomplete', 'max_output_tokens', [], 'length'],
    ['incomplete', 'content_filter', [], 'content_filter'],
    ['in_progress', null, [], 'other'],
  ])('reads status %s (%s) as finish reason', (status, reason, output, finish) => {
    const body = {
      model: 'gpt-4o',
      status,
      incomplete_details: reason === null ? null : { reason },
      output,
      usage: { input_tokens: 1, output_tokens: 2 },
    };
    const decoded = decodeResponsesResponse(body, NAMES);
    expect(decoded.finishReason).toBe(finish);
    expect(decoded.usage).toEqual({ input_tokens: 1, output_tokens: 2 });
  });

  it('fails as `stream_error` when the response failed, quoting the reason', () => {
    const body = {
      status: 'failed',
      error: { code: 'server_error', message: 'The model crashed.' },
      output: [],
    };
    expect(() => decodeResponsesResponse(body, NAMES)).toThrow(
      expect.objectContaining({
        failureClass: 'stream_error',
        message: 'the endpoint reported the response failed (server_error): The model crashed.',
      }),
    );
  });

  it('fails as `bad_response` on a body that is not a response, or a call without its id', () => {
    const error = (body: unknown): unknown => {
      try {
        decodeResponsesResponse(body, NAMES);
      } catch (caught) {
        return caught;
      }
      return undefined;
    };
    expect(error({ choices: [] })).toMatchObject({ failureClass: 'bad_response' });
    const nameless = { output: [{ type: 'function_call', name: 'fs_read', arguments: '{}' }] };
    expect(error(nameless)).toBeInstanceOf(AttemptFailure);
    expect(error(nameless)).toMatchObject({ failureClass: 'bad_response' });
  });
});

describe('a streamed response', () => {
  it('assembles the same answer as unstreamed, however the bytes are chunked', async () => {
    const bytes = Buffer.from(events(), 'utf8');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (points) => {
        const { deltas, response } = await readAll(cut(bytes, points));
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
        const named = deltas.filter((d) => d.type === 'tool_call' && d.name !== undefined);
        expect(named).toMatchObject([
          { index: 0, id: 'call_a', name: 'subagent.run' },
          { index: 1, id: 'call_b', name: 'fs.read' },
        ]);
      }),
      { numRuns: 60 },
    );
  });

  it('fails as `connection` when the stream is cut before response.completed', async () => {
    const all = responsesStreamEvents(ANSWER, EXTRAS);
    const truncated = Buffer.from(all.slice(0, Math.floor(all.length / 2)).join(''));
    await expect(readAll([truncated])).rejects.toMatchObject({ failureClass: 'connection' });
    // Everything but the last event is still not an answer.
    const almost = Buffer.from(all.slice(0, -1).join(''));
    await expect(readAll([almost])).rejects.toMatchObject({ failureClass: 'connection' });
  });

  it('ends on response.incomplete with the reason as finish reason', async () => {
    const incomplete = {
      type: 'response.incomplete',
      response: {
        model: 'o3',
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [],
        usage: {
          input_tokens: 5,
          output_tokens: 7,
          output_tokens_details: { reasoning_tokens: 7 },
        },
      },
    };
    const text = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"delta":"Half"}\n\nevent: response.incomplete\ndata: ${JSON.stringify(incomplete)}\n\n`;
    const { response } = await readAll([Buffer.from(text)]);
    expect(response).toEqual({
      text: 'Half',
      toolCalls: [],
      finishReason: 'length',
      usage: { input_tokens: 5, output_tokens: 7, reasoning_tokens: 7 },
      model: 'o3',
    });
  });

  it.each([
    [
      'response.failed',
      {
        type: 'response.failed',
        response: {
          status: 'failed',
          error: { code: 'server_error', message: 'boom' },
          output: [],
        },
      },
      'the endpoint reported the response failed (server_error): boom',
    ],
    [
      'error',
      { type: 'error', code: 'rate_limit_exceeded', message: 'slow down' },
      'the endpoint reported an error inside the stream (rate_limit_exceeded): slow down',
    ],
  ])('fails as `stream_error` on %s', async (_type, event, message) => {
    const body = Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
    await expect(readAll([body])).rejects.toMatchObject({ failureClass: 'stream_error', message });
  });

  it('skips event types it does not know and takes a call announced only when done', async () => {
    const done = {
      type: 'response.output_item.done',
      output_index: 0,
      item: {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_z',
        name: 'fs_read',
        arguments: '{"path":"a"}',
      },
    };
    const completed = {
      type: 'response.completed',
      response: { model: 'gpt-4o', status: 'completed', output: [], usage: null },
    };
    const text = [{ type: 'response.web_search_call.searching', output_index: 9 }, done, completed]
      .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
      .join('');
    const { deltas, response } = await readAll([Buffer.from(text)]);
    expect(deltas).toEqual([
      { type: 'tool_call', index: 0, id: 'call_z', name: 'fs.read', argsDelta: '{"path":"a"}' },
    ]);
    expect(response.toolCalls).toEqual([{ id: 'call_z', name: 'fs.read', args: { path: 'a' } }]);
    expect(response.usage).toBeUndefined();
  });

  it('fails as `bad_response` on arguments for an item that is not a call', async () => {
    const event = {
      type: 'response.function_call_arguments.delta',
      output_index: 4,
      delta: '{',
    };
    await expect(
      readAll([Buffer.from(`data: ${JSON.stringify(event)}\n\n`)]),
    ).rejects.toMatchObject({ failureClass: 'bad_response' });
  });
});
