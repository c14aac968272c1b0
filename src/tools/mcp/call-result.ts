import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../tool.js';
import type { McpCallResult } from './mcp-connection.js';

function bytes(base64: string): number {
  return Buffer.byteLength(base64, 'base64');
}

/** One content block as text the model can read; binary content is summarised, not inlined. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType === undefined ? '' : ` (${block.mimeType})`}]`;
    case 'resource': {
      const { resource } = block;
      const mime = resource.mimeType === undefined ? '' : `, ${resource.mimeType}`;
      if ('text' in resource && typeof resource.text === 'string') {
        return `[resource <${resource.uri}>${mime}]\n${resource.text}`;
      }
      const size =
        'blob' in resource && typeof resource.blob === 'string'
          ? `, ${bytes(resource.blob)} bytes`
          : '';
      return `[resource <${resource.uri}>${mime}${size}]`;
    }
    default: {
      // A content type newer than this SDK: say what it was rather than drop it silently.
      const type = (block as { type?: unknown }).type;
      return `[${typeof type === 'string' ? type : 'unknown'} content]`;
    }
  }
}

/**
 * A `tools/call` answer as a tool output: its `structuredContent` when it has one (the server's
 * typed answer), else its content blocks as text, one per line. `isError` carries over, so the
 * model reads a tool's own failure as an error it can act on.
 */
export function toToolOutput(result: McpCallResult): ToolOutput {
  const isError = result.isError === true;
  if ('structuredContent' in result && result.structuredContent !== undefined) {
    return { content: result.structuredContent, isError };
  }
  if (!('content' in result) || !Array.isArray(result.content)) {
    // The 2024-10-07 result shape: `{ toolResult }`.
    return { content: (result as { toolResult?: unknown }).toolResult ?? null, isError };
  }
  return { content: (result.content as ContentBlock[]).map(blockText).join('\n'), isError };
}
