import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../api/helpers.js';
import { steps } from '../helpers/fake-llm.js';
import { rpc, rpcRequest, serveInProcess, userMessage, type RpcAnswer } from '../helpers/serve.js';

const OPS = 'ops-token-0123456789ab';
const serve = { principal: [{ name: 'ops', role: 'operator' as const, token: 'env:OPS_TOKEN' }] };
const env = { OPS_TOKEN: OPS };

type Server = Awaited<ReturnType<typeof serveInProcess>>['server'];
async function call(server: Server, method: string, params: unknown): Promise<RpcAnswer> {
  const response = await server.fetch(rpcRequest(server.url, rpc(method, params), OPS));
  return (await response.json()) as RpcAnswer;
}

/** A user message of these parts, in the protocol's JSON. */
function message(...parts: Record<string, unknown>[]): Record<string, unknown> {
  return { ...userMessage(''), parts };
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('base64');
const TEXT = { text: 'Read what I sent.' };

describe('the parts of a message sent to arbor serve', () => {
  it.each([
    [
      'an image file alone',
      [{ raw: PNG, mediaType: 'image/png', filename: 'a.png' }],
      /image\/png/,
    ],
    [
      'an image file beside text',
      [TEXT, { raw: PNG, mediaType: 'image/png', filename: 'a.png' }],
      /image\/png/,
    ],
    [
      'an image by URL',
      [TEXT, { url: 'https://example.com/a.png', mediaType: 'image/png' }],
      /does not fetch URL file parts/,
    ],
    [
      'a text file by URL',
      [{ url: 'https://example.com/notes.txt', mediaType: 'text/plain' }],
      /does not fetch URL file parts/,
    ],
    [
      'bytes declared as text that are not UTF-8',
      [TEXT, { raw: PNG, mediaType: 'text/plain', filename: 'a.txt' }],
      /not UTF-8 text/,
    ],
  ])(
    'refuses %s with ContentTypeNotSupportedError (-32005), naming it, and starts no task',
    async (_, parts, named) => {
      const { server, llm } = await serveInProcess(steps({ text: 'never' }), { serve, env });
      const sent = await call(server, 'SendMessage', { message: message(...parts) });
      expect(sent.error?.code).toBe(-32005);
      expect(sent.error?.message).toMatch(named);
      expect((await call(server, 'ListTasks', {})).result?.tasks ?? []).toEqual([]);
      expect(llm.requests).toHaveLength(0);
    },
  );

  it('refuses a message with no usable part, saying what is missing', async () => {
    const { server } = await serveInProcess(steps({ text: 'never' }), { serve, env });
    const sent = await call(server, 'SendMessage', { message: message({ text: '  ' }) });
    expect(sent.error?.code).toBe(-32602);
    expect(sent.error?.message).toMatch(/no text, data or file part/);
  });

  it('puts a data part in the instruction as JSON', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'ok' }), { serve, env });
    const sent = await call(server, 'SendMessage', {
      message: message(TEXT, { data: { ticket: 42, tags: ['a'] } }),
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(llm.requests[0]?.body)).toContain(
      JSON.stringify('Read what I sent.\n{"ticket":42,"tags":["a"]}').slice(1, -1),
    );
  });

  it('saves a text file in the task’s inbox outside the workspace, under a name of its own, and the task’s node reads it', async () => {
    // The agent asks first, so the test learns where the file went before the agent reads it.
    const ask = { tool_calls: [{ name: 'ask_human', args: { question: 'Ready?' } }] };
    const { server, llm } = await serveInProcess(steps(ask), { serve, env });
    const asked = await call(server, 'SendMessage', {
      message: message(TEXT, {
        raw: base64('line one\nline two\n'),
        mediaType: 'text/markdown',
        filename: '../../etc/my notes.md',
      }),
    });
    const task = asked.result?.task;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const instruction = JSON.stringify(llm.requests[0]?.body);
    const saved = /- (\/[^ ]+) \(text\/markdown, 18 bytes\)/.exec(instruction)?.[1] ?? '';
    expect(path.basename(saved)).toBe('my_notes.md');
    expect(path.basename(path.dirname(saved))).toBe(task?.id);
    expect(saved.startsWith(process.cwd())).toBe(false);
    expect(readFileSync(saved, 'utf8')).toBe('line one\nline two\n');

    llm.setPlaybook(
      steps(ask, { tool_calls: [{ name: 'fs.read', args: { path: saved } }] }, { text: 'read' }),
    );
    const done = await call(server, 'SendMessage', {
      message: { ...userMessage('Yes.'), taskId: task?.id, contextId: task?.contextId },
    });
    expect(done.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(toolResults(llm.requests.at(-1)?.body).join('\n')).toContain('line two');
  });

  it('never writes over a file: a second file of the same name gets a suffix', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'ok' }), { serve, env });
    const file = (text: string) => ({
      raw: base64(text),
      mediaType: 'application/octet-stream',
      filename: 'data.json',
    });
    const sent = await call(server, 'SendMessage', {
      message: message(TEXT, file('{"a":1}'), file('{"b":2}')),
    });
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const paths = [...JSON.stringify(llm.requests[0]?.body).matchAll(/- (\/[^ ]+) \(/g)].map(
      (match) => match[1] ?? '',
    );
    expect(paths.map((p) => path.basename(p))).toEqual(['data.json', 'data-2.json']);
    expect(paths.map((p) => readFileSync(p, 'utf8'))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('refuses a file past `[serve] max_file_bytes`, naming the cap', async () => {
    const { server, llm } = await serveInProcess(steps({ text: 'never' }), {
      serve: { ...serve, max_file_bytes: 1024 },
      env,
    });
    const sent = await call(server, 'SendMessage', {
      message: message(TEXT, { raw: base64('x'.repeat(2000)), mediaType: 'text/plain' }),
    });
    expect(sent.error?.code).toBe(-32602);
    expect(sent.error?.message).toMatch(
      /2000 bytes.*at most 1024 bytes \(`\[serve\] max_file_bytes`\)/,
    );
    expect(llm.requests).toHaveLength(0);
  });
});
