import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';

/** A server that keeps handing out cursors is broken; this many pages is far past any real list. */
const MAX_PAGES = 100;

/**
 * Lists every tool a server offers, following `nextCursor` page by page. A cursor that repeats or
 * a list that never ends is a protocol error, not a hang.
 */
export async function listAllTools(
  client: Client,
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      signal: options.signal,
      timeout: options.timeoutMs,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`tools/list repeated the cursor \`${cursor}\``);
    seen.add(cursor);
  }
  throw new Error(`tools/list went on past ${MAX_PAGES} pages`);
}
