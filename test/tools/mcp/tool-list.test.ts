import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ToolList } from '../../../src/tools/mcp/tool-list.js';

const tool = (name: string): McpListedTool => ({ name, inputSchema: { type: 'object' } });

/** A lister whose answers the test releases one at a time. */
function controlledLister() {
  const pending: ((tools: McpListedTool[]) => void)[] = [];
  let calls = 0;
  const list = () => {
    calls += 1;
    return new Promise<McpListedTool[]>((resolve) => pending.push(resolve));
  };
  return { list, pending, calls: () => calls };
}

const signal = new AbortController().signal;

describe('ToolList', () => {
  it('is stale until first listed, then only after a change is announced', async () => {
    const lister = controlledLister();
    const list = new ToolList(lister.list);
    expect(list.isStale).toBe(true);
    const first = list.refresh(signal);
    lister.pending.shift()!([tool('a')]);
    expect(await first).toBe(true);
    expect(list.isStale).toBe(false);
    expect(await list.refresh(signal)).toBe(false);
    expect(lister.calls()).toBe(1);
    list.markChanged();
    expect(list.isStale).toBe(true);
    expect(list.current().map((t) => t.name)).toEqual(['a']);
  });

  it('stays stale when a change is announced while a listing is in flight', async () => {
    const lister = controlledLister();
    const list = new ToolList(lister.list);
    const pending = list.refresh(signal);
    list.markChanged();
    lister.pending.shift()!([tool('a')]);
    await pending;
    expect(list.isStale).toBe(true);
    expect(list.version).toBe(1);
  });

  it('shares one listing between concurrent refreshes', async () => {
    const lister = controlledLister();
    const list = new ToolList(lister.list);
    const both = Promise.all([list.refresh(signal), list.refresh(signal)]);
    lister.pending.shift()!([tool('a')]);
    expect(await both).toEqual([true, true]);
    expect(lister.calls()).toBe(1);
  });

  it('keeps the old list, and stays stale, when a listing fails', async () => {
    let fail = false;
    const list = new ToolList(() =>
      fail ? Promise.reject(new Error('gone')) : Promise.resolve([tool('a')]),
    );
    await list.refresh(signal);
    list.markChanged();
    fail = true;
    await expect(list.refresh(signal)).rejects.toThrow('gone');
    expect(list.current().map((t) => t.name)).toEqual(['a']);
    expect(list.isStale).toBe(true);
  });
});
