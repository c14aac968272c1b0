import { describe, expect, it } from 'vitest';
import { toToolOutput } from '../../../src/tools/mcp/call-result.js';
import type { McpCallResult } from '../../../src/tools/index.js';

const png = Buffer.alloc(1234).toString('base64');

describe('toToolOutput', () => {
  it.each<[string, McpCallResult, unknown]>([
    [
      'text blocks, one per line',
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      'a\nb',
    ],
    ['no content', { content: [] }, ''],
    [
      'an image, summarised',
      { content: [{ type: 'image', mimeType: 'image/png', data: png }] },
      '[image: image/png, 1234 bytes]',
    ],
    [
      'audio, summarised',
      { content: [{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }] },
      '[audio: audio/wav, 3 bytes]',
    ],
    [
      'a resource link',
      {
        content: [
          { type: 'resource_link', name: 'readme', uri: 'file:///r.md', mimeType: 'text/markdown' },
        ],
      },
      '[resource link: readme <file:///r.md> (text/markdown)]',
    ],
    [
      'an embedded text resource, inlined',
      {
        content: [
          {
            type: 'resource',
            resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' },
          },
        ],
      },
      '[resource <file:///a.txt>, text/plain]\nhello',
    ],
    [
      'an embedded blob, summarised',
      { content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA' } }] },
      '[resource <file:///a.bin>, 3 bytes]',
    ],
    [
      'structured content over text',
      { content: [{ type: 'text', text: '{"t":1}' }], structuredContent: { t: 1 } },
      { t: 1 },
    ],
    ['the old `toolResult` shape', { toolResult: { ok: true } }, { ok: true }],
  ])('%s', (_title, result, content) => {
    expect(toToolOutput(result)).toEqual({ content, isError: false });
  });

  it('carries `isError` over', () => {
    expect(
      toToolOutput({ content: [{ type: 'text', text: 'no such file' }], isError: true }),
    ).toEqual({
      content: 'no such file',
      isError: true,
    });
  });
});
