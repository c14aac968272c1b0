import { describe, expect, it } from 'vitest';
import type { ControlChannel } from '../../src/child/control-channel.js';
import type { FrameWriter } from '../../src/child/frame-writer.js';
import { remoteTool } from '../../src/child/remote-tool.js';
import { ReplySlots } from '../../src/child/reply-slots.js';
import { MAX_FRAME_BYTES, type AgentFrame } from '../../src/protocol/index.js';

/** A remote `fs.write` whose requests are answered `ok` at once, and the frames it sent. */
function gatedWrite() {
  const toolReplies = new ReplySlots<{ id: number; result: unknown; is_error: boolean }>();
  const frames: AgentFrame[] = [];
  const writer = {
    send: (frame: AgentFrame) => {
      frames.push(frame);
      if (frame.type === 'tool_request')
        toolReplies.settle(frame.id, { id: frame.id, result: 'ok', is_error: false });
    },
  } as unknown as FrameWriter;
  const tool = remoteTool(
    { name: 'fs.write', description: 'Write a file.', input_schema: {} },
    { toolReplies } as unknown as ControlChannel,
    writer,
  );
  const call = (content: string) =>
    tool.run({ path: 'out.txt', content }, { signal: new AbortController().signal, callId: 'c' });
  return { call, frames };
}

describe('a remote (gated or internal) tool', () => {
  it('sends a large call whole, as one tool_request', async () => {
    const { call, frames } = gatedWrite();
    const content = 'x'.repeat(3_000_000);
    expect(await call(content)).toEqual({ content: 'ok', isError: false });
    expect(frames).toEqual([
      { type: 'tool_request', id: 1, name: 'fs.write', args: { path: 'out.txt', content } },
    ]);
  });

  it.each([
    ['characters', 'x'.repeat(MAX_FRAME_BYTES)],
    // Under the cap in characters, over it in UTF-8 bytes.
    ['UTF-8 bytes', 'é'.repeat(MAX_FRAME_BYTES / 2)],
  ])(
    'answers a call past one frame in %s with an error for the model, sending nothing',
    async (_unit, content) => {
      const { call, frames } = gatedWrite();
      const output = await call(content);
      expect(output.isError).toBe(true);
      expect(output.content).toMatch(
        /^The arguments of `fs.write` are \d+ bytes as JSON; a call the supervisor serves carries at most 16773120 bytes of arguments \(one protocol frame, 16 MiB\)\. Make several smaller calls instead\.$/,
      );
      expect(frames).toEqual([]);
    },
  );
});
